"""Entry point: parse args -> load config -> run_tui | run_headless (DESIGN §1).

Imports stay lazy: ``agent-tui --version`` must not pay for httpx, jsonschema or textual.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui import __version__

if TYPE_CHECKING:
    from agent_tui.agent.loop import Agent
    from agent_tui.config import Config

NO_KEY_HELP = (
    "no API key: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or point at a local "
    "OpenAI-compatible server with --provider openai --base-url http://localhost:11434/v1 "
    "(see README: Models)"
)
DEMO_BANNER = (
    "demo model: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or run a local server — see README"
)


# ``agent-tui mcp SUBCOMMAND ...``: the ``module:function(subcommand, argv)`` that runs each.
MCP_SUBCOMMANDS = {
    "list": "agent_tui.mcp.cli:main",
    "tools": "agent_tui.mcp.cli:main",
    "call": "agent_tui.mcp.cli:main",
    "login": "agent_tui.mcp.login:subcommand",
    "logout": "agent_tui.mcp.login:subcommand",
    "add": "agent_tui.mcp.cli_edit:main",
    "add-json": "agent_tui.mcp.cli_edit:main",
    "remove": "agent_tui.mcp.cli_edit:main",
    "get": "agent_tui.mcp.cli_edit:main",
}

MCP_HELP = """
  list                  connect to every configured server and list them
  tools NAME            a server's tools
  call NAME TOOL [JSON] run a tool (typing the command is the approval)
  login NAME / logout NAME
                        sign in to an OAuth server / forget its tokens
  add NAME [-e K=V]... -- CMD ARGS...
  add NAME --url URL [-H "K: V"]...
                        add a stdio or HTTP server to ~/.agentrc (--scope workspace: the
                        folder's .agentrc); comments in the file are kept
  add-json NAME JSON    add a server from Claude Code's JSON (type, command, args, env, url,
                        headers)
  remove NAME           remove a server from the --scope's .agentrc
  get NAME              a server as configured and which file defines it (secrets masked)
"""

# What argparse cannot list itself: the subcommands, dispatched before it parses (``main``).
EPILOG = """subcommands:
  agent-tui mcp {list,tools,call,login,logout,add,add-json,remove,get} ...
                        MCP servers from the shell: list them, list a server's tools, call
                        one, sign in to or out of one; add one to .agentrc, remove it, show
                        where it is defined (agent-tui mcp -h, agent-tui mcp COMMAND -h)
  agent-tui acp [FLAGS]  speak the Agent Client Protocol on stdio, for editors (Zed,
                        JetBrains, Neovim, Toad, acpx); takes the model, permission and
                        sandbox flags; each session's workspace is the folder the editor sends
  agent-tui export ID|NAME [--format md|html|json] [-o PATH]
                        write a saved session as Markdown, one self-contained HTML file, or
                        JSON (its messages and metadata); to stdout without -o
  agent-tui sandbox [--mode M] -- CMD
                        run CMD in the sandbox the agent's terminal commands get
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent-tui",
        description="A terminal coding agent. With no -p, opens the chat app in this folder.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    # Added in the order --help lists them.
    _add_run_flags(parser)
    _add_model_flags(parser)
    _add_request_flags(parser)
    _add_permission_flags(parser)
    _add_session_flags(parser)
    _add_remembered_approval_flags(parser)
    return parser


def _add_run_flags(parser: argparse.ArgumentParser) -> None:
    """How agent-tui runs: the app, or one request with -p and its output."""
    add = parser.add_argument
    add("--version", action="version", version=f"agent-tui {__version__}")
    add("-p", "--prompt", help="run one request without the app and print the answer")
    add(
        "--output-format",
        choices=["text", "json", "stream-json"],
        default="text",
        help="with -p: text (default), one json object, or one json object per event",
    )


def _add_model_flags(parser: argparse.ArgumentParser) -> None:
    """Which model, through which API and client."""
    add = parser.add_argument
    add("--model", help="model name, e.g. claude-sonnet-4-5 or gpt-4.1")
    add(
        "--provider",
        choices=["anthropic", "openai", "azure-openai", "scripted"],
        help="model API",
    )
    add("--base-url", help="API base URL (OpenAI-style includes /v1)")
    add(
        "--transport",
        choices=["httpx", "sdk"],
        help="httpx (default): agent-tui's own HTTP/1.1 client (httpx itself only behind a proxy); "
        "sdk: the official anthropic / openai SDK (azure-openai always uses it)",
    )
    add(
        "--wire-api",
        choices=["chat", "responses"],
        help="openai provider: Chat Completions or the Responses API (default: responses for "
        "api.openai.com, chat elsewhere)",
    )


def _add_request_flags(parser: argparse.ArgumentParser) -> None:
    """What a request carries, a model replayed or recorded, and its round limit."""
    add = parser.add_argument
    add(
        "--image",
        action="append",
        default=[],
        type=Path,
        metavar="FILE",
        help="with -p: show the model this PNG/JPEG/GIF/WebP image (repeatable; 5 MB each)",
    )
    add("--script", type=Path, help="replay a script of model turns (the scripted provider)")
    add("--record", type=Path, help="write the model's turns to FILE as a replayable script")
    add("--max-turns", type=int, metavar="N", help="round limit for one request (default 25)")
    add(
        "--max-cost",
        type=float,
        metavar="USD",
        help="stop before a request that would take the session past USD (list prices)",
    )


def _add_permission_flags(parser: argparse.ArgumentParser) -> None:
    """What runs without asking, the mode, the sandbox and the workspace's trust."""
    add = parser.add_argument
    add(
        "--on-approval",
        choices=["ask", "deny", "fail"],
        help="with -p: when a tool needs approval (default: ask on a TTY, deny otherwise)",
    )
    add(
        "--allow-tool",
        action="append",
        default=[],
        metavar="NAME",
        help="approve this tool without asking (repeatable)",
    )
    add("--yolo", action="store_true", help="approve every tool call without asking")
    add(
        "--mode",
        choices=["ask", "accept-edits", "plan"],
        default="ask",
        help="start in this mode (Shift+Tab cycles them in the app): accept-edits approves edits "
        "inside the workspace; plan runs only read-only tools, so with -p it prints a plan and "
        "changes nothing",
    )
    add(
        "--sandbox",
        choices=["workspace-write", "read-only", "off"],
        help="where commands run: workspace-write (default where bwrap works: writes only in the "
        "workspace, network only to allowed domains), read-only, or off",
    )
    add(
        "--trust",
        action="store_true",
        help="apply this workspace's trust-gated .agentrc settings for this run",
    )
    add(
        "--web-search",
        choices=["off", "provider", "searxng", "brave"],
        help="how the model searches the web ([web] search): provider (the API's own search), "
        "searxng or brave (the web_search tool; [web] names the engine), or off (the default)",
    )


def _add_session_flags(parser: argparse.ArgumentParser) -> None:
    """Which session and which workspace."""
    add = parser.add_argument
    add(
        "-c",
        "--continue",
        dest="continue_session",
        action="store_true",
        help="continue the latest session of this workspace",
    )
    add(
        "--resume",
        nargs="?",
        const="",
        metavar="ID|NAME",
        help="resume a session by id, by the name /rename gave it, or by a unique prefix of "
        "either (without one: pick in the app)",
    )
    add(
        "--fork",
        action="store_true",
        help="with --continue or --resume: continue a copy of the session under a new id "
        "(the original stays as it is)",
    )
    add("-C", "--workspace", type=Path, default=None, help="workspace folder (default: cwd)")
    add(
        "--add-dir",
        action="append",
        default=[],
        type=Path,
        metavar="PATH",
        help="another folder the tools may read and edit, as the workspace (repeatable)",
    )


def _add_remembered_approval_flags(parser: argparse.ArgumentParser) -> None:
    """Commands over the remembered approvals (they run instead of a session)."""
    add = parser.add_argument
    add(
        "--reset-tool-confirmations",
        nargs="?",
        const="all",
        metavar="SCOPE",
        choices=["session", "workspace", "always", "all"],
        help="forget remembered approvals: session, workspace, always or all (default)",
    )
    add("--list-approvals", action="store_true", help="list remembered approvals")
    add("--revoke-approval", metavar="ID", help="revoke one remembered approval")


def _cli_layer(args: argparse.Namespace) -> dict[str, Any]:
    model: dict[str, Any] = {}
    if args.script is not None:
        model.update(provider="scripted", script=str(args.script.resolve()))
    for key, value in (
        ("provider", args.provider),
        ("name", args.model),
        ("base_url", args.base_url),
        ("transport", args.transport),
        ("wire_api", args.wire_api),
    ):
        if value is not None:
            model[key] = value
    layer: dict[str, Any] = {"model": model} if model else {}
    if args.sandbox is not None:
        layer["sandbox"] = {"mode": args.sandbox}
    if args.web_search is not None:
        layer["web"] = {"search": args.web_search}
    agent: dict[str, Any] = {}
    if args.max_turns is not None:
        agent["max_rounds"] = args.max_turns
    if args.max_cost is not None:
        agent["max_cost"] = args.max_cost
    if agent:
        layer["agent"] = agent
    return layer


def _load_images(paths: list[Path], headless: bool) -> tuple[Any, ...]:
    """The ``--image`` files, read and checked before anything starts (exit 2 on a bad one)."""
    from agent_tui.errors import UsageError

    if not paths:
        return ()
    if not headless:
        raise UsageError("--image goes with -p; in the app, paste the image's path or use #file:")
    from agent_tui.images import ImageError, load_image
    from agent_tui.providers.image_limits import MAX_IMAGES_PER_REQUEST

    if len(paths) > MAX_IMAGES_PER_REQUEST:
        raise UsageError(f"--image: at most {MAX_IMAGES_PER_REQUEST} images per request")
    try:
        return tuple(load_image(path.expanduser(), path.name) for path in paths)
    except ImageError as exc:
        raise UsageError(f"--image: {exc}") from None


def _needs_key(config: Config) -> bool:
    from agent_tui.config import PROVIDER_DEFAULTS

    model = config.model
    if model.provider == "scripted" or model.api_key():
        return False
    # A local OpenAI-compatible server usually needs no key.
    return model.base_url.rstrip("/") == PROVIDER_DEFAULTS[model.provider]["base_url"]


def _piped_stdin() -> str | None:
    """Read stdin only when it is a pipe or a file: an inherited terminal or socket could
    block forever (a headless run must never wait for input that cannot come)."""
    try:
        mode = stat.S_IFMT(os.fstat(sys.stdin.fileno()).st_mode)
    except (OSError, ValueError, AttributeError):
        return None
    if mode not in (stat.S_IFIFO, stat.S_IFREG):
        return None
    return sys.stdin.read()


def _approval_command(args: argparse.Namespace, workspace: Path) -> int | None:
    if not (args.reset_tool_confirmations or args.list_approvals or args.revoke_approval):
        return None
    from agent_tui.approvals import cli_cmds

    if args.reset_tool_confirmations:
        return cli_cmds.reset_command(args.reset_tool_confirmations, workspace)
    if args.revoke_approval:
        return cli_cmds.revoke_command(args.revoke_approval, workspace)
    return cli_cmds.list_command(workspace)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    from agent_tui import start_gc
    from agent_tui.errors import AgentError
    from agent_tui.exit_gc import freeze_at_exit

    freeze_at_exit()
    start_gc.pause()  # until the agent is built (_run), or a sub-command starts
    _keep_compiled_code()

    try:
        if argv[:1] in (["mcp"], ["acp"], ["export"], ["sandbox"]):
            start_gc.resume()  # a command of its own, which may run long: not a session's start
        if argv[:1] == ["mcp"]:
            return _mcp_command(argv[1:])
        if argv[:1] == ["acp"]:
            return _acp_command(argv[1:])
        if argv[:1] == ["export"]:
            from agent_tui.sessions.export_cli import main as export_main

            return export_main(argv[1:])
        if argv[:1] == ["sandbox"]:
            from agent_tui.sandbox.cli import main as sandbox_main

            return sandbox_main(argv[1:])
        return _run(build_parser().parse_args(argv))
    except AgentError as exc:
        sys.stderr.write(f"agent-tui: {exc}\n")
        return exc.exit_code
    finally:
        start_gc.resume()  # an approvals command, an error: whatever ended before the build


def _keep_compiled_code() -> None:
    """Dataclass methods compiled once, not on every start (``code_cache``): before anything
    that defines many is imported."""
    from agent_tui.code_cache import install
    from agent_tui.errors import ConfigError
    from agent_tui.paths import state_dir

    try:
        install(state_dir())
    except ConfigError:
        pass  # no state dir: reported where it is needed; this only makes starting slower


def _mcp_command(argv: list[str]) -> int:
    import importlib

    if not argv or argv[0] not in MCP_SUBCOMMANDS:
        usage = f"usage: agent-tui mcp {{{','.join(MCP_SUBCOMMANDS)}}} ... (-h for each)\n"
        if argv[:1] in (["-h"], ["--help"]):
            sys.stdout.write(usage + MCP_HELP)
            return 0
        sys.stderr.write(usage)
        return 2
    module, function = MCP_SUBCOMMANDS[argv[0]].split(":")
    code: int = getattr(importlib.import_module(module), function)(argv[0], argv[1:])
    return code


def _acp_command(argv: list[str]) -> int:
    """``agent-tui acp``: an ACP agent on stdio; every session is built as ``_run`` builds one."""
    from agent_tui.errors import UsageError

    args = build_parser().parse_args(argv)
    if args.prompt is not None or args.continue_session or args.resume is not None or args.fork:
        raise UsageError(
            "agent-tui acp: -p, --continue, --resume and --fork are the editor's to choose"
        )
    _open_state_dir()
    from agent_tui.acp.stdio import run_acp

    return run_acp(lambda workspace, layer: _acp_front(args, workspace, layer))


def _acp_front(args: argparse.Namespace, workspace: Path, layer: dict[str, Any]) -> Any:
    """A ``Front`` on a new session in ``workspace``, with ``layer`` (the client's MCP servers)
    on top of the flags' config layer."""
    from agent_tui.agent.resume import attach_headless
    from agent_tui.approvals.trust import is_trusted
    from agent_tui.config import load_config
    from agent_tui.errors import UsageError
    from agent_tui.front import Front

    trusted = args.trust or is_trusted(workspace)
    config = load_config(workspace, cli={**_cli_layer(args), **layer}, trusted=trusted)
    if _needs_key(config):
        raise UsageError(NO_KEY_HELP)
    agent = _build_agent(config, args)
    agent.interactive = False  # the app's dialogs and pickers are not there: /commands say so
    attach_headless(agent, cont=False, resume_id=None)
    return Front(agent)


def _run(args: argparse.Namespace) -> int:
    """A session (the app, or one request with -p), or a command over remembered approvals."""
    from agent_tui.approvals.trust import is_trusted
    from agent_tui.config import load_config

    _open_state_dir()
    workspace = _workspace(args)
    handled = _approval_command(args, workspace)
    if handled is not None:
        from agent_tui.state_files import take_notices

        for notice in take_notices():  # a damaged approvals.json moved aside
            sys.stderr.write(f"note: {notice}\n")
        return handled
    headless = args.prompt is not None
    images = _load_images(args.image, headless)
    trusted = args.trust or is_trusted(workspace)
    config = load_config(workspace, cli=_cli_layer(args), trusted=trusted)
    config, banner = _demo_without_key(config, headless)
    agent = _build_agent(config, args)
    from agent_tui import start_gc

    start_gc.resume()  # started: the session's own objects are collected as usual
    if headless:
        from agent_tui.agent.resume import attach_headless
        from agent_tui.headless import HeadlessOptions, run_headless

        resumed = attach_headless(
            agent, cont=args.continue_session, resume_id=args.resume, fork=args.fork
        )
        for notice in resumed:  # the session's extra roots left out
            sys.stderr.write(f"note: {notice}\n")

        stdin_text = _piped_stdin()
        opts = HeadlessOptions(args.output_format, args.on_approval, stdin_text, images)
        return run_headless(agent, args.prompt, opts)
    from agent_tui.agent.resume import attach_app
    from agent_tui.ui.app import run_tui

    start = attach_app(agent, cont=args.continue_session, resume_id=args.resume, fork=args.fork)
    return run_tui(agent, banner=banner, session=start)


def _open_state_dir() -> None:
    """Check the state dir and start the log in it."""
    from agent_tui.logs import setup_logging
    from agent_tui.paths import state_dir
    from agent_tui.state_files import WHOLE_STATE_DIR, unwritable, write_failed

    # An unwritable state dir (read-only, full) is said once here, and the work goes on: the
    # answer matters more than the session file. Each writer then fails quietly (state_files).
    problem = unwritable(state_dir())
    if problem is not None:
        write_failed(WHOLE_STATE_DIR, problem, "sessions and logs are not kept")
    setup_logging()


def _workspace(args: argparse.Namespace) -> Path:
    from agent_tui.errors import UsageError

    workspace = (args.workspace or Path.cwd()).resolve()
    if not workspace.is_dir():
        raise UsageError(f"workspace {workspace} is not a folder")
    return workspace


def _demo_without_key(config: Config, headless: bool) -> tuple[Config, str | None]:
    """Without an API key the app runs the demo model (and says so); -p stops."""
    if not _needs_key(config):
        return config, None
    from agent_tui.errors import UsageError

    if headless:
        raise UsageError(NO_KEY_HELP)
    from agent_tui.config import model_config
    from agent_tui.resources import data_dir

    demo = {
        "provider": "scripted",
        "script": str(data_dir("prompts") / "demo.json"),
        "chunk_delay_s": 0.012,  # the demo streams visibly
    }
    return dataclasses.replace(config, model=model_config(demo, {})), DEMO_BANNER


def _build_agent(config: Config, args: argparse.Namespace) -> Agent:
    from agent_tui.build import build_agent
    from agent_tui.modes import Mode
    from agent_tui.subreaper import become_subreaper, clean_up_on_signals

    # Processes a command detaches (nohup, setsid, double fork) are reparented to us, not to PID 1,
    # so a killed terminal and the app's exit (also by SIGTERM/SIGHUP) take them along.
    become_subreaper()
    clean_up_on_signals()
    add_dirs = _add_dirs(args.add_dir, config.workspace)
    agent = build_agent(
        config, allow_tools=args.allow_tool, yolo=args.yolo, record=args.record, add_dirs=add_dirs
    )
    agent.deps.approvals.modes.set(Mode(args.mode))
    return agent


def _add_dirs(given: list[Path], workspace: Path) -> list[Path]:
    """The ``--add-dir`` folders, checked and resolved (a relative one from the current folder).

    Raises:
        UsageError: one cannot be an extra root (sandbox/extra_roots.py).
    """
    if not given:
        return []
    from agent_tui.sandbox.extra_roots import check_extra_root

    found: list[Path] = []
    for raw in given:
        folder = check_extra_root(os.path.abspath(raw.expanduser()), workspace, found)
        found.append(folder)
    return found
