"""Read custom agent files: Markdown with front matter ``name``, ``description``, ``tools``, ``model``.

The format is Claude Code's (``.claude/agents/*.md``): ``tools`` is a comma list or a YAML list and
may use Claude Code's tool names (``Bash``, ``Read``, ``Edit`` ...), which map to ours; ``model`` is
an alias from ``[models.*]`` or ``inherit``. The body is the agent's system prompt.

Later folders win: the built-in ``explore``, then ``~/.agent/agents``, then the workspace's
``.claude/agents`` and ``.agent/agents``. A workspace file must resolve inside the workspace (a
link out of it would send an arbitrary file to the model as a prompt); such files are skipped with
a notice.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_tui.errors import ConfigError
from agent_tui.front_matter import parse_front_matter
from agent_tui.lazy_regex import lazy_pattern
from agent_tui.safe_read import MAX_TEXT_FILE_BYTES, read_text
from agent_tui.tools.workspace_paths import inside_workspace

AGENT_NAME = lazy_pattern(r"^[A-Za-z][\w-]{0,63}$")
WORKSPACE_DIRS = (".claude/agents", ".agent/agents")
RUN_AGENT = "run_agent"

# Claude Code's tool names -> ours. An edit tool there is several here.
# Claude Code's model aliases: used as ours when [models.*] has them, else the parent's model.
CLAUDE_MODELS = ("sonnet", "opus", "haiku")
CLAUDE_TOOLS: dict[str, tuple[str, ...]] = {
    "Bash": ("run_in_terminal", "get_terminal_output", "kill_terminal"),
    "Read": ("read_file",),
    "Edit": ("replace_string_in_file", "apply_patch"),
    "MultiEdit": ("replace_string_in_file", "apply_patch"),
    "Write": ("create_file",),
    "Grep": ("grep_search",),
    "Glob": ("file_search", "list_dir"),
    "LS": ("list_dir",),
    "WebFetch": ("fetch_webpage",),
}

EXPLORE_PROMPT = (
    "You are `explore`, a read-only helper. Answer the task by reading the workspace: find files "
    "with file_search and grep_search, look at folders with list_dir, read with read_file. You "
    "cannot change anything. Finish with a short, direct answer that names the files and lines "
    "that support it."
)


@dataclass(frozen=True)
class AgentSpec:
    """One custom agent.

    Args:
        name: what ``run_agent`` and ``@name`` call it.
        description: when to use it (shown to the model in run_agent's description).
        prompt: its system prompt (the file's body).
        tools: our tool names (Claude Code's mapped); None = every enabled tool.
        model: a ``[models.*]`` alias, or "inherit" (the parent's current model).
        source: "built-in" or the file it came from.
    """

    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] | None = None
    model: str = "inherit"
    source: str = "built-in"
    disallowed: tuple[str, ...] = ()  # Claude Code's disallowedTools, mapped
    disabled: bool = False


EXPLORE = AgentSpec(
    "explore",
    "Read-only exploration of the workspace: finds and reads files to answer a question.",
    EXPLORE_PROMPT,
    ("read_file", "list_dir", "file_search", "grep_search"),
)


def map_tools(entries: list[str] | str | None) -> tuple[str, ...] | None:
    """``tools`` from front matter as our tool names (``run_agent`` never: depth is 1)."""
    if entries is None:
        return None
    items = entries.split(",") if isinstance(entries, str) else entries
    names: list[str] = []
    for raw in items:
        entry = raw.strip()
        if not entry:
            continue
        if entry == "*":
            return None
        if entry.split("(")[0] in ("Task", "Agent"):
            continue  # Claude Code's "start a sub-agent" tools: depth is 1 here
        names.extend(CLAUDE_TOOLS.get(entry, (entry,)))
    return tuple(n for n in dict.fromkeys(names) if n != RUN_AGENT)


def read_agent_file(path: Path) -> AgentSpec:
    """Parse one agent file.

    Raises:
        ConfigError: unreadable, bad front matter, or a name that cannot be an agent name.
    """
    try:
        text = read_text(path, MAX_TEXT_FILE_BYTES, errors="strict")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot be read: {exc}", file=str(path)) from exc
    meta, body = parse_front_matter(text, str(path))
    name = str(meta.get("name") or path.name.removesuffix(".md"))
    if not AGENT_NAME().match(name):
        raise ConfigError(
            f"{name!r} cannot be an agent name (letters, digits, '-', '_')", file=str(path)
        )
    model = meta.get("model") or "inherit"
    return AgentSpec(
        disallowed=map_tools(meta.get("disallowedTools")) or (),
        disabled=str(meta.get("disabled", "")).lower() == "true",
        name=name,
        description=str(meta.get("description") or f"custom agent {name}"),
        prompt=body.strip(),
        tools=map_tools(meta.get("tools")),
        model=str(model),
        source=str(path),
    )


def load_agents(
    workspace: Path, user_dir: Path | None = None
) -> tuple[dict[str, AgentSpec], list[str]]:
    """Every agent, by name, and notices for files skipped (bad, or leading outside).

    Args:
        workspace: the workspace root.
        user_dir: the user's agents folder (default ``~/.agent/agents``).
    """
    agents = {EXPLORE.name: EXPLORE}
    notices: list[str] = []
    user = user_dir if user_dir is not None else Path.home() / ".agent" / "agents"
    folders = [(user, False), *((workspace / d, True) for d in WORKSPACE_DIRS)]
    for folder, in_workspace in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md")):
            if in_workspace and inside_workspace(workspace, path) is None:
                notices.append(f"agent file {path} leads outside the workspace; not read")
                continue
            try:
                spec = read_agent_file(path)
            except ConfigError as exc:
                notices.append(f"agent file skipped: {exc}")
                continue
            if spec.disabled:
                agents.pop(spec.name, None)  # `disabled: true` hides it (and a user one under it)
            else:
                agents[spec.name] = spec
    return agents, notices
