"""The wheel carries tools/ and prompts/ and runs from a fresh venv, not only from a checkout:
installed with uv (as scripts/setup.sh does) and with plain pip (as a user would)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import QuietHandler, clean_env, serve_http

ROOT = Path(__file__).resolve().parents[1]
# The environment as the test run started, before the autouse fixture moves HOME: installers keep
# the person's package index settings (pip.conf, certificates) and caches.
INSTALLER_ENV = dict(os.environ)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (path,) = out.glob("agent_tui-*.whl")
    return path


def test_wheel_contains_manifests_and_prompts(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    assert "agent_tui/_data/tools/read_file.json" in names
    assert "agent_tui/_data/prompts/system.md" in names
    assert not [n for n in names if n.startswith("tests/")]
    assert [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]


def test_installed_wheel_runs_a_scripted_turn_outside_the_checkout(
    wheel: Path, tmp_path: Path
) -> None:
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        pytest.skip("uv is installed by scripts/setup.sh; run the suite through scripts/test.sh")
    venv = tmp_path / "venv"
    subprocess.run(
        [uv, "venv", "-q", "--python", sys.executable, str(venv)], check=True, env=INSTALLER_ENV
    )
    subprocess.run(
        [uv, "pip", "install", "-q", "--python", str(venv / "bin" / "python"), str(wheel)],
        check=True,
        capture_output=True,
        env=INSTALLER_ENV,
    )
    work = tmp_path / "work"
    work.mkdir()
    (work / "hello.txt").write_text("wheel-ok\n")
    script = work / "script.json"
    script.write_text(
        json.dumps(
            [
                {"tool_calls": [{"id": "c1", "name": "read_file", "input": {"path": "hello.txt"}}]},
                {"text": "done"},
            ]
        )
    )
    env = clean_env({"AGENT_TUI_STATE_DIR": str(tmp_path / "state"), "HOME": str(tmp_path)})
    run = subprocess.run(
        [
            str(venv / "bin" / "agent-tui"),
            "-p",
            "read it",
            "--script",
            str(script),
            "--output-format",
            "json",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["result"] == "done"
    assert result["tool_calls"] == [{"id": "c1", "name": "read_file", "is_error": False}]


PAGE = b"""<!doctype html><html><head><title>Fruit</title></head><body><article>
<h1>Growing fruit</h1><p>Apple trees need a sunny position and well-drained soil; prune them in
winter when they are dormant. The marker page-text-ok shows the text came through.</p>
</article></body></html>"""


class PageHandler(QuietHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)


@pytest.fixture
def page_url() -> Iterator[str]:
    with serve_http(PageHandler, "/fruit") as url:
        yield url


# The tools whose imports happen on first use (trafilatura and lxml, the rg binary from the
# ripgrep wheel, bashlex): a missing dependency shows only when the tool runs.
LAZY_TOOL_CALLS = [
    ("fetch_webpage", {"urls": ["{page_url}"]}, "page-text-ok"),
    ("grep_search", {"query": "grep-marker"}, "notes.txt"),
    ("file_search", {"pattern": "**/*.txt"}, "notes.txt"),
    ("get_changed_files", {}, "notes.txt"),
    ("run_in_terminal", {"command": "echo terminal-ok"}, "terminal-ok"),
]


@pytest.mark.timeout(900)  # pip resolves and downloads every dependency
def test_wheel_installed_with_plain_pip_runs_every_lazily_importing_tool(
    wheel: Path, tmp_path: Path, page_url: str, fake_llm: FakeLLM
) -> None:
    """Python 3.11's bundled pip (23.x) left out lxml_html_clean, so fetch_webpage failed on every
    call while uv-installed copies worked; each tool here imports what it needs on first use."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=INSTALLER_ENV)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)]
    installed = subprocess.run(pip, capture_output=True, text=True, env=INSTALLER_ENV)
    assert installed.returncode == 0, installed.stderr[-3000:]
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("grep-marker\n")
    for git_args in (["init", "-q"], ["add", "notes.txt"]):
        subprocess.run(["git", *git_args], cwd=work, check=True, capture_output=True)
    calls = [
        {
            "id": f"c{n}",
            "name": name,
            "input": json.loads(json.dumps(args).replace("{page_url}", page_url)),
        }
        for n, (name, args, _) in enumerate(LAZY_TOOL_CALLS)
    ]
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"tool_calls": calls}, {"text": "done"}]))
    # Offered up front (not behind tool_search), so each is called in the one round.
    names = json.dumps([name for name, _, _ in LAZY_TOOL_CALLS])
    (tmp_path / ".agentrc").write_text(f"[tools]\nalways_offer = {names}\n")

    run = subprocess.run(
        [str(venv / "bin" / "agent-tui"), "-p", "use the tools", "--script", str(script),
         "--yolo", "--output-format", "stream-json"],
        cwd=work,
        env=clean_env({"AGENT_TUI_STATE_DIR": str(tmp_path / "state"), "HOME": str(tmp_path)}),
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
    )  # fmt: skip

    assert run.returncode == 0, run.stderr
    events = [json.loads(line) for line in run.stdout.splitlines()]
    results = {e["name"]: e["result"] for e in events if e["type"] == "tool_call_finished"}
    for name, _, expected in LAZY_TOOL_CALLS:
        assert not results[name]["is_error"] and expected in results[name]["content"], (
            name,
            results[name],
        )

    # The official SDKs come with a plain install: --transport sdk (and azure-openai) work.
    for provider, url in (("anthropic", fake_llm.url), ("openai", fake_llm.openai_url)):
        fake_llm.set_script([{"text": f"sdk-{provider}-ok"}])
        sdk = subprocess.run(
            [str(venv / "bin" / "agent-tui"), "-p", "hi", "--provider", provider, "--transport",
             "sdk", "--base-url", url, "--model", "m"],
            cwd=work,
            env=clean_env({"AGENT_TUI_STATE_DIR": str(tmp_path / "state"), "HOME": str(tmp_path),
                           "ANTHROPIC_API_KEY": "k", "OPENAI_API_KEY": "k"}),
            capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120,
        )  # fmt: skip
        assert sdk.returncode == 0, sdk.stderr
        assert f"sdk-{provider}-ok" in sdk.stdout


def test_wheel_declares_the_sdks_and_no_unused_dependency(wheel: Path) -> None:
    """A plain install crashed on --transport sdk and --provider azure-openai (no module named
    'openai'): the SDKs were an extra. And gitpython was declared while nothing imported it."""
    with zipfile.ZipFile(wheel) as archive:
        [metadata] = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        text = archive.read(metadata).decode()
    required = [
        line.split(":", 1)[1].strip()
        for line in text.splitlines()
        if line.startswith("Requires-Dist:") and "extra ==" not in line
    ]
    names = {_name(r) for r in required}
    assert {"anthropic", "openai", "mcp", "httpx"} <= names, names
    assert "gitpython" not in names
    imported = "\n".join(p.read_text() for p in (ROOT / "agent_tui").rglob("*.py"))
    for module in ("git", "gitdb"):
        assert not re.search(rf"^\s*(import|from) {module}\b", imported, re.M), module


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_locks_pin_every_declared_dependency() -> None:
    """scripts/setup.sh installs from the locks: a dependency added to pyproject.toml but not
    locked would be missing on a fresh machine (refresh: see scripts/setup.sh)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for lock, required in (
        ("app.lock", project["dependencies"]),
        ("dev.lock", project["dependencies"] + project["optional-dependencies"]["dev"]),
    ):
        text = (ROOT / "requirements" / lock).read_text().lower()
        pinned = {line.split("==")[0] for line in text.splitlines() if "==" in line}
        assert {_name(r) for r in required} - pinned == set(), lock
