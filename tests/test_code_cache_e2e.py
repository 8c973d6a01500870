"""Dataclass methods compiled once and kept (``agent_tui/code_cache.py``): each test runs the real
``agent-tui -p`` against the fake server and looks at the table in the state dir."""

from __future__ import annotations

import marshal
import os
import stat
import subprocess
from pathlib import Path

import pytest

from tests.fakes.llm_server import FakeLLM
from tests.helpers import run_on_api

TABLE = "dataclass-code-cpython-*.marshal"


def say_hi(tmp_path: Path, fake: FakeLLM, env: dict[str, str] | None = None) -> str:
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    fake.set_script([{"text": "hi there"}])
    proc: subprocess.CompletedProcess[str] = run_on_api(
        ws, fake, "openai", "-p", "hello", key="k", env=env
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def table_of(tmp_path: Path) -> Path:
    (path,) = (tmp_path / "state").glob(TABLE)
    return path


def test_a_second_start_compiles_no_dataclass_method(tmp_path: Path, fake_llm: FakeLLM) -> None:
    assert say_hi(tmp_path, fake_llm) == "hi there\n"
    path = table_of(tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    table = marshal.loads(path.read_bytes())
    assert len(table) > 100  # every dataclass the run defined (agent-tui's, the libraries')
    assert all("def __create_fn__" in source for source in table)
    os.utime(path, (1, 1))
    assert say_hi(tmp_path, fake_llm) == "hi there\n"
    # Not written again: the warm run found every method it needed (a new one would be added).
    assert path.stat().st_mtime == 1


@pytest.mark.parametrize(
    "damage",
    [b"", b"\x00garbage\xff" * 100, marshal.dumps(["not", "a", "table"]), marshal.dumps({1: 2})],
)
def test_a_damaged_table_is_compiled_again(
    tmp_path: Path, fake_llm: FakeLLM, damage: bytes
) -> None:
    say_hi(tmp_path, fake_llm)
    path = table_of(tmp_path)
    path.write_bytes(damage)
    assert say_hi(tmp_path, fake_llm) == "hi there\n"
    assert len(marshal.loads(path.read_bytes())) > 100  # written anew


def test_a_table_others_can_write_is_not_read(tmp_path: Path, fake_llm: FakeLLM) -> None:
    say_hi(tmp_path, fake_llm)
    path = table_of(tmp_path)
    poisoned = {
        source: marshal.dumps(compile("raise SystemExit(9)", "x", "exec"))
        for source in marshal.loads(path.read_bytes())
    }
    path.write_bytes(marshal.dumps(poisoned))
    path.chmod(0o666)
    assert say_hi(tmp_path, fake_llm) == "hi there\n"  # the table was not used


def test_it_can_be_turned_off(tmp_path: Path, fake_llm: FakeLLM) -> None:
    assert say_hi(tmp_path, fake_llm, {"AGENT_TUI_NO_CODE_CACHE": "1"}) == "hi there\n"
    assert not list((tmp_path / "state").glob(TABLE))
