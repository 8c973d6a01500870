"""The 23 Codex apply_patch scenarios, run through the ApplyPatchTool class (prepare + invoke).

The fixtures are copied from Codex into tests/fixtures/codex-apply-patch/ (source, licence: its
README): each scenario has ``input/`` (may be absent), ``patch.txt`` and ``expected/`` — the whole
tree afterwards. Our tool is all-or-nothing, so for 015 the expected tree is the input tree.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_tui.errors import ToolError
from agent_tui.tools.apply_patch import ApplyPatchTool
from agent_tui.tools.base import SessionState, ToolContext
from agent_tui.tools.registry import builtin_registry

SCENARIOS = Path(__file__).resolve().parents[1] / "fixtures" / "codex-apply-patch" / "scenarios"
ALL_OR_NOTHING = {"015_failure_after_partial_success_leaves_changes"}
# Scenarios that must fail, and a word their error must contain.
EXPECTED_ERRORS = {
    "005_rejects_empty_patch": "no file operations",
    "006_rejects_missing_context": "modify.txt, hunk 1",
    "007_rejects_missing_file_delete": "missing.txt: it does not exist",
    "008_rejects_empty_update_hunk": "has no hunks",
    "009_requires_existing_file_for_update": "missing.txt: it does not exist",
    "012_delete_directory_fails": "is a directory",
    "013_rejects_invalid_hunk_header": "not a valid file header",
    "015_failure_after_partial_success_leaves_changes": "missing.txt",
}

names = sorted(p.name for p in SCENARIOS.iterdir() if p.is_dir()) if SCENARIOS.is_dir() else []


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (relative POSIX path -> bytes)."""
    if not root.is_dir():
        return {}
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_all_23_scenarios_are_present() -> None:
    assert len(names) == 23, f"expected 23 scenarios in {SCENARIOS}, found {len(names)}"


@pytest.mark.parametrize("name", names)
async def test_scenario(name: str, tmp_path: Path) -> None:
    scenario = SCENARIOS / name
    workspace = tmp_path / "ws"
    if (scenario / "input").is_dir():
        shutil.copytree(scenario / "input", workspace)
    else:
        workspace.mkdir()
    before = tree(workspace)
    tool = builtin_registry().get("apply_patch")
    assert isinstance(tool, ApplyPatchTool)
    ctx = ToolContext(workspace=workspace, session=SessionState())
    args = {"input": (scenario / "patch.txt").read_bytes().decode("utf-8")}

    if name in EXPECTED_ERRORS:
        # Either step may refuse (prepare validates the whole patch); both must.
        with pytest.raises(ToolError) as prepared_error:
            tool.prepare(args, ctx)
        with pytest.raises(ToolError) as invoked_error:
            await tool.invoke(args, ctx)
        for error in (prepared_error.value, invoked_error.value):
            assert EXPECTED_ERRORS[name] in str(error), str(error)
    else:
        prepared = tool.prepare(args, ctx)
        assert prepared.confirmation is not None and "```diff" in prepared.confirmation.message
        result = await tool.invoke(args, ctx)
        assert not result.is_error and result.content.startswith("Patch applied")

    expected = before if name in ALL_OR_NOTHING else tree(scenario / "expected")
    assert tree(workspace) == expected
    # No staging files left behind.
    assert not [p for p in workspace.rglob(".*.tmp")]
