"""bashlex with stored parser tables (bashlex_fast.py) parses exactly as stock bashlex does.

Each side runs in its own process, so which way bashlex was imported is never in doubt: "stock"
imports bashlex as it comes (it builds its tables), "fast" goes through shell.py's import. Whether
a process built the tables shows in the rules: ply's table construction fills each production's
``lr_items``; rules made from stored tables have none.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import bashlex

from agent_tui.approvals import bashlex_tables
from agent_tui.approvals.bashlex_fast import _decode
from agent_tui.approvals.bashlex_tables_gen import fresh_tables, render, source_digest
from tests.helpers import clean_env

TESTS = Path(__file__).resolve().parents[1]
BASHLEX_DIR = Path(bashlex.__file__).parent

# Every construct of bashlex's grammar, and ways to fail it (errors must match too).
GRAMMAR_LINES = [
    "a; b & c && d || e | f |& g",
    "if a; then b; elif c; then d; else e; fi",
    "for i in 1 2; do echo $i; done",
    "for ((i=0; i<3; i++)); do echo $i; done",
    "while a; do b; done; until c; do d; done",
    "f() { a; }; function g { b; }; function h() ( c )",
    "( a; b ) > out 2>&1 < in >> app &> both &>> both2 <> rw 3<&0 4>&- >| clob",
    "cat <<EOF\nbody $x\nEOF\necho done",
    "cat <<-'EOF'\n\tbody\n\tEOF",
    "x=1 y=$(b) z=`c` cmd \"$w\" '${v}' $((1+2)) <(d) >(e)",
    "! a | b; time c; coproc d",
    "case x in a) b;; esac",
    "select x in a b; do c; done",
    "[[ -f x ]] && (( y > 1 ))",
    "echo ${a:-b} ${#c} ${d//e/f} $'g\\n' $\"h\"",
    "a &&",
    "a | | b",
    "if a; then",
    "echo 'unterminated",
    'echo "unterminated',
    "echo $(",
    "echo `",
    ") a",
    "}",
    "fi",
    "a\n\nb\n",
    "",
    "   ",
    "\\",
    "a \\\n b",
    "cmd #comment\nnext",
]

PROBE = r"""
import json, sys
mode = sys.argv[1]
if mode == "stock":
    import bashlex
from agent_tui.approvals.shell import parse_command
parse_command("true")  # the first terminal command decided imports bashlex (unless "stock" did)
import bashlex
import bashlex.parser as parser_module

def outcome(call, line):
    try:
        return repr(call(line))
    except BaseException as exc:
        return f"{type(exc).__name__}: {exc} @ {getattr(exc, 'position', None)}"

lines = json.load(sys.stdin)
yp = parser_module.yaccparser
json.dump({
    "built_tables": any(p.lr_items for p in yp.productions),
    "bashlex_file": bashlex.__file__,
    "tables": repr((dict(yp.action), dict(yp.goto), yp.defaulted_states)),
    "rules": [(p.name, p.prod, p.prec, p.func, p.file, p.line, p.len, p.str,
               getattr(p.callable, "__qualname__", None)) for p in yp.productions],
    "parses": [outcome(bashlex.parse, line) for line in lines],
    "decisions": [outcome(parse_command, line) for line in lines],
}, sys.stdout)
"""


def corpus() -> list[str]:
    """Every string in this folder's tests (commands, and much that is not) and GRAMMAR_LINES."""
    found = set(GRAMMAR_LINES)
    for path in sorted((TESTS / "approvals").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
    return sorted(found)


def probe(mode: str, lines: list[str], pythonpath: Path | None = None) -> dict[str, Any]:
    env = clean_env({"PYTHONPATH": str(pythonpath)} if pythonpath else None)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode],
        input=json.dumps(lines),
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_stored_tables_are_a_fresh_build_of_the_installed_bashlex() -> None:
    fresh = fresh_tables()
    assert bashlex_tables.SOURCE_SHA256 == source_digest(BASHLEX_DIR), (
        "bashlex changed: run python -m agent_tui.approvals.bashlex_tables_gen"
    )
    assert _decode(bashlex_tables.ACTION, bashlex_tables.SYMBOLS) == fresh.action
    assert _decode(bashlex_tables.GOTO, bashlex_tables.SYMBOLS) == fresh.goto
    assert bashlex_tables.PRODUCTIONS == fresh.productions
    # The shipped module is exactly what the generator writes today.
    text = (Path(bashlex_tables.__file__)).read_text()
    assert text == render(fresh, source_digest(BASHLEX_DIR))


def test_tool_round_parse_does_not_build_parser_tables() -> None:
    fast = probe("fast", ["git status && echo $(ls) | wc -l"])
    assert not fast["built_tables"]
    assert fast["bashlex_file"] == bashlex.__file__


def test_fast_path_parses_the_corpus_exactly_as_stock_bashlex() -> None:
    lines = corpus()
    assert len(lines) > 1000
    stock, fast = probe("stock", lines), probe("fast", lines)
    assert stock["built_tables"] and not fast["built_tables"]
    assert fast["tables"] == stock["tables"]  # after parser.py's own corrections
    assert fast["rules"] == stock["rules"]
    assert fast["parses"] == stock["parses"]
    assert fast["decisions"] == stock["decisions"]
    # The corpus reaches both outcomes: trees and refusals.
    assert sum(p.startswith("[") for p in fast["parses"]) > 500
    assert sum(not p.startswith("[") for p in fast["parses"]) > 20


def test_tables_are_not_used_for_other_bashlex_sources(tmp_path: Path) -> None:
    """A bashlex whose grammar, tokens or table algorithm differ (another version, a patched
    install) builds its own tables: stored ones never meet sources they were not made from."""
    lines = ["a && b", "echo $(x) | y > z", "if a; then"]
    reference = probe("stock", lines)
    for name in ("parser.py", "tokenizer.py", "yacc.py"):
        site = tmp_path / name.removesuffix(".py")
        shutil.copytree(BASHLEX_DIR, site / "bashlex", ignore=shutil.ignore_patterns("__pycache__"))
        with (site / "bashlex" / name).open("a") as file:
            file.write("\n# changed\n")
        fast = probe("fast", lines, pythonpath=site)
        assert fast["bashlex_file"] == str(site / "bashlex" / "__init__.py")
        assert fast["built_tables"], name
        assert fast["parses"] == reference["parses"]
