"""Built-in slash commands: /help /clear /new /model /tools /exit (and /status /context /cost
from ``status_cmds``, /rename /export /fork from ``session_cmds``).

They register through ``CommandRegistry.register`` like every other command. Those that act on the
UI return ``CommandResult(action=...)`` (``agent_tui.actions``) and the app carries it out; /help is answered here,
as a Markdown table built from the registries, so the list never drifts from what exists.
"""

from __future__ import annotations

from agent_tui import actions
from agent_tui.commands.registry import (
    CommandAgent,
    CommandContext,
    CommandDeps,
    CommandRegistry,
    CommandResult,
    Handler,
    SlashCommand,
)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _commands_table(commands: list[SlashCommand], prefix: str = "") -> list[str]:
    rows = ["| command | description | from |", "| --- | --- | --- |"]
    for command in commands:
        usage = f"{prefix}/{command.name}" + (f" {command.args_hint}" if command.args_hint else "")
        rows.append(f"| `{_cell(usage)}` | {_cell(command.description)} | {command.source} |")
    return rows


# The app's editing keys; README "The app" lists the same.
INPUT_HELP = (
    "| `!command` | runs a shell command yourself (no model, no approval); its output goes "
    "with your next prompt |",
    "| Ctrl+G | edits the prompt in `$VISUAL` / `$EDITOR` |",
    "| Ctrl+R | searches earlier prompts (Ctrl+R older, Enter takes, Esc cancels) |",
    "| `\\` then Enter | adds a newline (terminals without Shift+Enter) |",
    "| `[ui] vim` | normal / insert modes in the prompt; `[ui] keys` rebinds keys (README) |",
    "| Ctrl+O | opens the newest one-line earlier turn of a resumed session |",
    "| Esc Esc | on an empty prompt: brings back the previous prompt to edit |",
    "| `/copy` | copies the last answer (OSC 52); `/copy pick` chooses an answer or code block |",
)


def help_markdown(agent: CommandAgent) -> str:
    """The /help text: commands, participants and their commands, references, instructions files."""
    from agent_tui.agent.instructions import instructions_names, scan_instructions
    from agent_tui.agent.turn import reference_registry

    deps = agent.deps
    out = ["## Commands", *_commands_table(deps.commands.all(""))]
    out += [
        "",
        "## Participants",
        "| participant | description | commands |",
        "| --- | --- | --- |",
    ]
    for participant in deps.participants.all():
        own = deps.commands.all(participant.name) if participant.name else []
        names = ", ".join(f"`/{c.name}`" for c in own) or "—"
        who = f"`@{participant.name}`" if participant.name else "(default)"
        out.append(f"| {who} | {_cell(participant.description)} | {names} |")
    for participant in deps.participants.all():
        own = deps.commands.all(participant.name) if participant.name else []
        if own:
            out += ["", f"### @{participant.name} commands"]
            out += _commands_table(own, prefix=f"@{participant.name} ")
    out += ["", "## References", "| reference | attaches |", "| --- | --- |"]
    for kind in reference_registry(agent).all():
        usage = f"#{kind.name}" + (f":{kind.args_hint}" if kind.args_hint else "")
        out.append(f"| `{_cell(usage)}` | {_cell(kind.description)} |")
    out.append("| `#<tool>` | asks the model to use that tool this turn (e.g. `#grep_search`) |")
    out.append("| `@path` | a workspace file, like `#file:` (a participant of that name wins) |")
    out += ["", "## Input", "| key or prefix | does |", "| --- | --- |", *INPUT_HELP]
    out += ["", *_language_servers(agent)]
    files, skipped = scan_instructions(deps.workspace, deps.config)
    loaded = [f.path for f in files]
    looked_for = ", ".join(instructions_names(deps.config))
    out += ["", "## Web search", web_search_help(deps)]
    out += ["", "## Instructions files"]
    if loaded:
        out.append("Added to the system prompt: " + ", ".join(f"`{name}`" for name in loaded))
    else:
        out.append(f"None found at the workspace root (looked for {looked_for}).")
    out += [f"- {_cell(note)}" for note in skipped]
    return "\n".join(out)


def web_search_help(deps: CommandDeps) -> str:
    """How the model searches the web in this session (``[web] search``)."""
    from agent_tui.providers.web_search import search_uses
    from agent_tui.tools.web_search_backends import backend_from_config

    web = deps.config.section("web")
    backend = backend_from_config(deps.config)
    if backend is not None:
        where = _cell(backend.base_url)
        return f"The `web_search` tool, on {backend.kind} at {where} (asked like `fetch_webpage`)."
    if isinstance(web, dict) and web.get("search") == "provider":
        if search_uses(web, deps.provider):
            return (
                "The model's provider searches (its own tool); results and sources show as cards."
            )
        return '`[web] search = "provider"`, but this API has no search of its own: none.'
    return "Off: set `[web] search` (README: Web search)."


def _language_servers(agent: CommandAgent) -> list[str]:
    """/help's lines on the language servers that check the agent's edits."""
    out = ["## Language servers"]
    lsp = agent.deps.lsp
    if lsp is None:
        out.append(
            "None: edits get no diagnostics. Configure `[lsp.servers.NAME]` in `.agentrc`, or "
            "put basedpyright, pyright, ruff or typescript-language-server on PATH."
        )
        return out
    out.append(
        "Edits of these files get the errors and warnings they add; the model can ask with "
        "the `diagnostics` tool."
    )
    out += ["| server | command | files | state |", "| --- | --- | --- | --- |"]
    for spec in lsp.settings.servers:
        command = _cell(" ".join(spec.command))
        files = _cell(", ".join(spec.patterns))
        out.append(f"| {spec.name} | `{command}` | {files} | {_cell(lsp.state(spec))} |")
    return out


async def _help(ctx: CommandContext, args: str) -> CommandResult:
    return CommandResult(message=help_markdown(ctx.agent))


def _action(action: actions.UiAction) -> Handler:
    async def run(ctx: CommandContext, args: str) -> CommandResult:
        return CommandResult(action=action)

    return run


async def _copy(ctx: CommandContext, args: str) -> CommandResult:
    return CommandResult(action=actions.Copy(args))


async def _sandbox(ctx: CommandContext, args: str) -> CommandResult:
    sandbox = ctx.agent.deps.sandbox
    if sandbox is None:
        return CommandResult(message="No sandbox in this session.")
    # One item per line, so a long deny list wraps at any width instead of running off it.
    first, *rest = sandbox.describe().splitlines()
    return CommandResult(message="\n".join([f"**{first}**", "", *(f"- {line}" for line in rest)]))


async def _model(ctx: CommandContext, args: str) -> CommandResult:
    # With a name ("/model fast", "/model gpt-4.1") the TUI switches at once; without one it
    # opens the picker (aliases, and the models the provider lists).
    return CommandResult(action=actions.PickModel(args.strip()))


BUILTIN_COMMANDS = (
    SlashCommand("help", "List commands, participants, references and instructions files", _help),
    SlashCommand(
        "clear",
        "Clear the conversation: a new session (asks first; the old one stays in /resume)",
        _action(actions.Clear()),
    ),
    SlashCommand(
        "new", "Start a new conversation (asks first, like /clear)", _action(actions.New())
    ),
    SlashCommand(
        "undo-clear",
        "Bring back the conversation /clear or /new set aside in this run",
        _action(actions.UndoClear()),
        interactive_only=True,
    ),
    SlashCommand(
        "model",
        "Switch the model: any name the provider serves, or a [models.<alias>] of .agentrc",
        _model,
        args_hint="[name|alias]",
    ),
    SlashCommand(
        "tools",
        "Pick the tools offered to the model",
        _action(actions.OpenToolPicker()),
        interactive_only=True,
    ),
    SlashCommand(
        "resume",
        "Resume a saved session of this folder (a searchable list)",
        _action(actions.Resume()),
        interactive_only=True,
    ),
    SlashCommand(
        "sandbox", "Show where commands run: the sandbox's mode, reads, writes, network", _sandbox
    ),
    SlashCommand("exit", "Quit agent-tui", _action(actions.Exit()), interactive_only=True),
    SlashCommand(
        "copy",
        "Copy the last answer (OSC 52); N copies entry N of `/copy pick`, a list of answers and code",
        _copy,
        args_hint="[N|pick]",
        interactive_only=True,
    ),
)


def register_builtin_commands(registry: CommandRegistry) -> None:
    from agent_tui.commands.hooks_cmds import HOOKS_COMMAND
    from agent_tui.commands.roots_cmds import ADD_DIR_COMMAND
    from agent_tui.commands.session_cmds import SESSION_COMMANDS
    from agent_tui.commands.status_cmds import STATUS_COMMANDS
    from agent_tui.commands.terminal_cmds import TERMINALS_COMMAND

    for command in (
        *BUILTIN_COMMANDS,
        *STATUS_COMMANDS,
        *SESSION_COMMANDS,
        HOOKS_COMMAND,
        TERMINALS_COMMAND,
        ADD_DIR_COMMAND,
    ):
        registry.register(command)
