"""Real bash as the oracle: every command bash actually runs must be one split_command() saw."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agent_tui.approvals.shell import split_command

LEAVES = ["alpha", "alpha one", "beta -x", "gamma two three", "delta"]
BASH = shutil.which("bash")


def _dq(text: str) -> str:
    for ch in ("\\", '"', "$", "`"):
        text = text.replace(ch, "\\" + ch)
    return f'"{text}"'


@st.composite
def lines(draw: st.DrawFn, depth: int = 0) -> str:
    if depth >= 3 or draw(st.booleans()):
        return draw(st.sampled_from(LEAVES))
    inner = draw(lines(depth + 1))
    form = draw(st.sampled_from(["op", "op", "subst", "tick", "subshell", "brace", "bash_c",
                                 "bash_c_dq", "eval", "if", "for", "pipe_redirect", "assign",
                                 "func", "procsub"]))  # fmt: skip
    if form == "op":
        op = draw(st.sampled_from(["&&", "||", ";", "|", "\n"]))
        return f"{inner} {op} {draw(lines(depth + 1))}"
    return {
        "subst": f"echo $( {inner} ) >/dev/null",
        "tick": f"echo `{draw(st.sampled_from(LEAVES))}` >/dev/null; {inner}",
        "subshell": f"( {inner} )",  # "((…))" would be arithmetic
        "brace": f"{{ {inner}; }}",
        "bash_c": f"bash -c {shlex.quote(inner)}",
        "bash_c_dq": f"bash -c {_dq(inner)}",
        "eval": f"eval {shlex.quote(inner)}",
        "if": f"if {draw(st.sampled_from(LEAVES))}; then {inner}; fi",
        "for": f"for i in 1; do {inner}; done",
        "pipe_redirect": f"{inner} 2>/dev/null | cat >/dev/null",
        "assign": f"out=$({inner})",
        "func": f"f{depth}() {{ {inner}; }}; f{depth}",  # distinct names: no recursion
        "procsub": f"cat <({inner}) >/dev/null",
    }[form]


@pytest.fixture
def stub_path(tmp_path: Path) -> Path:
    """A PATH folder of stub commands that log how they were called."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in {leaf.split()[0] for leaf in LEAVES}:
        stub = bin_dir / name
        stub.write_text('#!/bin/sh\necho "$(basename "$0") $*" >> "$STUB_LOG"\n')
        stub.chmod(0o755)
    return bin_dir


@pytest.mark.skipif(BASH is None, reason="needs bash")
@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(line=lines())
def test_every_command_bash_runs_is_a_seen_sub_command(
    stub_path: Path, tmp_path: Path, line: str
) -> None:
    seen = split_command(line)
    assume(seen is not None)  # unparseable means "ask", which is safe; bashlex rejects a few
    log = tmp_path / "log"
    log.write_text("")
    env = {**os.environ, "PATH": f"{stub_path}:/usr/bin:/bin", "STUB_LOG": str(log)}
    subprocess.run([BASH, "-c", line], env=env, check=False, timeout=30, capture_output=True)
    ran = {entry.strip() for entry in log.read_text().splitlines() if entry.strip()}
    assert ran, line  # every generated line runs at least one stub
    seen_texts = {" ".join(text.split()) for text in seen}
    assert ran <= seen_texts, (line, ran - seen_texts)
