"""Linux: the ``bwrap`` (bubblewrap) command line for a policy, and whether bwrap works here.

The mounts, in order (a later mount wins over an earlier one on the same path):

1. ``--ro-bind / /``: everything readable, nothing writable;
2. ``--dev /dev``, ``--proc /proc`` (a fresh /proc for the new PID namespace);
3. the private temp dir, writable (``TMPDIR`` points at it); host ``/tmp`` stays read-only;
4. the write roots (workspace, added folders), writable;
5. the protected names inside them that exist, read-only again;
6. the deny list: an empty read-only tmpfs over a folder, ``/dev/null`` over a file.

Namespaces: PID (nothing started inside outlives the command: when its first process exits, the
namespace's init does, and the kernel kills the rest), network (only loopback; the proxy bridge
below is the one way out), IPC and UTS. ``--die-with-parent`` ties it to the app, and
``--cap-drop ALL`` keeps a command run as root from remounting what is read-only.

Network: when the policy has a proxy, a small bridge inside listens on 127.0.0.1:``PROXY_PORT``
and forwards to the app's proxy through a Unix socket (the sandbox has no other route out);
``HTTP(S)_PROXY`` and ``ALL_PROXY`` point at it. The bridge is ``socat`` when installed (the way
Anthropic's sandbox runtime does it), else a Python one; the command starts once it listens.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from agent_tui.sandbox.policy import CREATABLE, SandboxMode, SandboxPolicy

PROXY_PORT = 3128
PROXY_ENV_NAMES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)
# 127.0.0.1:3128 in /proc/net/tcp (little-endian address, hex port) and LISTEN's state code.
_LISTEN_ROW = f"0100007F:{PROXY_PORT:04X}"
# Waits (bounded) until the bridge listens, then runs the command: no first connection is lost.
_LAUNCHER = (
    'b="$1"; shift; eval "$b" & '
    "i=0; while [ $i -lt 3000 ]; do "
    "while read -r _ a _ s _; do "
    f'[ "$a" = {_LISTEN_ROW} ] && [ "$s" = 0A ] && break 2; '
    "done < /proc/net/tcp; i=$((i+1)); done; "
    'exec "$@"'
)


@dataclass(frozen=True)
class Availability:
    """Whether the sandbox can run here, and if not, why and how to fix it."""

    ok: bool
    reason: str = ""
    fix: str = ""


@functools.cache
def bwrap_path() -> str | None:
    return shutil.which("bwrap")


def quick_availability() -> Availability:
    """What is known without starting a process: the probe's answer once it has run, else
    whether bwrap is installed (a ``-p hello`` that runs no command starts no process)."""
    if availability.cache_info().currsize:
        return availability()
    if sys.platform == "linux" and bwrap_path() is None:
        return availability()  # the probe returns at once: nothing to start
    if sys.platform not in ("linux", "darwin"):
        return availability()
    return Availability(True)


@functools.cache
def availability() -> Availability:
    """Probe bwrap once per process: installed, and able to create the namespaces we use."""
    if sys.platform == "darwin":
        from agent_tui.sandbox.seatbelt import SANDBOX_EXEC

        if os.access(SANDBOX_EXEC, os.X_OK):
            return Availability(True)
        return Availability(False, f"{SANDBOX_EXEC} (Seatbelt) is missing")
    if sys.platform != "linux":
        return Availability(False, f"no sandbox for {sys.platform} yet")
    path = bwrap_path()
    if path is None:
        return Availability(
            False,
            "bwrap (bubblewrap) is not installed",
            "install it: apt-get install bubblewrap (Debian/Ubuntu), dnf install bubblewrap",
        )
    probe = [path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    probe += ["--unshare-pid", "--unshare-net", "--die-with-parent", "--", "true"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Availability(False, f"bwrap could not start: {exc}")
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return Availability(
            False,
            f"bwrap cannot create namespaces here ({said[-1] if said else done.returncode})",
            "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on "
            "Ubuntu 24.04 an AppArmor profile for bwrap), or run in a container started with "
            "--privileged / a seccomp profile that allows unshare",
        )
    return Availability(True)


def bridge_command(socket_path: Path) -> str:
    """The shell words that start the proxy bridge inside the sandbox (in the background)."""
    socat = shutil.which("socat")
    if socat:
        return (
            f"exec {socat} TCP-LISTEN:{PROXY_PORT},bind=127.0.0.1,fork,reuseaddr "
            f"UNIX-CONNECT:{_quote(str(socket_path))}"
        )
    script = _quote(str(Path(__file__).with_name("bridge.py")))
    return f"exec {_quote(sys.executable)} -I -S {script} {PROXY_PORT} {_quote(str(socket_path))}"


def _quote(word: str) -> str:
    return "'" + word.replace("'", "'\"'\"'") + "'"


def bwrap_argv(
    policy: SandboxPolicy,
    argv: list[str],
    *,
    cwd: Path,
    private_tmp: Path,
    proxy_socket: Path | None,
    shared_net: bool = False,
) -> list[str]:
    """``bwrap … -- argv`` for ``policy`` (Linux).

    Args:
        policy: the resolved policy (mode not ``off``).
        argv: the command to run inside.
        cwd: where it starts.
        private_tmp: the command's own writable temp dir (``TMPDIR``).
        proxy_socket: the app's proxy (Unix socket) to bridge to from a network namespace of
            the command's own, or None for no network at all.
        shared_net: the caller has already put it in the session's network namespace
            (``netns.SharedNetwork``, which holds the bridge): no namespace of its own.
    """
    path = bwrap_path() or "bwrap"
    out = [path, "--die-with-parent", "--unshare-pid", "--unshare-ipc"]
    if not shared_net:
        out.append("--unshare-net")
    out += ["--unshare-uts", "--cap-drop", "ALL"]
    out += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    out += ["--bind", str(private_tmp), str(private_tmp)]
    for root in policy.write_roots():
        if root.is_dir():
            out += ["--bind", str(root), str(root)]
    for protected in policy.protected():
        if os.path.lexists(protected):
            out += ["--ro-bind", str(protected), str(protected)]
    for hidden in policy.hidden():
        if hidden.is_dir() and not hidden.is_symlink():
            out += ["--tmpfs", str(hidden), "--remount-ro", str(hidden)]
        else:
            out += ["--ro-bind", "/dev/null", str(hidden)]
    out += ["--chdir", str(cwd)]
    if proxy_socket is not None:
        out += ["--", "/bin/sh", "-c", _LAUNCHER, "sh", bridge_command(proxy_socket), *argv]
    else:
        out += ["--", *argv]
    return out


def sandbox_env(
    env: dict[str, str], private_tmp: Path, proxied: bool, port: int = PROXY_PORT, token: str = ""
) -> dict[str, str]:
    """``env`` as seen inside: temp dir and, with a proxy on ``port``, the proxy variables (with
    the command's ``token`` as the proxy user name: the proxy tells commands apart by it)."""
    out = {**env, "TMPDIR": str(private_tmp), "TMP": str(private_tmp), "TEMP": str(private_tmp)}
    for name in PROXY_ENV_NAMES:
        out.pop(name, None)
    if proxied:
        user = f"{token}:x@" if token else ""
        out.update(dict.fromkeys(PROXY_ENV_NAMES, f"http://{user}127.0.0.1:{port}"))
        out["NO_PROXY"] = out["no_proxy"] = "localhost,127.0.0.1,::1"
    out["AGENT_TUI_SANDBOX"] = "1"
    return out


def created_protected(policy: SandboxPolicy, existed: set[Path]) -> list[Path]:
    """Protected paths that did not exist before a command and do now (the sandbox can make a
    path read-only only where it exists, so a new one is found afterwards and removed)."""
    found = []
    for path in policy.protected():
        if path in existed or not os.path.lexists(path):
            continue
        if any(path.is_relative_to(git) for git in policy.git_dirs):
            continue
        rel = path.relative_to(next(r for r in policy.write_roots() if path.is_relative_to(r)))
        if any(rel.as_posix().startswith(prefix) for prefix in CREATABLE):
            continue
        found.append(path)
    return found


def existing_protected(policy: SandboxPolicy) -> set[Path]:
    if policy.mode is not SandboxMode.WORKSPACE_WRITE:
        return set()
    return {p for p in policy.protected() if os.path.lexists(p)}
