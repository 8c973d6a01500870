"""`agent-tui sandbox -- CMD` with the real bwrap: what a command can and cannot do inside.

Each test runs a real command through the same launch the terminal tool uses and checks the disk
and the output, in a HOME of its own holding a fake key (so a leak would show the key's text).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import QuietHandler, run_cli, serve_http
from tests.sandbox.conftest import KEY, home_and_repo

pytestmark = pytest.mark.usefixtures("bwrap")


class _Hello(QuietHandler):
    def do_GET(self) -> None:
        self.send_json(200, {"hello": "from outside"})


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return home_and_repo(tmp_path)[0]


@pytest.fixture
def ws(home: Path) -> Path:
    return home.parent / "ws"


def sandboxed(ws: Path, home: Path, script: str, *flags: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "AGENT_TUI_STATE_DIR": str(home / "state")}
    return run_cli(ws, "sandbox", *flags, "--", "sh", "-c", script, env=env, timeout=60)


def test_work_inside_the_workspace_and_temp_dir_succeeds(ws: Path, home: Path) -> None:
    script = (
        "echo made > out.txt && mkdir -p src/pkg && cp out.txt src/pkg/copy.txt && "
        f"{sys.executable} -c \"open('py.txt', 'w').write('py')\" && "
        'echo t > "$TMPDIR/t" && cat "$TMPDIR/t" && git add out.txt && echo ok'
    )
    proc = sandboxed(ws, home, script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["t", "ok"]
    assert (ws / "src/pkg/copy.txt").read_text() == "made\n"
    assert (ws / "py.txt").read_text() == "py"


@pytest.mark.parametrize(
    "script",
    [
        "echo pwned >> ~/.bashrc",
        "cp /etc/hostname ~/.bashrc",
        "echo pwned | tee ~/.bashrc",
        f"{sys.executable} -c \"open('$HOME/.bashrc', 'a').write('pwned')\"",
        "sed -i 's/mine/pwned/' ~/.bashrc",
        "ln -s ~/.bashrc rc && echo pwned >> rc",  # a link planted in the workspace
        "echo pwned > /tmp/agent-tui-sandbox-escape",
    ],
)
def test_writes_outside_are_stopped_and_named(ws: Path, home: Path, script: str) -> None:
    proc = sandboxed(ws, home, script)
    assert proc.returncode != 0
    assert (home / ".bashrc").read_text() == "# mine\n"
    assert not Path("/tmp/agent-tui-sandbox-escape").exists()
    assert "Read-only file system" in proc.stderr


@pytest.mark.parametrize(
    "script",
    [
        "cat ~/.ssh/id_ed25519",
        "echo ~/.ssh/id_ed25519 | xargs cat",
        "printf '../home/.ssh/id_ed25519' | xargs cat",
        "echo ~/.ssh/*; ls -a ~/.ssh",
        "printf '%s\\0' ~/.ssh/id_ed25519 > list; wc --files0-from=list",
        "ln -s ~/.ssh keys && cat keys/id_ed25519",
        "cat ~/.aws/credentials",
        'cat "$AGENT_TUI_STATE_DIR"/* "$AGENT_TUI_STATE_DIR"/*/* 2>&1; ls -a "$AGENT_TUI_STATE_DIR"',
        f"{sys.executable} -c \"print(open('$HOME/.ssh/id_ed25519').read())\"",
    ],
)
def test_credentials_and_the_state_dir_cannot_be_read(ws: Path, home: Path, script: str) -> None:
    (home / "state").mkdir()
    (home / "state" / "approvals.json").write_text('{"grants": "state-secret"}')
    proc = sandboxed(ws, home, script)
    seen = proc.stdout + proc.stderr
    assert KEY not in seen and "AKIASECRET" not in seen and "state-secret" not in seen
    assert "id_ed25519" not in proc.stdout.replace("/.ssh/id_ed25519", "")


@pytest.mark.parametrize(
    ("script", "created"),
    [
        ("echo '[tools]' > .agentrc", ".agentrc"),
        ("mkdir -p .agents/skills/x && echo evil > .agents/skills/x/SKILL.md", ".agents"),
        ("echo '{}' > .mcp.json", ".mcp.json"),
        ("mkdir .claude && echo '{}' > .claude/settings.json", ".claude"),
    ],
)
def test_protected_paths_a_command_creates_are_removed(
    ws: Path, home: Path, script: str, created: str
) -> None:
    proc = sandboxed(ws, home, script)
    assert not (ws / created).exists()
    assert f"created protected path {created} (removed)" in proc.stderr


def test_existing_git_config_and_hooks_are_read_only(ws: Path, home: Path) -> None:
    before = (ws / ".git/config").read_text()
    script = (
        "echo '[core] fsmonitor = touch pwned' >> .git/config; "
        "echo 'touch pwned' > .git/hooks/pre-commit; echo '* filter=x' > .git/info/attributes; "
        "echo done"
    )
    proc = sandboxed(ws, home, script)
    assert proc.stdout.strip() == "done"
    assert (ws / ".git/config").read_text() == before
    assert not (ws / ".git/hooks/pre-commit").exists()
    assert not (ws / ".git/info/attributes").exists()


def test_no_network_but_the_proxy_and_it_names_the_domain(ws: Path, home: Path) -> None:
    with serve_http(_Hello) as url:
        # Straight to the host's loopback (a server outside), a DNS lookup, and through the
        # proxy to a domain nobody allowed.
        script = (
            f"{sys.executable} - <<'EOF'\n"
            "import os, socket, urllib.request\n"
            "for what, do in [\n"
            f"    ('direct', lambda: urllib.request.urlopen('{url}', timeout=5).read()),\n"
            "    ('dns', lambda: socket.getaddrinfo('example.com', 443)),\n"
            "    ('proxied', lambda: urllib.request.build_opener(urllib.request.ProxyHandler(\n"
            "        {'http': os.environ['HTTP_PROXY']})).open("
            "'http://blocked.example/', timeout=5).read()),\n"
            "]:\n"
            "    try:\n"
            "        do(); print(what, 'OPEN')\n"
            "    except Exception as exc:\n"
            "        print(what, 'closed', type(exc).__name__)\n"
            "EOF"
        )
        proc = sandboxed(ws, home, script)
    assert "OPEN" not in proc.stdout, proc.stdout
    assert proc.stdout.count("closed") == 3, proc.stdout + proc.stderr
    assert "network: blocked.example not allowed" in proc.stderr


def test_an_allowed_domain_goes_through_the_proxy(ws: Path, home: Path) -> None:
    with serve_http(_Hello) as url:
        # NO_PROXY names 127.0.0.1 (servers inside the sandbox): cleared to reach the host's.
        script = (
            f'NO_PROXY= no_proxy= {sys.executable} -c "import os, urllib.request as u; '
            "print(u.build_opener("
            "u.ProxyHandler({'http': os.environ['HTTP_PROXY']})).open("
            f"'{url}', timeout=5).read().decode())\""
        )
        proc = sandboxed(ws, home, script, "--allow-domain", "127.0.0.1")
    assert proc.returncode == 0, proc.stderr
    assert '"from outside"' in proc.stdout


def _processes_named(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry))
    return found


@pytest.fixture
def marker() -> Iterator[str]:
    value = f"31{os.getpid() % 1000}7.25"
    yield value
    for pid in _processes_named(f"sleep\0{value}"):
        os.kill(pid, 9)


def test_nothing_started_inside_outlives_the_command(ws: Path, home: Path, marker: str) -> None:
    script = (
        f"setsid nohup sleep {marker} >/dev/null 2>&1 & "
        f"(sleep {marker} >/dev/null 2>&1 &) ; echo started"
    )
    proc = sandboxed(ws, home, script)
    assert proc.stdout.strip() == "started"
    # `agent-tui sandbox` is no subreaper: only the PID namespace can have ended them.
    assert _processes_named(f"sleep\0{marker}") == []


def test_read_only_mode_writes_nothing_in_the_workspace(ws: Path, home: Path) -> None:
    proc = sandboxed(ws, home, "echo x > out.txt", "--mode", "read-only")
    assert proc.returncode != 0
    assert not (ws / "out.txt").exists()


def test_mode_off_runs_as_it_is(ws: Path, home: Path) -> None:
    proc = sandboxed(ws, home, "cat ~/.ssh/id_ed25519", "--mode", "off")
    assert proc.stdout == KEY


def test_an_added_writable_folder_is_writable_and_protected_like_the_workspace(
    ws: Path, home: Path, tmp_path: Path
) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    rc = home / "rc"
    rc.write_text(f'[sandbox]\nwritable = ["{extra}"]\n')
    env = {
        "HOME": str(home),
        "AGENT_TUI_STATE_DIR": str(home / "state"),
        "AGENT_TUI_USER_CONFIG": str(rc),
    }
    script = f"echo made > {extra}/out.txt && echo '[tools]' > {extra}/.agentrc; echo done"
    proc = run_cli(ws, "sandbox", "--", "sh", "-c", script, env=env, timeout=60)
    assert proc.stdout.strip() == "done", proc.stderr
    assert (extra / "out.txt").read_text() == "made\n"
    assert not (extra / ".agentrc").exists()
    assert f"created protected path {extra.resolve()}/.agentrc (removed)" in proc.stderr
