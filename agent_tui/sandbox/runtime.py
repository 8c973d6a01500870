"""The session's sandbox: the policy, whether it runs here, and one launch per command.

``Sandbox.launch(argv, cwd, env)`` returns what to start instead (``bwrap … -- argv``) and a
:class:`Launch` whose ``finish()`` reports what the sandbox stopped. Every command the agent runs
goes through one of these (``terminal_process.spawn``), as does the app's own git (``git_safe``,
through :func:`wrap_sync`) and a stdio MCP server whose config says ``sandbox = true``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from agent_tui.approvals.types import NETWORK_GRANT, OUTSIDE_GRANT
from agent_tui.sandbox import bwrap
from agent_tui.sandbox.blocked import Block, write_blocks
from agent_tui.sandbox.netns import SharedNetwork
from agent_tui.sandbox.policy import PROTECTED_NAMES, SandboxMode, SandboxPolicy, domain_allowed
from agent_tui.sandbox.proxy import DomainProxy
from agent_tui.sandbox.seatbelt import seatbelt_argv

__all__ = ["NETWORK_GRANT", "OUTSIDE_GRANT", "Launch", "Sandbox", "current", "set_current"]


@dataclass
class Launch:
    """One sandboxed start: the argv and environment to use, and what to check afterwards.

    Attributes:
        proxy: the command's own proxy (closed at ``finish``), or the session's (``token`` set).
        token: the command's name at the session's proxy.
    """

    argv: list[str]
    env: dict[str, str]
    sandboxed: bool
    policy: SandboxPolicy | None = None
    proxy: DomainProxy | None = None
    token: str = ""
    existed: set[Path] = field(default_factory=set)
    on_finish: Callable[[], object] | None = None

    async def finish(self, output: str = "") -> list[Block]:
        """Return what the sandbox stopped (protected paths a command created are removed
        here: the mount could only protect the ones that existed). Idempotent."""
        if not self.sandboxed or self.policy is None:
            return []
        blocks: list[Block] = []
        if self.proxy is not None:
            if not self.token:
                await self.proxy.close()  # its own: nothing inside can use it any more
            blocks += [Block("network", h) for h in self.proxy.blocked.pop(self.token, [])]
        if self.on_finish is not None:
            self.on_finish()
        for path in bwrap.created_protected(self.policy, self.existed):
            _remove(path)
            shown = (
                path.relative_to(self.policy.workspace)
                if path.is_relative_to(self.policy.workspace)
                else path
            )  # in an added folder: said in full
            blocks.append(Block("protected", str(shown)))
        blocks += write_blocks(output)
        return blocks


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


@dataclass(frozen=True)
class _Command:
    """A command to launch in the sandbox, with what its launch needs."""

    argv: list[str]
    cwd: Path
    env: dict[str, str]
    tmp: Path  # the session's private temp dir
    once: tuple[str, ...]  # domains allowed for this command only
    existed: set[Path]  # protected paths that existed before it ran


class Sandbox:
    """The sandbox of one session (app, ``-p``, ``agent-tui sandbox``).

    Args:
        policy: the resolved policy.
        granted_domains: the domains the user's grants allow (read at each request).
    """

    def __init__(
        self,
        policy: SandboxPolicy,
        granted_domains: Callable[[], Iterable[str]] = tuple,
    ) -> None:
        self.policy = policy
        self.granted_domains = granted_domains
        self._tmp: Path | None = None
        self._run_dir: Path | None = None
        self._count = 0
        self._proxy: DomainProxy | None = None  # the session's, behind the shared namespace
        self._network: SharedNetwork | None = None
        self._once: dict[str, tuple[str, ...]] = {}  # token -> domains allowed for that run

    # --- state --------------------------------------------------------------------------------

    @property
    def availability(self) -> bwrap.Availability:
        return bwrap.availability()

    @property
    def active(self) -> bool:
        """Commands run inside: enabled and available."""
        return self.policy.enabled and self.availability.ok

    @property
    def refuses(self) -> bool:
        """``required = true`` and unavailable: commands must not run at all."""
        return self.policy.enabled and self.policy.required and not self.availability.ok

    def label(self) -> str:
        """For the status bar: ``sandbox: workspace-write``, ``…: off``, ``…: unavailable``
        (known without a probe where it can be: the first command probes)."""
        if not self.policy.enabled:
            return "sandbox: off"
        if not bwrap.quick_availability().ok:
            return "sandbox: unavailable"
        return f"sandbox: {self.policy.mode.value}"

    def notice(self) -> str | None:
        """The one line to show when the sandbox was wanted and cannot run (at start when bwrap
        is missing; once the first command's probe has found a kernel that refuses)."""
        found = bwrap.quick_availability()
        if not self.policy.enabled or found.ok:
            return None
        then = (
            "commands are refused ([sandbox] required = true)"
            if self.policy.required
            else "commands ask before they run, as without a sandbox"
        )
        fix = f"; to fix: {found.fix}" if found.fix else ""
        return f"Sandbox unavailable: {found.reason}; {then}{fix}."

    def with_mode(self, mode: SandboxMode) -> Sandbox:
        return Sandbox(replace(self.policy, mode=mode), self.granted_domains)

    def allows_domain(self, host: str, extra: Iterable[str] = ()) -> bool:
        patterns = [*self.policy.allow_domains, *self.granted_domains(), *extra]
        return domain_allowed(host, patterns)

    # --- launching ----------------------------------------------------------------------------

    def private_tmp(self) -> Path:
        """The session's writable temp dir inside the sandbox (removed at exit)."""
        if self._tmp is None:
            import tempfile  # here, not at the top: tempfile (+ random) is ~3 ms of a start

            self._tmp = Path(tempfile.mkdtemp(prefix="agent-tui-sandbox-tmp-"))
            atexit.register(shutil.rmtree, self._tmp, True)
        return self._tmp

    def _socket_path(self) -> Path:
        # Outside every writable folder: a command cannot replace the socket with its own.
        if self._run_dir is None:
            import tempfile

            self._run_dir = Path(tempfile.mkdtemp(prefix="agent-tui-sandbox-run-"))
            atexit.register(shutil.rmtree, self._run_dir, True)
        self._count += 1
        return self._run_dir / f"proxy-{self._count}.sock"

    async def launch(
        self,
        argv: list[str],
        cwd: Path,
        env: dict[str, str],
        *,
        extra_domains: Iterable[str] = (),
    ) -> Launch:
        """What to start for ``argv``: inside the sandbox when it is active, else as it is.

        Args:
            argv: the command.
            cwd: its working directory.
            env: its environment (already filtered for secrets).
            extra_domains: domains allowed for this command only (an "allow once" answer).
        """
        if not self.active:
            return Launch(list(argv), dict(env), sandboxed=False)
        command = _Command(
            list(argv),
            cwd,
            env,
            self.private_tmp(),
            tuple(extra_domains),
            bwrap.existing_protected(self.policy),
        )
        if sys.platform == "darwin":
            return await self._launch_seatbelt(command)
        shared = await self._shared_network() if self.policy.network else None
        if shared is not None and self._proxy is not None:
            return self._launch_shared(command, shared, self._proxy)
        return await self._launch_alone(command)

    def _launch_shared(
        self, command: _Command, shared: SharedNetwork, proxy: DomainProxy
    ) -> Launch:
        """In the session's network namespace; the proxy knows the command by a token."""
        self._count += 1
        token = f"cmd{self._count}"
        self._once[token] = command.once
        wrapped = bwrap.bwrap_argv(
            self.policy,
            list(command.argv),
            cwd=command.cwd,
            private_tmp=command.tmp,
            proxy_socket=None,
            shared_net=True,
        )
        return Launch(
            [*shared.enter_argv(), *wrapped],
            bwrap.sandbox_env(command.env, command.tmp, True, token=token),
            sandboxed=True,
            policy=self.policy,
            proxy=proxy,
            token=token,
            existed=command.existed,
            on_finish=lambda: self._once.pop(token, None),
        )

    async def _launch_alone(self, command: _Command) -> Launch:
        """No shared namespace: one of its own, with its own bridge and proxy (or no network)."""
        proxy = None
        if self.policy.network:
            proxy = DomainProxy(
                self._socket_path(), lambda h, _t: self.allows_domain(h, command.once)
            )
            await proxy.start()
        wrapped = bwrap.bwrap_argv(
            self.policy,
            list(command.argv),
            cwd=command.cwd,
            private_tmp=command.tmp,
            proxy_socket=proxy.socket_path if proxy else None,
        )
        return Launch(
            wrapped,
            bwrap.sandbox_env(command.env, command.tmp, proxy is not None),
            sandboxed=True,
            policy=self.policy,
            proxy=proxy,
            existed=command.existed,
        )

    async def _launch_seatbelt(self, command: _Command) -> Launch:
        proxy = None
        port = None
        if self.policy.network:
            proxy = DomainProxy(
                self._socket_path(), lambda h, _t: self.allows_domain(h, command.once)
            )
            port = await proxy.start_tcp()
        return Launch(
            seatbelt_argv(
                self.policy, list(command.argv), private_tmp=command.tmp, proxy_port=port
            ),
            bwrap.sandbox_env(command.env, command.tmp, port is not None, port or 0),
            sandboxed=True,
            policy=self.policy,
            proxy=proxy,
            existed=command.existed,
        )

    async def _shared_network(self) -> SharedNetwork | None:
        """The session's network namespace and proxy, started on first use (None: cannot)."""
        if self._network is None:
            self._proxy = DomainProxy(self._socket_path(), self._decide)
            await self._proxy.start()
            self._network = SharedNetwork(self._proxy.socket_path)
            atexit.register(self._network.stop)
        if await self._network.start():
            return self._network
        return None

    def _decide(self, host: str, token: str) -> bool:
        return self.allows_domain(host, self._once.get(token, ()))

    async def aclose(self) -> None:
        """Stop the shared namespace and the session's proxy (the app's exit path)."""
        if self._network is not None:
            await self._network.aclose()
        if self._proxy is not None:
            await self._proxy.close()

    def wrap_sync(self, argv: list[str], cwd: Path) -> list[str]:
        """``argv`` inside a read-only sandbox with no network (the app's own git): it reads,
        so it may write nothing; the caller keeps its own environment."""
        if not self.active:
            return list(argv)
        policy = replace(self.policy, mode=SandboxMode.READ_ONLY)
        return bwrap.bwrap_argv(
            policy, list(argv), cwd=cwd, private_tmp=self.private_tmp(), proxy_socket=None
        )

    def wrap_server(self, argv: list[str], cwd: Path) -> list[str]:
        """``argv`` inside the sandbox for a long-running stdio server: the policy's writes,
        no network (the per-command proxy does not outlive a command)."""
        return bwrap.bwrap_argv(
            self.policy, list(argv), cwd=cwd, private_tmp=self.private_tmp(), proxy_socket=None
        )

    def describe(self) -> str:
        """``/sandbox``: the mode, the read/write/network policy, and what is missing."""
        policy = self.policy
        home = str(Path.home())

        def short(path: Path) -> str:
            text = str(path)
            return "~" + text[len(home) :] if text.startswith(home + "/") else text

        if policy.enabled and not self.availability.ok:
            lines = [f"Sandbox: unavailable (wanted: {policy.mode.value})", self.notice() or ""]
        else:
            lines = [f"Sandbox: {policy.mode.value}"]
        if sys.platform == "linux":
            lines.append(f"bwrap: {bwrap.bwrap_path() or 'not installed'}")
        reads = ", ".join(short(p) for p in policy.deny_read)
        lines.append(f"Reads: everything except {reads}")
        if policy.mode is SandboxMode.WORKSPACE_WRITE:
            roots = ", ".join(short(p) for p in policy.write_roots())
            lines.append(f"Writes: {roots}, and a private temp dir")
            names = ", ".join(PROTECTED_NAMES)
            lines.append(f"Read-only inside the workspace: {names}")
        elif policy.mode is SandboxMode.READ_ONLY:
            lines.append("Writes: only a private temp dir")
        domains = ", ".join([*policy.allow_domains, *self.granted_domains()]) or "none yet"
        net = f"through the proxy to allowed domains ({domains})" if policy.network else "none"
        lines.append(f"Network: {net}")
        lines.append(
            "Commands no rule covers "
            + ("still ask ([sandbox] ask = true)." if policy.ask else "run without asking.")
        )
        return "\n".join(lines)


def sandbox_env_marker() -> bool:
    """Whether this process itself runs inside an agent-tui sandbox."""
    return os.environ.get("AGENT_TUI_SANDBOX") == "1"


# The app's own git runs through this one (set when the agent is built; None: as it is).
_CURRENT: list[Sandbox] = []


def set_current(sandbox: Sandbox | None) -> None:
    _CURRENT[:] = [sandbox] if sandbox is not None else []


def current() -> Sandbox | None:
    return _CURRENT[0] if _CURRENT else None
