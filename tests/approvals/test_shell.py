"""Command-line splitting, and the property that matters: a line with any sub-command that is not
allowed is never auto-approved, however it is chained, nested or wrapped."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_tui.approvals.policy import ApprovalEngine
from agent_tui.approvals.shell import parse_command, split_command
from agent_tui.tools.base import Prepared
from tests.approvals.conftest import EngineFactory, manifest


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("git status", ["git status"]),
        ("a && b || c; d", ["a", "b", "c", "d"]),
        ("a | b |& c", ["a", "b", "c"]),
        ("echo $(rm -rf x)", ["rm -rf x", "echo $(rm -rf x)"]),
        ("echo `whoami`", ["whoami", "echo `whoami`"]),
        ("(cd sub && make) > log", ["cd sub", "make"]),
        ("{ a; b; }", ["a", "b"]),
        ("bash -c 'a && b'", ["a", "b"]),
        ('sh -ec "a; b"', ["a", "b"]),
        ("/bin/bash -c 'a'", ["a"]),
        ("bash -o pipefail -ec 'a | b'", ["a", "b"]),
        ("bash -c -x 'a'", ["a"]),
        ("command bash -c 'a'", ["command bash -c 'a'", "a"]),
        ("eval 'a; b'", ["a", "b"]),
        ("bash script.sh", ["bash script.sh"]),
        ("diff <(a) <(b)", ["a", "b", "diff <(a) <(b)"]),
        ("if a; then b; else c; fi", ["a", "b", "c"]),
        ("for i in 1 2; do b $i; done", ["b $i"]),
        ("while a; do b; done", ["a", "b"]),
        ("f() { a; }; f", ["a", "f"]),
        ("x=$(a)", ["a", "x=$(a)"]),
        ("PAGER=less git log", ["PAGER=less git log"]),
        ("sudo rm x", ["sudo rm x", "rm x"]),
        ("env A=1 rm x", ["env A=1 rm x", "rm x"]),
        ("timeout 5 npm test", ["timeout 5 npm test", "npm test"]),
        ("ls | xargs rm", ["ls", "xargs rm", "rm"]),
        ("find . -exec rm {} \\;", ["find . -exec rm {} \\;", "rm {}"]),
        ("a &", ["a"]),
        ("a\nb", ["a", "b"]),
        ("ls \\\n  -la", ["ls -la"]),
        ("git  status   --short", ["git status --short"]),
        # bashlex itself gets these wrong; we cut substitutions out and parse them separately.
        ("echo $(a\nrm -rf x)", ["a", "rm -rf x", "echo $(a\nrm -rf x)"]),
        ("echo `a\nrm x`", ["a", "rm x", "echo `a\nrm x`"]),
        ('echo "$(a && b)"', ["a", "b", 'echo "$(a && b)"']),
        ("echo ${x:-$(rm y)}", ["rm y", "echo ${x:-$(rm y)}"]),
        ("echo '$(not run)' \"\\$(nor this)\"", ["echo '$(not run)' \"\\$(nor this)\""]),
        ("cat <<EOF\n$(rm -rf x)\nEOF", ["rm -rf x", "cat"]),
        ("ls # it's a comment", ["ls"]),
    ],
)
def test_split_command(line: str, expected: list[str]) -> None:
    assert split_command(line) == expected


def _nested_shells(levels: int) -> str:
    line = "ls"
    for _ in range(levels):
        line = "bash -c " + shlex.quote(line)
    return line


@pytest.mark.parametrize(
    "line",
    [
        "",
        "   ",
        "echo 'unterminated",
        "echo $(",
        "case x in a) rm;; esac",  # bashlex does not support case: ask rather than guess
        "cat <<EOF\nhi $USER\nEOF",  # bashlex leaves here-document bodies unparsed: ask
        "echo $((1 + 2))",  # arithmetic expansion is not looked into
        _nested_shells(12),  # deeper than anyone writes by hand: ask
    ],
)
def test_unparseable_or_empty_gives_none(line: str) -> None:
    assert parse_command(line) is None
    assert split_command(line) is None


def test_nested_bash_c_with_concatenated_quotes_keeps_inner_command() -> None:
    # bashlex's own unquoting mangled 'a'"'"'b' and hid `rm x` from three levels down.
    line = "rm x"
    for _ in range(4):
        line = "bash -c " + shlex.quote(line)
    assert split_command(line) == ["rm x"]


def test_escaped_substitution_in_double_quoted_bash_c_is_seen() -> None:
    # bash turns "\$(rm x)" into the text $(rm x), which `bash -c` then runs.
    assert split_command('bash -c "echo \\$(rm x)"') == ["rm x", "echo $(rm x)"]


def test_ansi_c_quoted_script_is_not_guessed() -> None:
    assert split_command("bash -c $'rm\\x20x'") is None


def test_assignment_only_is_not_a_known_command() -> None:
    parsed = parse_command("x=1")
    assert parsed is not None and [c.text for c in parsed.commands] == ["x=1"]


def test_redirection_targets_are_collected() -> None:
    parsed = parse_command("a > out 2>&1; b >> ~/.bashrc; c 2>/dev/null; (d) > sub; e < in")
    assert parsed is not None
    assert parsed.writes == ("out", "~/.bashrc", "sub")


# --- the property ---------------------------------------------------------------------------

RULES = """
[tools.terminal.auto_approve]
"git status" = true
"ls" = true
"echo" = true
"true" = true
"/^npm test$/" = true
"""
ALLOWED = ["git status", "git status --short", "ls -la", "echo hi", "npm test", "true"]
DISALLOWED = ["rm -rf x", "curl evil.example", "python evil.py", "git push", "npm publish",
              "npm test --watch", "make install", "git statusx", "lsblk"]  # fmt: skip


def _double_quote(text: str) -> str:
    """Quote for bash inside "…" (backslash before \\ " $ and backtick)."""
    for ch in ("\\", '"', "$", "`"):
        text = text.replace(ch, "\\" + ch)
    return f'"{text}"'


@st.composite
def command_lines(draw: st.DrawFn, depth: int = 0) -> tuple[str, bool]:
    """A command line and whether every command in it is allowed."""
    if depth >= 3 or draw(st.booleans()):
        if draw(st.booleans()):
            return draw(st.sampled_from(ALLOWED)), True
        return draw(st.sampled_from(DISALLOWED)), False
    form = draw(st.sampled_from(["op", "op", "subst", "tick", "subshell", "brace", "shell_c",
                                 "shell_c_dq", "eval", "if", "for", "redirect", "assign"]))  # fmt: skip
    inner, ok = draw(command_lines(depth + 1))
    if form == "op":
        other, other_ok = draw(command_lines(depth + 1))
        op = draw(st.sampled_from(["&&", "||", ";", "|", "\n"]))
        return f"{inner} {op} {other}", ok and other_ok
    if form == "tick":
        leaf_ok = draw(st.booleans())
        leaf = draw(st.sampled_from(ALLOWED if leaf_ok else DISALLOWED))
        return f"echo `{leaf}` && {inner}", ok and leaf_ok  # backticks do not nest unescaped
    wrapped = {
        "subst": f"echo $( {inner} )",
        "subshell": f"( {inner} )",  # "$((" would be arithmetic
        "brace": f"{{ {inner}; }}",
        "shell_c": f"{draw(st.sampled_from(['bash', 'sh']))} -c {shlex.quote(inner)}",
        "shell_c_dq": f"bash -c {_double_quote(inner)}",
        "eval": f"eval {shlex.quote(inner)}",
        "if": f"if true; then {inner}; fi",
        "for": f"for i in 1 2; do {inner}; done",
        "redirect": f"{inner} 2>/dev/null",
        "assign": f"out=$({inner})",
    }[form]
    if form == "assign":
        return wrapped, False  # `out=...` itself matches no rule
    return wrapped, ok


@pytest.fixture
def rules_engine(make_engine: EngineFactory) -> ApprovalEngine:
    return make_engine(RULES)


def _decide(engine: ApprovalEngine, line: str) -> str:
    return engine.decide(manifest("run_in_terminal"), {"command": line}, Prepared("", "")).action


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=command_lines())
def test_a_line_with_a_disallowed_part_is_never_auto_approved(
    rules_engine: ApprovalEngine, case: tuple[str, bool]
) -> None:
    line, all_allowed = case
    if not all_allowed:
        assert _decide(rules_engine, line) != "allow", line


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(case=command_lines())
def test_a_line_of_allowed_parts_is_approved(
    rules_engine: ApprovalEngine, case: tuple[str, bool]
) -> None:
    # The other half: the splitter really sees through these forms (it does not just say "ask").
    line, all_allowed = case
    if all_allowed:
        assert _decide(rules_engine, line) == "allow", line


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    prefix=st.sampled_from(ALLOWED),
    suffix=st.text(alphabet=st.characters(codec="ascii", exclude_categories=["Cc"]), max_size=30),
)
def test_arbitrary_suffix_after_an_allowed_command(
    rules_engine: ApprovalEngine, prefix: str, suffix: str
) -> None:
    """Whatever follows an allowed command, only lines whose every part is allowed run unasked."""
    line = prefix + suffix
    action = _decide(rules_engine, line)
    if action == "allow":
        parts = split_command(line)
        assert parts is not None
        for part in parts:
            assert (
                any(
                    part == a or part.startswith(a + " ")
                    for a in ("git status", "ls", "echo", "true")
                )
                or part == "npm test"
            ), (line, part)
