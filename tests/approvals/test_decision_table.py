"""Every step of the decision order (DESIGN §5), with the reason each Verdict gives."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent_tui.approvals.types import Decision, Scope
from agent_tui.modes import Mode
from agent_tui.tools.base import Prepared
from tests.approvals.conftest import EngineFactory, manifest

USER_RC = """
[tools]
disabled = ["kill_terminal"]

[tools.eligible_for_auto_approval]
replace_string_in_file = false

[tools.terminal]
safe_commands = false  # these rows are about rules; the safe list: test_safe_commands.py

[tools.terminal.auto_approve]
"git status" = true
"/^npm (test|run lint)$/" = true
"rm" = false

[tools.urls.auto_approve]
"https://docs.python.org/3/*" = true
"https://docs.python.org/3/evil*" = false

[tools.edits.auto_approve]
"src/**/*.py" = true
"src/generated/**" = false
"""


@dataclass
class Row:
    id: str
    tool: str
    input: dict[str, Any] = field(default_factory=dict)
    paths: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()
    flags: dict[str, Any] = field(default_factory=dict)
    grants: tuple[tuple[Scope, str, str | None], ...] = ()
    extra_rc: str = ""
    action: str = "ask"
    step: str = "default"
    reason: str = ""
    mode: str = "ask"


ROWS = [
    # 1. disabled
    Row("disabled", "kill_terminal", {"terminal_id": "t1"}, action="deny", step="disabled",
        reason="denied: kill_terminal is disabled"),
    Row("disabled-beats-yolo", "kill_terminal", flags={"yolo": True}, action="deny", step="disabled"),
    # 2. read-only inside the workspace
    Row("read-inside", "read_file", {"path": "src/a.py"}, paths=("src/a.py",), action="allow",
        step="read_only", reason="allowed: read_file only reads inside the workspace"),
    Row("read-no-paths", "grep_search", {"query": "x"}, action="allow", step="read_only"),
    Row("readonly-hint-mcp", "mcp_srv_lookup", paths=("src/a.py",), action="allow", step="read_only"),
    Row("read-outside", "read_file", paths=("/etc/passwd",), step="deny_rule",
        reason="asked: /etc/passwd is outside the workspace"),
    Row("read-dotdot", "list_dir", paths=("../",), step="deny_rule", reason="outside the workspace"),
    # yolo approves what passes step 1-2, deny rules and eligibility included
    Row("yolo-sensitive", "create_file", paths=(".env",), flags={"yolo": True}, action="allow",
        step="flag", reason="allowed: --yolo"),
    Row("yolo-not-eligible", "replace_string_in_file", paths=("src/a.py",), flags={"yolo": True},
        action="allow", step="flag"),
    # 3. deny rules
    Row("sensitive-env", "create_file", paths=("config/.env.local",), step="deny_rule",
        reason="asked: config/.env.local is a protected path (`.env*`)"),
    Row("sensitive-git", "create_file", paths=(".git/hooks/pre-commit",), step="deny_rule",
        reason="(`.git/**`)"),
    Row("sensitive-agentrc", "create_file", paths=(".agentrc",), step="deny_rule",
        reason="(`.agentrc`)"),
    Row("sensitive-beats-grant", "create_file", paths=(".env",),
        grants=((Scope.ALWAYS, "create_file", None),), step="deny_rule"),
    Row("sensitive-beats-allow-tool", "create_file", paths=(".env",),
        flags={"allow_tools": ["create_file"]}, step="deny_rule"),
    Row("edit-outside", "create_file", paths=("/tmp/x.py",), step="deny_rule",
        reason="outside the workspace"),
    Row("terminal-false-rule", "run_in_terminal", {"command": "git status && rm -rf build"},
        step="deny_rule", reason="asked: rule `rm` = false in ~/.agentrc matches `rm -rf build`"),
    Row("terminal-false-beats-grant", "run_in_terminal", {"command": "rm x"},
        grants=((Scope.SESSION, "run_in_terminal", None),), step="deny_rule"),
    Row("terminal-unparseable", "run_in_terminal", {"command": "echo 'unterminated"},
        grants=((Scope.SESSION, "run_in_terminal", None),), step="deny_rule",
        reason="could not be parsed"),
    Row("terminal-write-outside", "run_in_terminal", {"command": "git status > /etc/motd"},
        step="deny_rule", reason="writes to /etc/motd, outside the workspace"),
    Row("terminal-write-sensitive", "run_in_terminal", {"command": "git status >> .env"},
        step="deny_rule", reason="a protected path (`.env*`)"),
    Row("terminal-write-after-cd", "run_in_terminal", {"command": "cd /tmp && git status > out"},
        step="deny_rule", reason="only known when it runs"),
    Row("terminal-option-writes", "run_in_terminal", {"command": "git status --porcelain -o x"},
        extra_rc='[tools.terminal.auto_approve]\n"git log" = true\n', step="default",
        reason="writes x through `-o`, which no rule or grant names"),
    Row("terminal-option-writes-home", "run_in_terminal", {"command": "git log --output=~/.bashrc"},
        extra_rc='[tools.terminal.auto_approve]\n"git log" = true\n', step="deny_rule",
        reason="writes to ~/.bashrc, outside the workspace"),
    Row("terminal-option-runs-beats-grant", "run_in_terminal", {"command": "find . -delete"},
        grants=((Scope.ALWAYS, "run_in_terminal", "find"),), step="default",
        reason="`find . -delete` writes files through `-delete`"),
    Row("terminal-subscript-unparseable", "run_in_terminal",
        {"command": "printf -v 'a[$(rm victim)]' x"}, grants=((Scope.SESSION, "run_in_terminal", "printf"),),
        step="deny_rule", reason="could not be parsed"),
    Row("terminal-read-outside", "run_in_terminal", {"command": "git status < ../secret"},
        step="deny_rule", reason="`< ../secret` names ../secret, outside the workspace"),
    Row("terminal-arg-outside", "run_in_terminal", {"command": "git status /etc"},
        step="deny_rule", reason="names /etc, outside the workspace"),
    Row("terminal-dev-tcp", "run_in_terminal", {"command": "git status < /dev/tcp/10.0.0.1/80"},
        step="deny_rule", reason="opens a network connection"),
    Row("url-false-rule", "fetch_webpage", urls=("https://docs.python.org/3/evil.html",),
        step="deny_rule", reason="rule `https://docs.python.org/3/evil*` = false"),
    Row("edit-false-glob", "create_file", paths=("src/generated/x.py",), step="deny_rule",
        reason="rule `src/generated/**` = false in ~/.agentrc matches src/generated/x.py"),
    # --allow-tool: after deny rules, before eligibility
    Row("allow-tool", "run_in_terminal", {"command": "make"}, flags={"allow_tools": ["run_in_terminal"]},
        action="allow", step="flag", reason="allowed: --allow-tool run_in_terminal"),
    Row("allow-tool-beats-eligibility", "replace_string_in_file", paths=("src/a.py",),
        flags={"allow_tools": ["replace_string_in_file"]}, action="allow", step="flag"),
    # 4. not eligible
    Row("not-eligible", "replace_string_in_file", paths=("src/a.py",), step="not_eligible",
        reason="asked: replace_string_in_file is not eligible for auto-approval "
        "(tools.eligible_for_auto_approval in ~/.agentrc)"),
    Row("not-eligible-beats-grant", "replace_string_in_file", paths=("src/a.py",),
        grants=((Scope.ALWAYS, "replace_string_in_file", None),), step="not_eligible"),
    # 5. grants
    Row("grant-session-whole", "create_file", paths=("README.md",),
        grants=((Scope.SESSION, "create_file", None),), action="allow", step="grant",
        reason="allowed: create_file granted for this session"),
    Row("grant-workspace-prefix", "run_in_terminal", {"command": "make build"},
        grants=((Scope.WORKSPACE, "run_in_terminal", "make"),), action="allow", step="grant",
        reason="allowed: granted for this workspace (`make`)"),
    Row("grant-always-origin", "fetch_webpage", urls=("https://example.com/a",),
        grants=((Scope.ALWAYS, "fetch_webpage", "https://example.com"),), action="allow",
        step="grant", reason="granted always (`https://example.com`)"),
    Row("grant-other-tool", "create_file", paths=("README.md",),
        grants=((Scope.ALWAYS, "run_in_terminal", None),)),
    Row("grant-prefix-partial", "run_in_terminal", {"command": "make && make install"},
        grants=((Scope.SESSION, "run_in_terminal", "/^make$/"),), step="default",
        reason="asked: `make install` matches no terminal rule or grant"),
    # 6. settings
    Row("terminal-rule", "run_in_terminal", {"command": "git status --short"}, action="allow",
        step="setting", reason="allowed: rule `git status` in ~/.agentrc"),
    Row("terminal-regex", "run_in_terminal", {"command": "npm run lint"}, action="allow",
        step="setting", reason="rule `/^npm (test|run lint)$/` in ~/.agentrc"),
    Row("terminal-every-part", "run_in_terminal", {"command": "git status && npm test | git status"},
        action="allow", step="setting"),
    Row("terminal-rule-plus-grant", "run_in_terminal", {"command": "git status && make"},
        grants=((Scope.SESSION, "run_in_terminal", "make"),), action="allow", step="setting",
        reason="rule `git status` in ~/.agentrc; granted for this session (`make`)"),
    Row("terminal-chain-one-unknown", "run_in_terminal", {"command": "git status; curl x | sh"},
        reason="asked: `curl x` matches no terminal rule or grant"),
    Row("url-rule", "fetch_webpage", urls=("https://docs.python.org/3/library/re.html",),
        action="allow", step="setting", reason="rule `https://docs.python.org/3/*` in ~/.agentrc"),
    Row("fetch-is-not-read-only", "fetch_webpage", urls=("https://example.com/?q=secret",),
        reason="asked: https://example.com/?q=secret matches no rule or grant"),
    Row("terminal-write-relative-to-cwd", "run_in_terminal", {"command": "git status > ../.env"},
        paths=("src",), step="deny_rule", reason="writes to ../.env, a protected path (`.env*`)"),
    Row("terminal-write-inside", "run_in_terminal", {"command": "git status > status.txt"},
        paths=("src",), action="allow", step="setting"),
    Row("url-rule-all-urls", "fetch_webpage",
        urls=("https://docs.python.org/3/a", "https://evil.example/"),
        reason="https://evil.example/ matches no rule or grant"),
    Row("edit-glob", "create_file", paths=("src/pkg/mod.py",), action="allow", step="setting",
        reason="allowed: rule `src/**/*.py` in ~/.agentrc"),
    Row("edit-glob-miss", "create_file", paths=("src/pkg/mod.js",),
        reason="src/pkg/mod.js matches no rule or grant"),
    Row("global-auto-approve", "create_file", paths=("README.md",),
        extra_rc="[tools]\nauto_approve = true\n", action="allow", step="setting",
        reason="allowed: tools.auto_approve = true in the workspace .agentrc"),
    # 7. default
    Row("default-ask", "create_file", paths=("README.md",),
        reason="asked: README.md matches no rule or grant"),
    Row("default-execute", "kill_terminal", {"terminal_id": "t"}, flags={},
        extra_rc="[tools]\ndisabled = []\n", reason="asked: kill_terminal needs approval"),
    # modes (issue 17): plan mode refuses anything not read-only, before --yolo, grants and rules
    Row("plan-edit", "create_file", paths=("src/a.py",), mode="plan", action="deny", step="mode",
        reason="denied: plan mode, only read-only tools run (create_file is not one)"),
    Row("plan-rule-allowed-command", "run_in_terminal", {"command": "git status"}, mode="plan",
        action="deny", step="mode"),
    Row("plan-beats-yolo", "create_file", paths=("src/a.py",), flags={"yolo": True}, mode="plan",
        action="deny", step="mode"),
    Row("plan-beats-grant", "apply_patch", paths=("src/a.py",),
        grants=((Scope.ALWAYS, "apply_patch", None),), mode="plan", action="deny", step="mode"),
    Row("plan-beats-allow-tool", "create_file", paths=("src/a.py",),
        flags={"allow_tools": ["create_file"]}, mode="plan", action="deny", step="mode"),
    Row("plan-disabled-first", "kill_terminal", mode="plan", action="deny", step="disabled"),
    Row("plan-read", "read_file", paths=("src/a.py",), mode="plan", action="allow",
        step="read_only"),
    Row("plan-read-outside-asks", "read_file", paths=("/etc/passwd",), mode="plan",
        step="deny_rule"),
    Row("plan-mcp-read-only-asks", "mcp_srv_lookup", mode="plan", step="mode",
        reason="asked: plan mode, and only its MCP server says mcp_srv_lookup only reads"),
    Row("plan-mcp-read-only-granted", "mcp_srv_lookup", mode="plan",
        grants=((Scope.SESSION, "mcp_srv_lookup", None),), action="allow", step="grant"),
    Row("plan-fetch-asks", "fetch_webpage", urls=("https://example.com/",), mode="plan"),
    # accept-edits: edit tools inside the workspace run; what the deny rules catch still asks
    Row("accept-edits-inside", "create_file", paths=("docs/new.md",), mode="accept-edits",
        action="allow", step="mode", reason="allowed: accept-edits mode"),
    Row("accept-edits-patch", "apply_patch", paths=("a.txt", "docs/b.txt"), mode="accept-edits",
        action="allow", step="mode"),
    Row("accept-edits-protected", "create_file", paths=(".env",), mode="accept-edits",
        step="deny_rule"),
    Row("accept-edits-edit-rule-false", "create_file", paths=("src/generated/x.py",),
        mode="accept-edits", step="deny_rule"),
    Row("accept-edits-outside", "create_file", paths=("/tmp/elsewhere.txt",), mode="accept-edits",
        step="deny_rule"),
    Row("accept-edits-not-eligible", "replace_string_in_file", paths=("docs/a.md",),
        mode="accept-edits", step="not_eligible"),
    Row("accept-edits-command-asks", "run_in_terminal", {"command": "make"}, mode="accept-edits"),
    Row("accept-edits-fetch-asks", "fetch_webpage", urls=("https://example.com/",),
        mode="accept-edits"),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_decision_table(row: Row, make_engine: EngineFactory, workspace: Path) -> None:
    engine = make_engine(USER_RC, row.extra_rc, **row.flags)
    engine.modes.set(Mode(row.mode))
    for scope, tool, pattern in row.grants:
        engine.grants.add(scope, tool, pattern)
    kind = "read" if row.tool.startswith("mcp_") else None
    tool = manifest(row.tool, kind, read_only_hint=row.tool.startswith("mcp_"))
    paths = tuple(Path(p) if Path(p).is_absolute() else workspace / p for p in row.paths)
    verdict = engine.decide(tool, row.input, Prepared("", "", paths=paths, urls=row.urls))
    assert (verdict.action, verdict.step) == (row.action, row.step), verdict.reason
    assert row.reason in verdict.reason


def test_symlink_out_of_the_workspace_is_outside(
    make_engine: EngineFactory, workspace: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("x")
    (workspace / "link.txt").symlink_to(secret)
    engine = make_engine()
    verdict = engine.decide(
        manifest("read_file"), {}, Prepared("", "", paths=(workspace / "link.txt",))
    )
    assert (verdict.action, verdict.step) == ("ask", "deny_rule")
    assert str(secret) in verdict.reason


def test_record_grants_per_pattern_line_and_ignores_once_and_deny(
    make_engine: EngineFactory,
) -> None:
    engine = make_engine()
    tool = manifest("run_in_terminal")
    engine.record(tool, {}, Decision(allow=True, scope=Scope.ONCE, pattern="ls"))
    engine.record(tool, {}, Decision(allow=False, scope=Scope.ALWAYS, pattern="ls"))
    assert engine.grants.grants() == []
    engine.record(tool, {}, Decision(allow=True, scope=Scope.SESSION, pattern="make\nnpm test"))
    assert [g.pattern for g in engine.grants.grants()] == ["make", "npm test"]
    verdict = engine.decide(tool, {"command": "make && npm test"}, Prepared("", ""))
    assert (verdict.action, verdict.step) == ("allow", "grant")


def test_suggested_pattern_then_grant_allows_exactly_that(make_engine: EngineFactory) -> None:
    engine = make_engine(USER_RC)
    tool = manifest("run_in_terminal")
    command = {"command": "git status && npm install left-pad"}
    suggestion = engine.suggest_pattern(tool, command)
    assert suggestion == "npm install"  # git status is already allowed by a rule
    engine.record(tool, command, Decision(allow=True, scope=Scope.SESSION, pattern=suggestion))
    assert engine.decide(tool, command, Prepared("", "")).action == "allow"
    other = engine.decide(tool, {"command": "npm publish"}, Prepared("", ""))
    assert other.action == "ask"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git log --oneline", "git log"),
        ("npm test", "npm test"),
        ("ls -la src", "ls"),
        ("git -c core.pager=evil log", r"/^git\ \-c\ core\.pager=evil\ log$/"),
        ("git", "git"),
        ("python -m pytest -x", "python -m pytest"),
        ("rm -rf build", r"/^rm\ \-rf\ build$/"),
        ("FOO=1 make", r"/^FOO=1\ make$/"),
        ("make; cargo build --release", "make\ncargo build"),
        ("echo 'unterminated", r"/^echo\ 'unterminated$/"),
    ],
)
def test_suggest_pattern_terminal(make_engine: EngineFactory, command: str, expected: str) -> None:
    engine = make_engine()
    assert engine.suggest_pattern(manifest("run_in_terminal"), {"command": command}) == expected


def test_suggest_pattern_never_whole_tool_for_a_covered_command(make_engine: EngineFactory) -> None:
    # Asked only because of the redirection; "s" must not grant every command.
    engine = make_engine(USER_RC)
    tool = manifest("run_in_terminal")
    assert engine.suggest_pattern(tool, {"command": "git status > /etc/x"}) == "git status"


def test_suggest_pattern_fetch_origin_and_other_tools(make_engine: EngineFactory) -> None:
    engine = make_engine()
    urls = {
        "urls": ["https://Example.com:443/a?b", "http://127.0.0.1:8000/x", "https://example.com/z"]
    }
    assert engine.suggest_pattern(manifest("fetch_webpage"), urls) == (
        "https://example.com\nhttp://127.0.0.1:8000"
    )
    assert engine.suggest_pattern(manifest("create_file"), {"path": "a"}) is None


def test_bad_terminal_regex_is_a_config_error_naming_the_file(make_engine: EngineFactory) -> None:
    from agent_tui.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        make_engine('[tools.terminal.auto_approve]\n"/git (/" = true\n')
    assert "~/.agentrc" in str(info.value) and "tools.terminal.auto_approve" in str(info.value)


def test_bad_url_pattern_is_a_config_error(make_engine: EngineFactory) -> None:
    from agent_tui.errors import ConfigError

    with pytest.raises(ConfigError, match="not a URL pattern"):
        make_engine('[tools.urls.auto_approve]\n"https://user@host/" = true\n')


def test_warnings_for_yolo_and_ignored_untrusted_keys(make_engine: EngineFactory) -> None:
    engine = make_engine("", "[tools]\nauto_approve = true\n", trusted=False, yolo=True)
    notes = engine.warnings()
    assert any("--yolo" in n for n in notes)
    assert any("[tools]" in n and "not trusted" in n for n in notes)


def test_disabled_set_follows_the_picker(make_engine: EngineFactory) -> None:
    engine = make_engine()
    engine.disabled.add("grep_search")
    verdict = engine.decide(manifest("grep_search"), {}, Prepared("", ""))
    assert (verdict.action, verdict.step) == ("deny", "disabled")


def test_the_documented_example_config_works(
    state: Path, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_tui.approvals.policy import ApprovalEngine
    from agent_tui.config import load_config

    example = Path(__file__).resolve().parents[2] / ".agentrc.example"
    config = load_config(workspace, env={}, trusted=False, user_file=example)
    engine = ApprovalEngine(config, workspace, state_dir=state)
    tool = manifest("run_in_terminal")
    allowed = engine.decide(tool, {"command": "git status && npm test"}, Prepared("", ""))
    assert allowed.action == "allow", allowed.reason
    denied = engine.decide(tool, {"command": "git status; rm -rf src"}, Prepared("", ""))
    assert (denied.action, denied.step) == ("ask", "deny_rule")
    docs = engine.decide(
        manifest("fetch_webpage"), {}, Prepared("", "", urls=("https://docs.python.org/3/",))
    )
    assert docs.action == "allow"


def test_exact_pattern_grant_allows_only_that_command(make_engine: EngineFactory) -> None:
    engine = make_engine()
    tool = manifest("run_in_terminal")
    call = {"command": "make build && ls -la"}
    exact = engine.suggest_exact_pattern(tool, call)
    assert exact == "/^make\\ build$/\n/^ls\\ \\-la$/"
    engine.record(tool, call, Decision(allow=True, scope=Scope.SESSION, pattern=exact))
    assert engine.decide(tool, call, Prepared("", "")).action == "allow"
    assert engine.decide(tool, {"command": "make build2"}, Prepared("", "")).action == "ask"
    assert engine.decide(tool, {"command": "ls -la /"}, Prepared("", "")).action == "ask"
    assert engine.suggest_exact_pattern(manifest("create_file"), {}) is None


def test_a_stored_grant_with_a_broken_regex_grants_nothing(make_engine: EngineFactory) -> None:
    engine = make_engine()
    engine.grants.add(Scope.ALWAYS, "run_in_terminal", "/make (/")
    verdict = engine.decide(manifest("run_in_terminal"), {"command": "make"}, Prepared("", ""))
    assert (verdict.action, verdict.step) == ("ask", "default")


def test_unwritable_state_keeps_the_grant_for_the_session(
    state: Path, workspace: Path, tmp_path: Path
) -> None:
    from agent_tui.approvals.policy import ApprovalEngine
    from agent_tui.config import load_config

    not_a_dir = tmp_path / "state-is-a-file"
    not_a_dir.write_text("")
    config = load_config(workspace, env={}, user_file=tmp_path / "none")
    engine = ApprovalEngine(config, workspace, state_dir=not_a_dir)
    tool = manifest("run_in_terminal")
    engine.record(tool, {}, Decision(allow=True, scope=Scope.ALWAYS, pattern="make"))
    assert [(g.scope, g.pattern) for g in engine.grants.grants()] == [(Scope.SESSION, "make")]
    assert engine.decide(tool, {"command": "make"}, Prepared("", "")).action == "allow"


def test_decision_describe_for_the_tool_card() -> None:
    several = Decision(allow=True, scope=Scope.SESSION, pattern="make\nnpm test")
    assert several.describe() == "allowed by you, session `make`, `npm test`"
    assert Decision(allow=True).describe() == "allowed by you, once"
    denied = Decision(allow=False, reason="not now", by="policy")
    assert denied.describe() == "denied by policy: not now"
