"""``agent-tui sandbox [--mode M] [--allow-domain D] -- CMD…``: one command, run exactly as the agent
would run it (the same policy, environment filter and proxy), with the terminal's stdin and output.

For people checking a policy (as ``codex sandbox linux`` is) and for the tests. What the proxy
refused and the protected paths the command created are listed on stderr afterwards. Exit status:
the command's; 2 for a usage error; 1 when the sandbox cannot run here (it never runs the command
unsandboxed, unless ``--mode off`` asks for exactly that).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_tui.config import Config
    from agent_tui.sandbox.runtime import Sandbox


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agent-tui sandbox",
        description="Run one command in agent-tui's sandbox, as the agent would run it.",
    )
    parser.add_argument("--mode", choices=["workspace-write", "read-only", "off"])
    parser.add_argument(
        "--allow-domain",
        action="append",
        default=[],
        metavar="DOMAIN",
        help="also let the proxy through to DOMAIN (repeatable; *.example.com for subdomains)",
    )
    parser.add_argument("-C", "--workspace", type=Path, help="workspace folder (default: cwd)")
    parser.add_argument("--explain", action="store_true", help="print the policy, then run")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- CMD ARGS…")
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        sys.stderr.write("usage: agent-tui sandbox [--mode M] -- CMD [ARGS…]\n")
        return 2
    from agent_tui.approvals.grants import GrantStore
    from agent_tui.approvals.trust import is_trusted
    from agent_tui.config import load_config
    from agent_tui.sandbox.policy import build_policy
    from agent_tui.sandbox.runtime import NETWORK_GRANT, Sandbox

    workspace = (args.workspace or Path.cwd()).resolve()
    config = load_config(workspace, cli={}, trusted=is_trusted(workspace))
    policy = build_policy(config, workspace, mode=args.mode)
    store = GrantStore(workspace)
    sandbox = Sandbox(
        policy, lambda: [g.pattern for g in store.for_tool(NETWORK_GRANT) if g.pattern]
    )
    if args.explain:
        sys.stderr.write(sandbox.describe() + "\n")
    if policy.enabled and not sandbox.active:
        sys.stderr.write(f"agent-tui sandbox: {sandbox.notice()}\n")
        return 1
    return asyncio.run(_run(sandbox, command, Path.cwd(), tuple(args.allow_domain), config))


async def _run(
    sandbox: Sandbox, command: list[str], cwd: Path, domains: tuple[str, ...], config: Config
) -> int:
    from agent_tui.tools.terminal_env import terminal_environment

    terminal = config.section("tools", "terminal")
    settings = terminal.get("env") if isinstance(terminal, dict) else None
    keys = [config.model.api_key_env, *(m.api_key_env for m in config.models.values())]
    env = terminal_environment(os.environ, settings, keys)
    launch = await sandbox.launch(command, cwd, env, extra_domains=domains)
    try:
        proc = await asyncio.create_subprocess_exec(*launch.argv, env=launch.env, cwd=cwd)
    except OSError as exc:
        await launch.finish()
        sys.stderr.write(f"agent-tui sandbox: cannot run {command[0]}: {exc.strerror or exc}\n")
        return 127
    code = await proc.wait()
    for block in await launch.finish():
        sys.stderr.write(f"agent-tui sandbox: {block.describe()}\n")
    await sandbox.aclose()
    return code if code >= 0 else 128 - code
