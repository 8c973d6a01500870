"""Import bashlex with its parser tables loaded from this package instead of built at import.

bashlex's parser.py calls its bundled ply ``yacc.yacc()`` when imported, which builds the LALR
tables of its bash grammar from scratch each time: about 60 ms, most of what a tool round that runs
a terminal command costs (bench/bench_vs_codex.py, case ``tool``). bashlex_tables.py holds those
tables, generated from bashlex by bashlex_tables_gen.py, with the SHA-256 of the files they derive
from. When the installed bashlex's files hash the same, its ``yacc.yacc`` is swapped, for the one
call parser.py makes, for a function that makes the same parser object from the stored tables;
parser.py then applies its own corrections to them as usual. When they differ (another bashlex
version), bashlex is imported as it is: slower, never different.

Nothing is read from a cache or any place a user or a workspace can write: the tables are part of
this package's source, like the code that uses them. tests/approvals/test_bashlex_fast.py checks
them against a fresh build and the parses against stock bashlex's, in separate processes.

In the app only shell.py imports bashlex, and through here (one lock): a plain ``import bashlex``
in another thread at that very moment could see the package half made. ``-X importtime`` lists
bashlex's submodules, not the package itself.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

_LOCK = threading.Lock()


def import_bashlex() -> ModuleType:
    """The ``bashlex`` package, imported the fast way when the stored tables fit it."""
    loaded = sys.modules.get("bashlex")
    if loaded is not None and hasattr(loaded, "parse"):
        return loaded
    with _LOCK:
        loaded = sys.modules.get("bashlex")
        if loaded is not None:
            # Imported meanwhile by another thread, or being imported by this one (the import
            # system's own lock then holds the others back, as for any import).
            return importlib.import_module("bashlex")
        spec = importlib.util.find_spec("bashlex")
        if spec is None or spec.loader is None or not spec.submodule_search_locations:
            return importlib.import_module("bashlex")
        folder = Path(next(iter(spec.submodule_search_locations)))
        from agent_tui.approvals import bashlex_tables
        from agent_tui.approvals.bashlex_tables_gen import source_digest

        try:
            fits = source_digest(folder) == bashlex_tables.SOURCE_SHA256
        except OSError:  # a file missing (a zipped or stripped install): let bashlex build them
            fits = False
        if not fits:
            return importlib.import_module("bashlex")
        return _import_prebuilt(spec)


def _import_prebuilt(spec: Any) -> ModuleType:
    # The steps of a normal import (importlib docs, "Implementing lazy imports"), with one pause
    # between creating the package and running its __init__ (which imports parser.py) to swap in
    # the table loader. bashlex.yacc imports nothing of bashlex but its utils.
    package = importlib.util.module_from_spec(spec)
    sys.modules["bashlex"] = package
    try:
        yacc: Any = importlib.import_module("bashlex.yacc")
        stock = yacc.yacc

        def prebuilt_yacc(*args: Any, **kwargs: Any) -> Any:
            # parser.py's call is yacc.yacc(outputdir=..., debug=False); anything else is not it.
            if args or set(kwargs) - {"outputdir", "debug"} or kwargs.get("debug"):
                return stock(*args, **kwargs)
            return _parser(yacc, sys.modules["bashlex.parser"].__dict__)

        yacc.yacc = prebuilt_yacc
        try:
            spec.loader.exec_module(package)
        finally:
            yacc.yacc = stock
    except BaseException:
        for name in [n for n in sys.modules if n == "bashlex" or n.startswith("bashlex.")]:
            del sys.modules[name]
        raise
    return package


def _parser(yacc: Any, grammar: dict[str, Any]) -> Any:
    """The ``LRParser`` that ``yacc.yacc`` returns for the grammar module ``grammar``, from the
    stored tables (the parser keeps only the tables, the rules and the error function)."""
    from agent_tui.approvals import bashlex_tables as stored

    filename = grammar.get("__file__", "")
    productions = []
    for number, (name, rhs, prec, func, line) in enumerate(stored.PRODUCTIONS):
        production = yacc.Production(number, name, rhs, prec, func, filename if func else "", line)
        production.bind(grammar)
        productions.append(production)
    tables = SimpleNamespace(
        lr_productions=productions,
        lr_action=_decode(stored.ACTION, stored.SYMBOLS),
        lr_goto=_decode(stored.GOTO, stored.SYMBOLS),
    )
    parser = yacc.LRParser(tables, grammar.get("p_error"))
    yacc.parse = parser.parse  # as yacc.yacc leaves it
    return parser


def _decode(
    rows: tuple[tuple[int, ...], ...], symbols: tuple[str, ...]
) -> dict[int, dict[str, int]]:
    return {
        state: {symbols[row[i]]: row[i + 1] for i in range(0, len(row), 2)}
        for state, row in enumerate(rows)
    }
