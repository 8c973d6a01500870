"""macOS: a Seatbelt profile (SBPL) for the same policy, run with ``/usr/bin/sandbox-exec -p``.

What it says, in order (in SBPL a later rule wins over an earlier one that matches the same
operation, so each deny follows the allow it narrows — the order Codex's profile uses):

- deny by default; allow starting programs, forking, signals within the sandbox, sysctl reads,
  Mach lookups and POSIX shared memory (what ordinary tools need to start at all);
- reads everywhere, then deny the deny-list paths;
- writes to the write roots, the private temp dir and ``/dev`` (null, tty, fds), then deny the
  protected names under each root. Unlike a bind mount, a Seatbelt rule also covers a path that
  does not exist yet, so nothing has to be cleaned up afterwards;
- network: only TCP to the proxy on ``localhost:PORT`` (macOS has no network namespace; the proxy
  listens on loopback instead of a Unix socket), and Unix sockets under the temp dir.

Not run in the tests (no macOS here): the profile text is unit-tested (tests/sandbox/).
"""

from __future__ import annotations

from pathlib import Path

from agent_tui.sandbox.policy import PROTECTED_NAMES, SandboxPolicy

SANDBOX_EXEC = "/usr/bin/sandbox-exec"

_BASE = """(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow sysctl-read)
(allow mach-lookup)
(allow ipc-posix-shm)
(allow file-ioctl (literal "/dev/tty") (literal "/dev/null"))"""


def sbpl_string(text: str) -> str:
    """An SBPL string literal: backslashes and quotes escaped, control characters refused."""
    if any(ord(ch) < 0x20 for ch in text):
        raise ValueError(f"a path with a control character cannot go in a profile: {text!r}")
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _filters(paths: list[Path]) -> str:
    return " ".join(f"(subpath {sbpl_string(str(p))})" for p in paths)


def profile(policy: SandboxPolicy, *, private_tmp: Path, proxy_port: int | None) -> str:
    """The SBPL profile text for ``policy``.

    Args:
        policy: the resolved policy (mode not ``off``).
        private_tmp: the writable temp dir.
        proxy_port: the proxy's loopback port, or None for no network at all.
    """
    lines = [_BASE, "(allow file-read*)"]
    if policy.deny_read:
        lines.append(f"(deny file-read* {_filters(list(policy.deny_read))})")
    writable = [*policy.write_roots(), private_tmp]
    lines.append(
        f"(allow file-write* {_filters(writable)} "
        '(literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/fd/"))'
    )
    protected = [root / name for root in policy.write_roots() for name in PROTECTED_NAMES]
    if protected:
        lines.append(f"(deny file-write* {_filters(protected)})")
    if proxy_port is not None:
        lines.append(f'(allow network-outbound (remote tcp "localhost:{int(proxy_port)}"))')
    lines.append(f"(allow network* (local unix) {_filters([private_tmp])})")
    return "\n".join(lines) + "\n"


def seatbelt_argv(
    policy: SandboxPolicy, argv: list[str], *, private_tmp: Path, proxy_port: int | None
) -> list[str]:
    """``sandbox-exec -p PROFILE -- argv``."""
    text = profile(policy, private_tmp=private_tmp, proxy_port=proxy_port)
    return [SANDBOX_EXEC, "-p", text, "--", *argv]
