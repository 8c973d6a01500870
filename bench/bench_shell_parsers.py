"""bashlex (what shell.py uses) against a tree-sitter-bash prototype splitter (issue 10, item 4).

Prints import and per-line parse times, and how often each splitter asks (cannot parse) or misses a
command real bash runs, on 300 lines of the bash-oracle strategy of
tests/approvals/test_shell_oracle.py. tree-sitter is not a dependency: run it from a venv that has
it, e.g.

    python3 -m venv /tmp/ts && .venv/bin/uv pip install --python /tmp/ts/bin/python -r \
        requirements/dev.lock tree-sitter tree-sitter-bash && /tmp/ts/bin/python bench/bench_shell_parsers.py

The prototype shares shell.py's unquoting and unwraps ``bash -c``, ``eval`` and a few wrappers; it
is for measuring only.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_tui.approvals.shell import split_command as bashlex_split  # noqa: E402
from agent_tui.approvals.shell_words import unquote  # noqa: E402

_SHELLS = {"bash", "sh", "zsh", "dash"}
_WRAPPERS = {"sudo", "env", "nohup", "time", "nice", "timeout", "xargs", "exec", "command"}


class _Unparseable(Exception):
    pass


def tree_sitter_split(line: str) -> list[str] | None:
    """The prototype: every command tree-sitter-bash finds, or None when it cannot parse."""
    try:
        found = _split(line, 0)
    except _Unparseable:
        return None
    return found or None


def _split(line: str, depth: int) -> list[str]:
    if depth > 10 or not line.strip():
        raise _Unparseable
    tree = _PARSER.parse(line.encode())
    if tree.root_node.has_error:
        raise _Unparseable
    out: list[str] = []
    _walk(tree.root_node, line.encode(), out, depth)
    return out


def _walk(node: Any, src: bytes, out: list[str], depth: int) -> None:
    kind = node.type
    if kind in ("command", "declaration_command", "unset_command"):
        words = []
        for child in node.children:
            if child.type.endswith("redirect"):
                _walk(child, src, out, depth)
                continue
            words.append(child)
            _subs(child, src, out, depth, top=True)
        raw = [src[w.start_byte : w.end_byte].decode() for w in words]
        plain = [unquote(r) or r for r in raw]
        if not raw:
            return
        name = os.path.basename(plain[0])
        if name in _SHELLS and len(plain) > 2 and plain[1].startswith("-") and "c" in plain[1]:
            out.extend(_split(unquote(raw[2]) or raw[2], depth + 1))
            return
        if name == "eval":
            out.extend(_split(" ".join(unquote(r) or r for r in raw[1:]), depth + 1))
            return
        out.append(" ".join(raw))
        if name in _WRAPPERS:
            index = 1
            while index < len(plain) and (
                plain[index].startswith("-") or (name == "env" and "=" in plain[index])
            ):
                index += 1
            index += name == "timeout"
            if index < len(plain):
                out.append(" ".join(raw[index:]))
        return
    if kind == "variable_assignment" and node.parent.type in ("program", "list", "pipeline"):
        out.append(src[node.start_byte : node.end_byte].decode())
    if kind == "heredoc_body":
        _subs(node, src, out, depth, top=False)
        return
    for child in node.children:
        _walk(child, src, out, depth)


def _subs(node: Any, src: bytes, out: list[str], depth: int, *, top: bool) -> None:
    if top and node.type in ("command_substitution", "process_substitution"):
        for child in node.children:
            _walk(child, src, out, depth)
        return
    for child in node.children:
        if child.type in ("command_substitution", "process_substitution"):
            for inner in child.children:
                _walk(inner, src, out, depth)
        else:
            _subs(child, src, out, depth, top=False)


def _oracle(splitters: dict[str, Any], count: int) -> None:
    from hypothesis import HealthCheck, given, seed, settings

    from tests.approvals import test_shell_oracle as oracle

    lines: list[str] = []

    @seed(1234)
    @settings(max_examples=count, deadline=None, suppress_health_check=list(HealthCheck))
    @given(line=oracle.lines())
    def collect(line: str) -> None:
        lines.append(line)

    collect()
    tmp = Path(tempfile.mkdtemp())
    (tmp / "bin").mkdir()
    for name in {leaf.split()[0] for leaf in oracle.LEAVES}:
        stub = tmp / "bin" / name
        stub.write_text('#!/bin/sh\necho "$(basename "$0") $*" >> "$STUB_LOG"\n')
        stub.chmod(0o755)
    log = tmp / "log"
    stats = {name: [0, 0] for name in splitters}  # asks, misses
    for line in lines:
        log.write_text("")
        env = {**os.environ, "PATH": f"{tmp / 'bin'}:/usr/bin:/bin", "STUB_LOG": str(log)}
        subprocess.run(["bash", "-c", line], env=env, capture_output=True, timeout=30)
        ran = {e.strip() for e in log.read_text().splitlines() if e.strip()}
        for name, split in splitters.items():
            seen = split(line)
            if seen is None:
                stats[name][0] += 1
            elif not ran <= {" ".join(t.split()) for t in seen}:
                stats[name][1] += 1
    print(f"oracle: {len(lines)} lines (seed 1234)")
    for name, (asks, misses) in stats.items():
        print(f"  {name:12} asks {asks:3}  misses a command bash ran {misses:3}")


def main() -> None:
    started = time.perf_counter()
    import bashlex  # noqa: F401

    print(f"import bashlex: {(time.perf_counter() - started) * 1000:.0f} ms")
    started = time.perf_counter()
    try:
        import tree_sitter
        import tree_sitter_bash
    except ImportError:
        print("tree-sitter and tree-sitter-bash are not installed here: see the docstring")
        return
    global _PARSER
    _PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    print(f"import + load tree-sitter-bash: {(time.perf_counter() - started) * 1000:.0f} ms")
    splitters = {"bashlex": bashlex_split, "tree-sitter": tree_sitter_split}
    sample = ["git status && npm test | grep x > out.txt", "for f in *.py; do ruff check $f; done",
              "bash -c 'a && b'"] * 100  # fmt: skip
    for name, split in splitters.items():
        split(sample[0])
        started = time.perf_counter()
        for line in sample:
            split(line)
        per_line = (time.perf_counter() - started) / len(sample) * 1000
        print(f"parse {name:12} {per_line:.3f} ms a line")
    _oracle(splitters, 300)
    for line in ["case x in a) rm y;; esac", "cat <<EOF\n$(rm x)\nEOF", "echo $((1 + 2))",
                 "echo `echo \\`rm n\\``", "printf -v 'a[$(rm v)]' x", "[[ $(rm x) ]]"]:  # fmt: skip
        print(
            f"{line!r}\n  bashlex     {bashlex_split(line)}\n  tree-sitter {tree_sitter_split(line)}"
        )


_PARSER: Any = None

if __name__ == "__main__":
    main()
