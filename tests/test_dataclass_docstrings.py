"""Every dataclass in agent_tui has a docstring: one without costs start-up time (issue 23 item 3).

``@dataclass`` gives a class with no docstring one made from its signature
(``"Usage(input_tokens: int = 0, ...)"``), calling ``inspect.signature`` while the module is
imported: ~0.1 ms a class, 4.7 ms of every ``agent-tui -p hello`` when 46 of the classes it
imports had none. A one-line docstring saying what the class is costs nothing.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def undocumented_dataclasses(source: str) -> list[str]:
    """``name:line`` of each class decorated with a ``dataclass`` that has no docstring."""
    missing = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef) or ast.get_docstring(node) is not None:
            continue
        if any("dataclass" in ast.unparse(d) for d in node.decorator_list):
            missing.append(f"{node.name}:{node.lineno}")
    return missing


def test_the_check_finds_each_form_of_the_decorator() -> None:
    source = (
        "@dataclass\nclass A:\n    x: int\n\n"
        "@dataclass(frozen=True)\nclass B:\n    x: int\n\n"
        "@dataclasses.dataclass(slots=True)\nclass C:\n    x: int\n\n"
        '@dataclass\nclass D:\n    """Documented."""\n\n    x: int\n\n'
        "class E:\n    x: int\n"
    )
    assert undocumented_dataclasses(source) == ["A:2", "B:6", "C:10"]


def test_every_dataclass_in_agent_tui_has_a_docstring() -> None:
    missing = [
        f"{path.relative_to(ROOT)}:{found}"
        for path in sorted((ROOT / "agent_tui").rglob("*.py"))
        for found in undocumented_dataclasses(path.read_text(encoding="utf-8"))
    ]
    assert not missing, (
        "dataclasses without a docstring (dataclasses builds one from inspect.signature at "
        "import, a start-up cost): give each a one-line docstring saying what it is:\n"
        + "\n".join(missing)
    )
