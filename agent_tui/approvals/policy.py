"""The approval decision order (DESIGN §5). The first step that matches decides:

1. ``disabled``      the tool is disabled (``tools.disabled`` / the picker) -> deny
   ``no_change``     the call changes nothing (``Prepared.changes_nothing``) -> allow
2. ``read_only``     a read-only tool on paths inside the workspace -> allow (in plan mode not an
                     MCP tool: its server's readOnlyHint alone; it asks at step 7, ``mode``)
   ``safe_command``  a command line of only read-only commands (``ls``, ``cat``, ``grep``,
                     ``git status``…: safe_commands.py) on ordinary files inside the workspace,
                     no ``= false`` rule matching it -> allow, plan mode included
                     (``[tools.terminal] safe_commands = false`` turns this step off)
   ``mode``          plan mode (``modes``) and the tool is not read-only -> deny, with a reason
                     the model sees; before ``--yolo``, so plan mode changes nothing whatever else
   ``sandbox``       ``[sandbox] required = true`` and no sandbox here: a command -> deny
   ``flag``          ``--yolo`` -> allow (everything that reaches this point, see below)
3. ``deny_rule``     sensitive or outside-workspace paths, terminal/URL/edit rules set to false, a
                     command line we cannot parse, a redirection or an option writing outside the
                     workspace, a path argument or ``<`` outside it, ``/dev/tcp``, a git command
                     in a repository whose config names a program it would run -> ask. A
                     command that runs in the sandbox asks here only for a protected path or a
                     ``= false`` rule: the sandbox decides what it may read, write and reach.
   ``flag``          ``--allow-tool NAME`` -> allow
4. ``not_eligible``  ``tools.eligible_for_auto_approval.NAME = false`` -> ask
   ``mode``          accept-edits mode and an edit tool on paths inside the workspace (the deny
                     rules above have already asked for protected and outside paths) -> allow
5. ``grant``         a session, workspace or always grant covers the call -> allow
6. ``setting``       ``tools.auto_approve``, terminal rules (on every sub-command), URL patterns,
                     edit globs cover the call -> allow. A terminal rule or grant covers a
                     sub-command that writes or runs through an option (``git log --output=F``,
                     option_effects.py) only if it names that option (rules.names_word).
   ``sandbox``       a command inside an active sandbox (unless ``[sandbox] ask = true``) ->
                     allow; what the sandbox then stops is asked about afterwards (escalate.py)
7. ``default``       -> ask

Flags: ``--yolo`` is "approve everything" (as VS Code's global auto-approve): it overrides deny rules
and eligibility alike, but never enables a disabled tool. ``--allow-tool NAME`` names one tool on the
command line, so it beats that tool's ``eligible_for_auto_approval = false`` from a file (the later,
more specific layer wins), but not the deny rules, which are about what a call touches.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.approvals.command_paths import path_problem, unresolvable_write
from agent_tui.approvals.git_commands import git_problem
from agent_tui.approvals.grants import ApprovalGrant, GrantStore
from agent_tui.approvals.option_effects import OptionEffect
from agent_tui.approvals.protected import PROTECTED_NOTE, protected_glob, protected_reason
from agent_tui.approvals.rules import (
    TerminalRule,
    UrlPattern,
    glob_matches,
    names_word,
)
from agent_tui.approvals.safe_commands import is_known_safe, names_protected
from agent_tui.approvals.shell import ParsedCommand, parse_command
from agent_tui.approvals.sources import SettingSources
from agent_tui.approvals.suggest import exact_pattern, suggest_for
from agent_tui.approvals.types import CommandPart, Decision, Scope, Verdict
from agent_tui.config import Config
from agent_tui.errors import ConfigError
from agent_tui.modes import Mode, ModeState
from agent_tui.tools.base import Manifest, Prepared
from agent_tui.tools.workspace_paths import inside_any, real_path, real_root, root_of

TERMINAL_TOOL = "run_in_terminal"
_EDITS = ("tools", "edits", "auto_approve")
Matcher = Callable[[str], bool]


@dataclass(frozen=True)
class _Call:
    """What one tool call touches, worked out once per decision."""

    manifest: Manifest
    relative: tuple[str, ...]  # workspace-relative posix paths (absolute in an extra root)
    outside: tuple[str, ...]  # absolute paths outside the workspace
    urls: tuple[str, ...]
    command: str | None
    cwd: Path  # where a terminal command runs (its relative redirections land there)
    parsed: ParsedCommand | None

    def items(self) -> tuple[str, ...]:
        """The things a pattern must cover: sub-commands, URLs or edited paths."""
        if self.command is not None:
            return tuple(c.text for c in self.parsed.commands) if self.parsed else ()
        if self.manifest.kind == "fetch":
            return self.urls
        if self.manifest.kind == "edit":
            return self.relative
        return ()

    def effects(self, item: str) -> tuple[OptionEffect, ...]:
        """What the sub-command ``item`` writes or runs through its options (reads left out)."""
        if self.parsed is None:
            return ()
        found = [e for c in self.parsed.commands if c.text == item for e in c.effects]
        return tuple(e for e in found if e.action != "reads")


@dataclass(frozen=True)
class _Rule:
    """An allow or deny rule from config: its pattern, its matcher and the file that set it."""

    pattern: str
    allow: bool
    matches: Matcher
    where: str


class ApprovalEngine:
    """Decides whether a tool call runs, asks, or is refused; remembers the user's grants.

    Args:
        config: the loaded config (a workspace's trust-gated keys already dropped if untrusted).
        workspace: the workspace root.
        allow_tools: ``--allow-tool`` names.
        yolo: ``--yolo``.
        state_dir: where grants are stored (default: ``paths.state_dir()``).

    Raises:
        ConfigError: a terminal ``/regex/`` rule or a URL pattern cannot be parsed.
    """

    def __init__(
        self,
        config: Config,
        workspace: Path,
        *,
        allow_tools: Iterable[str] = (),
        yolo: bool = False,
        state_dir: Path | None = None,
    ) -> None:
        self.config = config
        self.workspace = real_root(workspace)
        self.allow_tools = set(allow_tools)
        self.yolo = yolo
        self.modes = ModeState()  # Shift+Tab / --mode; /trust's reload hands it on
        self.grants = GrantStore(self.workspace, state_dir)
        # `--add-dir` / `/add-dir` folders (resolved): inside them is inside, as in the workspace.
        # build.py makes this the session's own list, so the tools and the engine agree.
        self.extra_roots: list[Path] = []
        # The tool picker updates this set; it starts from `tools.disabled`.
        self.disabled: set[str] = set(config.section("tools", "disabled") or ())
        self._sources = SettingSources(config)
        self._auto_approve = bool(config.section("tools", "auto_approve"))
        self._safe_commands = config.section("tools", "terminal", "safe_commands") is not False
        self._eligible: dict[str, bool] = dict(
            config.section("tools", "eligible_for_auto_approval") or {}
        )
        # The session's sandbox (agent_tui.sandbox.runtime.Sandbox), set by build: inside it a
        # command no rule covers runs without asking (step ``sandbox``).
        self.sandbox: Any = None
        self._terminal = self._terminal_rules()
        self._urls = self._url_rules()
        self._edits = self._edit_rules()
        # Configured instructions files are read into prompts as AGENTS.md is, so they are protected.
        self._instructions = tuple(config.section("agent", "instructions_files") or ())

    # --- public interface ---------------------------------------------------------------------

    def decide(self, manifest: Manifest, input: dict[str, Any], prepared: Prepared) -> Verdict:
        """Run the decision order on one call (see the module docstring)."""
        call = self._describe(manifest, input, prepared)
        # In plan mode an MCP tool's readOnlyHint is not enough to run it unasked: only its
        # server says so, and plan mode promises that nothing changes.
        vouched = not (self.modes.current is Mode.PLAN and manifest.source.startswith("mcp:"))
        verdict = self._by_the_call(call, manifest, prepared, vouched)
        if verdict is None:
            verdict = self._by_the_rules(call, manifest)
        if verdict is not None:
            return verdict
        name = manifest.name
        if not vouched:
            return Verdict(
                "ask", "mode", f"asked: plan mode, and only its MCP server says {name} only reads"
            )
        reason = self._uncovered_reason(call)
        if call.command is not None and self.sandbox is not None and self.sandbox.notice():
            reason += f" ({self.sandbox.notice()})"  # the probe of this first command failed
        return Verdict("ask", "default", f"asked: {reason}")

    def _by_the_call(
        self, call: _Call, manifest: Manifest, prepared: Prepared, vouched: bool
    ) -> Verdict | None:
        """What the tool, the call and the mode settle before any rule (None: nothing)."""
        name = manifest.name
        if name in self.disabled:
            return Verdict("deny", "disabled", f"denied: {name} is disabled")
        if prepared.changes_nothing:
            # Nothing to approve: the tool has checked that no byte would change on disk.
            return Verdict("allow", "no_change", f"allowed: {name} would change nothing")
        # URLs count as outside: fetch_webpage's manifest says readOnlyHint, yet what it sends
        # out (a URL can carry data away) needs the user's or a rule's approval.
        reads_inside = not call.outside and not call.urls and manifest.kind != "fetch"
        if manifest.read_only and reads_inside and manifest.name != TERMINAL_TOOL and vouched:
            return Verdict("allow", "read_only", f"allowed: {name} only reads inside the workspace")
        if name == TERMINAL_TOOL and self._safe_command(call):
            return Verdict(
                "allow", "safe_command", "allowed: only read-only commands on workspace files"
            )
        if self.modes.current is Mode.PLAN and not manifest.read_only:
            return Verdict(
                "deny",
                "mode",
                f"denied: plan mode, only read-only tools run ({name} is not one)",
                "Finish the plan with read-only tools; the user accepts it before any change.",
            )
        if name == TERMINAL_TOOL and self.sandbox is not None and self.sandbox.refuses:
            return Verdict("deny", "sandbox", f"denied: {self.sandbox.notice()}")
        if self.yolo:
            # Still runs, but the card and the headless line say what it touched.
            note = self._protected(call)
            return Verdict(
                "allow", "flag", "allowed: --yolo" + (f", although {note}" if note else "")
            )
        return None

    def _by_the_rules(self, call: _Call, manifest: Manifest) -> Verdict | None:
        """What the rules, flags, settings, grants, the mode and the sandbox settle (None:
        nothing)."""
        name = manifest.name
        denied = self._deny_rule(call)
        if denied:
            return Verdict("ask", "deny_rule", f"asked: {denied}")
        if name in self.allow_tools:
            return Verdict("allow", "flag", f"allowed: --allow-tool {name}")
        if self._eligible.get(name) is False:
            where = self._sources.where("tools", "eligible_for_auto_approval", name)
            return Verdict(
                "ask",
                "not_eligible",
                f"asked: {name} is not eligible for auto-approval "
                f"(tools.eligible_for_auto_approval in {where})",
            )
        if self.modes.current is Mode.ACCEPT_EDITS and manifest.kind == "edit" and call.relative:
            return Verdict(
                "allow", "mode", "allowed: accept-edits mode (an edit inside the workspace)"
            )
        remembered = self._remembered_or_setting(call)
        if remembered is not None:
            return remembered
        if self._contained(call) and not self.sandbox.policy.ask:
            mode = self.sandbox.policy.mode.value
            return Verdict("allow", "sandbox", f"allowed: runs in the sandbox ({mode})")
        return None

    def suggest_pattern(self, manifest: Manifest, input: dict[str, Any]) -> str | None:
        """What a session/workspace/always grant should cover; several patterns one per line.

        ``run_in_terminal``: a prefix per sub-command not yet allowed (``git status``, ``npm
        test``; the exact command as ``/^…$/`` for destructive ones such as ``rm``); fetch tools:
        the origins of URLs not yet allowed; other tools: None (the whole tool).
        """
        call = self._describe(manifest, input, Prepared("", ""))
        if call.command is None and manifest.kind != "fetch":
            return None
        items = call.items()
        # Fully covered calls are asked only for a deny rule; still offer a narrow pattern, never
        # None, which would grant the whole tool.
        uncovered = [i for i in items if not self._item_covered(call, i)] or list(items)
        return suggest_for(call.command, call.parsed, uncovered, fetch=manifest.kind == "fetch")

    def suggest_exact_pattern(self, manifest: Manifest, input: dict[str, Any]) -> str | None:
        """Like ``suggest_pattern`` but exact: ``/^…$/`` per sub-command not yet allowed.

        For the modal's "this exact command" choice; None for tools other than the terminal.
        """
        call = self._describe(manifest, input, Prepared("", ""))
        if call.command is None:
            return None
        if call.parsed is None:
            return exact_pattern(call.command)
        items = call.items()
        uncovered = [i for i in items if not self._item_covered(call, i)] or list(items)
        return "\n".join(dict.fromkeys(exact_pattern(i) for i in uncovered)) or None

    def granted_as(self, grant_tool: str, manifest: Manifest, input: dict[str, Any]) -> bool:
        """Whether grants stored under ``grant_tool`` (``sandbox.outside``) cover every
        sub-command of this terminal call, matched as terminal grants are."""
        grants = [g for g in self.grants.for_tool(grant_tool) if g.pattern]
        call = self._describe(manifest, input, Prepared("", ""))
        items = call.items()
        if not grants or not items:
            return False
        return all(
            any(self._grant_matcher(call, g.pattern or "")(item) for g in grants) for item in items
        )

    def command_parts(
        self, manifest: Manifest, input: dict[str, Any], prepared: Prepared
    ) -> list[CommandPart] | None:
        """Each sub-command of a terminal call with the rule or grant that allows it, if any.

        Returns:
            None for other tools and for a line that cannot be parsed (the dialog then says so).
        """
        call = self._describe(manifest, input, prepared)
        if call.command is None or call.parsed is None:
            return None
        grants = self.grants.for_tool(manifest.name)
        parts = []
        for sub in call.parsed.commands:
            deny = next((r for r in self._terminal if not r.allow and r.matches(sub.text)), None)
            parts.append(
                CommandPart(
                    sub.text,
                    allowed_by=self._item_source(call, sub.text, grants) or "",
                    asks_because=f"rule `{deny.pattern}` = false in {deny.where}" if deny else "",
                )
            )
        return parts

    def record(self, manifest: Manifest, input: dict[str, Any], decision: Decision) -> None:
        """Remember an allow with a lasting scope (one grant per line of ``decision.pattern``).

        When the state dir cannot be written, the grant is kept for this session instead and the
        problem logged: the user's answer still counts, the call still runs.
        """
        if not decision.allow or decision.scope is Scope.ONCE:
            return
        lines = [p.strip() for p in (decision.pattern or "").splitlines() if p.strip()]
        patterns: list[str | None] = list(lines) or [None]
        for pattern in patterns:
            self.grants.remember(decision.scope, manifest.name, pattern)

    def reset(self, scope: str) -> list[ApprovalGrant]:
        """Forget grants (``session|workspace|always|all``); returns what was forgotten."""
        return self.grants.reset(scope)

    def mode_word(self) -> str:
        """The status bar's and ``/status``'s word: plan, yolo, accept edits, auto or ask."""
        mode = self.modes.current
        if mode is Mode.PLAN:
            return mode.label  # refuses what is not read-only, --yolo or not
        if self.yolo:
            return "yolo"
        if mode is not Mode.ASK:
            return mode.label
        return "auto" if self.config.section("tools", "auto_approve") else "ask"

    def warnings(self) -> list[str]:
        """Things to tell the user once at start-up (the UIs show them as notices)."""
        notes = []
        if self.yolo:
            notes.append("--yolo: every tool call runs without asking, including denied rules.")
        if self.sandbox is not None and self.sandbox.notice():
            notes.append(self.sandbox.notice())
        if self.config.ignored_untrusted:
            from agent_tui.config_gate import format_keys

            keys = format_keys(self.config.ignored_untrusted)
            notes.append(
                f"This folder's .agentrc sets {keys}, ignored because the folder is not trusted "
                "(use /trust or --trust)."
            )
        return notes

    # --- steps --------------------------------------------------------------------------------

    def _safe_command(self, call: _Call) -> bool:
        """Step ``safe_command``: every part is on the safe list and reads only ordinary files
        inside the workspace; checked as strictly outside the sandbox as in it."""
        if not self._safe_commands or call.parsed is None or call.outside:
            return False
        if self._eligible.get(TERMINAL_TOOL) is False:
            return False
        if self.sandbox is not None and self.sandbox.refuses:
            return False  # `[sandbox] required = true` and no sandbox here: nothing runs
        if not is_known_safe(call.parsed) or self._false_rule(call):
            return False
        if path_problem(call.parsed, self.workspace, call.cwd, self.extra_roots):
            return False
        if names_protected(call.parsed, self._roots(), call.cwd, self._instructions):
            return False
        return git_problem(call.parsed, call.cwd) is None

    def _contained(self, call: _Call) -> bool:
        """Whether the call is a command that runs inside an active sandbox."""
        return call.command is not None and self.sandbox is not None and self.sandbox.active

    def _deny_rule(self, call: _Call) -> str | None:
        if call.outside and not self._contained(call):
            return f"{call.outside[0]} is outside the workspace"
        protected = self._protected(call)
        if protected:
            return protected
        if call.command is not None and self._contained(call):
            # What it reads and writes outside the workspace the sandbox decides; only the
            # user's own `= false` rules still ask, and so does a git command that would start
            # a program the repository's config names (contained or not, it is the repo's code).
            git = git_problem(call.parsed, call.cwd) if call.parsed is not None else None
            return self._false_rule(call) or git
        if call.command is not None:
            return self._terminal_deny(call)
        rules = self._urls if call.manifest.kind == "fetch" else self._edits
        if call.manifest.kind in ("fetch", "edit"):
            for item in call.items():
                rule = next((r for r in rules if not r.allow and r.matches(item)), None)
                if rule:
                    return f"rule `{rule.pattern}` = false in {rule.where} matches {item}"
        return None

    def _false_rule(self, call: _Call) -> str | None:
        """A terminal rule set to false that matches a sub-command (the whole line when it
        cannot be parsed)."""
        items = [c.text for c in call.parsed.commands] if call.parsed else [call.command or ""]
        for item in items:
            rule = next((r for r in self._terminal if not r.allow and r.matches(item)), None)
            if rule:
                return f"rule `{rule.pattern}` = false in {rule.where} matches `{item}`"
        return None

    def _terminal_deny(self, call: _Call) -> str | None:
        if call.parsed is None:
            return "the command line could not be parsed, so its parts cannot be checked"
        false_rule = self._false_rule(call)
        if false_rule:
            return false_rule
        unresolvable = unresolvable_write(call.parsed, call.cwd)
        if unresolvable:
            return unresolvable
        changes_dir = any(c.words and c.words[0] in ("cd", "pushd") for c in call.parsed.commands)
        for target in call.parsed.writes:
            problem = self._write_problem(target, changes_dir, call.cwd)
            if problem:
                return f"the command writes to {target}, {problem}"
        problem = path_problem(call.parsed, self.workspace, call.cwd, self.extra_roots)
        # Last: it runs git to read the repository's config.
        return problem or git_problem(call.parsed, call.cwd)

    def _write_problem(self, target: str, changes_dir: bool, cwd: Path) -> str | None:
        full = self._write_path(target, changes_dir, cwd)
        if full is None:
            return "a path only known when it runs"
        root = root_of(self._roots(), full)
        if root is None:
            return "outside the workspace"
        glob = protected_glob(root, full, self._instructions)
        return f"a protected path (`{glob}`)" if glob else None

    @staticmethod
    def _write_path(target: str, changes_dir: bool, cwd: Path) -> Path | None:
        """Where a redirection writes, resolved; None when only the running shell knows."""
        if any(ch in target for ch in "$`*?[") or (
            changes_dir and not target.startswith(("/", "~"))
        ):
            return None
        try:
            return real_path(cwd, target)
        except (RuntimeError, OSError):  # `~+` (no such user), /proc/1/root: known when it runs
            return None

    def _protected(self, call: _Call) -> str | None:
        """Why the call writes a protected path (DESIGN §5), or None: an edit's paths, a terminal
        command's working folder and the files its redirections write."""
        if call.manifest.read_only:
            return None
        for rel in call.relative:
            edited = self.workspace / rel  # an extra root's path is absolute and stays so
            root = root_of(self._roots(), edited) or self.workspace
            glob = protected_glob(root, edited, self._instructions)
            if glob:
                return protected_reason(rel, glob)
        if call.parsed is None:
            return None
        changes_dir = any(c.words and c.words[0] in ("cd", "pushd") for c in call.parsed.commands)
        for target in call.parsed.writes:
            written = self._write_path(target, changes_dir, call.cwd)
            if written is not None and (found := root_of(self._roots(), written)) is not None:
                glob = protected_glob(found, written, self._instructions)
                if glob:
                    return f"the command writes to {target}, {PROTECTED_NOTE} (`{glob}`)"
        return None

    def _remembered_or_setting(self, call: _Call) -> Verdict | None:
        name = call.manifest.name
        grants = self.grants.for_tool(name)
        whole = next((g for g in grants if g.pattern is None), None)
        if whole:
            return Verdict("allow", "grant", f"allowed: {name} granted {_grant_scope(whole)}")
        items = call.items()
        sources = [self._item_source(call, item, grants) for item in items]
        if items and all(sources):
            used = list(dict.fromkeys(s for s in sources if s))
            step = "grant" if all(s.startswith("granted") for s in used) else "setting"
            return Verdict("allow", step, "allowed: " + "; ".join(used))
        if self._auto_approve:
            where = self._sources.where("tools", "auto_approve")
            return Verdict("allow", "setting", f"allowed: tools.auto_approve = true in {where}")
        return None

    def _item_source(self, call: _Call, item: str, grants: list[ApprovalGrant]) -> str | None:
        effects = call.effects(item)
        for grant in grants:
            if grant.pattern is not None and self._grant_matcher(call, grant.pattern)(item):
                if all(names_word(grant.pattern, item, e.word) for e in effects):
                    return f"granted {_grant_scope(grant)} (`{grant.pattern}`)"
        for rule in self._rules_for(call):
            if rule.allow and rule.matches(item):
                if all(names_word(rule.pattern, item, e.word) for e in effects):
                    return f"rule `{rule.pattern}` in {rule.where}"
        return None

    def _item_covered(self, call: _Call, item: str) -> bool:
        return self._item_source(call, item, self.grants.for_tool(call.manifest.name)) is not None

    def _uncovered_reason(self, call: _Call) -> str:
        grants = self.grants.for_tool(call.manifest.name)
        missing = [i for i in call.items() if self._item_source(call, i, grants) is None]
        if call.command is not None and missing:
            effects = call.effects(missing[0])
            if effects:
                # A rule may match the command; it still does not cover what its options do.
                return f"`{missing[0]}` {effects[0].describe()}, which no rule or grant names"
            return f"`{missing[0]}` matches no terminal rule or grant"
        if missing:
            return f"{missing[0]} matches no rule or grant"
        return f"{call.manifest.name} needs approval"

    # --- helpers ------------------------------------------------------------------------------

    def _roots(self) -> tuple[Path, ...]:
        return (self.workspace, *self.extra_roots)

    def _describe(self, manifest: Manifest, input: dict[str, Any], prepared: Prepared) -> _Call:
        relative, outside = [], []
        for path in prepared.paths:
            full = real_path(self.workspace, path)
            root = root_of(self._roots(), full)
            if root == self.workspace:
                relative.append(full.relative_to(self.workspace).as_posix() or ".")
            elif root is not None:
                relative.append(full.as_posix())
            else:
                outside.append(str(full))
        urls = prepared.urls or tuple(u for u in input.get("urls") or () if isinstance(u, str))
        command = input.get("command") if manifest.name == TERMINAL_TOOL else None
        if manifest.name == TERMINAL_TOOL and not isinstance(command, str):
            command = ""
        parsed = parse_command(command) if command is not None else None
        # The terminal tool reports its working directory as its one path.
        cwd = real_path(self.workspace, prepared.paths[0]) if prepared.paths else None
        if cwd is None or not inside_any(self._roots(), cwd):
            cwd = self.workspace
        return _Call(manifest, tuple(relative), tuple(outside), tuple(urls), command, cwd, parsed)

    def _rules_for(self, call: _Call) -> list[_Rule]:
        if call.command is not None:
            return self._terminal
        return {"fetch": self._urls, "edit": self._edits}.get(call.manifest.kind, [])

    def _grant_matcher(self, call: _Call, pattern: str) -> Matcher:
        if call.command is not None:
            try:
                return TerminalRule.parse(pattern, True).matches
            except ConfigError:
                return lambda _item: False  # a hand-edited grant with a broken regex grants nothing
        if call.manifest.kind == "fetch":
            url = UrlPattern.parse(pattern)
            return url.matches if url else (lambda _item: False)
        if call.manifest.kind == "edit":
            return _glob_matcher(pattern)
        return lambda _item: False

    def _terminal_rules(self) -> list[_Rule]:
        rules = []
        for pattern, allow in (
            self.config.section("tools", "terminal", "auto_approve") or {}
        ).items():
            where = self._sources.where("tools", "terminal", "auto_approve", pattern)
            rule = TerminalRule.parse(pattern, allow, source=where)
            rules.append(_Rule(pattern, allow, rule.matches, where))
        return rules

    def _edit_rules(self) -> list[_Rule]:
        return [
            _Rule(glob, allow, _glob_matcher(glob), self._sources.where(*_EDITS, glob))
            for glob, allow in (self.config.section(*_EDITS) or {}).items()
        ]

    def _url_rules(self) -> list[_Rule]:
        rules = []
        for pattern, allow in (self.config.section("tools", "urls", "auto_approve") or {}).items():
            where = self._sources.where("tools", "urls", "auto_approve", pattern)
            url = UrlPattern.parse(pattern)
            if url is None:
                raise ConfigError(
                    f"{pattern!r} is not a URL pattern (scheme://host/path*)",
                    file=where,
                    key="tools.urls.auto_approve",
                )
            rules.append(_Rule(pattern, allow, url.matches, where))
        return rules


def _glob_matcher(glob: str) -> Matcher:
    return lambda relative: glob_matches(glob, relative)


def _grant_scope(grant: ApprovalGrant) -> str:
    return {
        Scope.SESSION: "for this session",
        Scope.WORKSPACE: "for this workspace",
        Scope.ALWAYS: "always",
    }.get(grant.scope, grant.scope.value)
