"""grep_search, file_search and list_dir in an extra root (``--add-dir``, issue 27 item 2): a glob
or path under it searches there as in the workspace (.gitignore honoured, links out refused),
results are named by their full path, a search without one keeps to the workspace, and a folder
outside every root is refused. With ripgrep and the Python fallback."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.errors import ToolError
from agent_tui.tools.base import SessionState, ToolContext, ToolResult
from agent_tui.tools.registry import builtin_registry
from tests.helpers import run_tool


@pytest.fixture
def lib(tmp_path: Path) -> Path:
    """An extra root with a .gitignore'd file, a file in a sub-folder and a link leading out."""
    lib = tmp_path / "lib"
    (lib / "pkg").mkdir(parents=True)
    (lib / "pkg" / "core.py").write_text("def needle():\n    pass\n")
    (lib / "notes.md").write_text("needle in the notes\n")
    (lib / "build.py").write_text("needle ignored\n")
    (lib / ".gitignore").write_text("build.py\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("needle secret\n")
    (lib / "out").symlink_to(outside)
    return lib


@pytest.fixture
def ctx(tmp_path: Path, lib: Path) -> ToolContext:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "main.py").write_text("needle in the workspace\n")
    return ToolContext(workspace=ws, session=SessionState(extra_roots=[lib.resolve()]))


async def _run(name: str, ctx: ToolContext, **args: object) -> ToolResult:
    return await run_tool(builtin_registry().get(name), ctx, **args)


def _lines(result: ToolResult) -> list[str]:
    assert not result.is_error, result.content
    return result.content.splitlines()[1:]


async def test_grep_in_an_extra_root_names_files_by_full_path(
    engine: str, ctx: ToolContext, lib: Path
) -> None:
    result = await _run("grep_search", ctx, query="needle", include_pattern=f"{lib}/**")
    real = lib.resolve()
    assert _lines(result) == [
        f"{real}/notes.md:1: needle in the notes",
        f"{real}/pkg/core.py:1: def needle():",
    ]
    only_py = await _run("grep_search", ctx, query="needle", include_pattern=f"{lib}/pkg/*.py")
    assert _lines(only_py) == [f"{real}/pkg/core.py:1: def needle():"]
    folder = await _run("grep_search", ctx, query="needle", include_pattern=str(lib / "pkg"))
    assert _lines(folder) == [f"{real}/pkg/core.py:1: def needle():"]


async def test_grep_without_a_path_keeps_to_the_workspace(engine: str, ctx: ToolContext) -> None:
    assert _lines(await _run("grep_search", ctx, query="needle")) == [
        "main.py:1: needle in the workspace"
    ]


async def test_file_search_in_an_extra_root(engine: str, ctx: ToolContext, lib: Path) -> None:
    real = lib.resolve()
    result = await _run("file_search", ctx, pattern=f"{lib}/**/*.py")
    assert _lines(result) == [f"{real}/pkg/core.py"]  # build.py is .gitignore'd
    whole = await _run("file_search", ctx, pattern=str(lib))
    assert _lines(whole) == [f"{real}/.gitignore", f"{real}/notes.md", f"{real}/pkg/core.py"]
    # the path the result names opens with read_file
    opened = await _run("read_file", ctx, path=_lines(result)[0])
    assert "def needle" in opened.content


async def test_a_relative_glob_through_dotdot_reaches_the_extra_root(
    engine: str, ctx: ToolContext, lib: Path
) -> None:
    result = await _run("file_search", ctx, pattern="../lib/*.md")
    assert _lines(result) == [f"{lib.resolve()}/notes.md"]


@pytest.mark.parametrize("name", ["grep_search", "file_search"])
async def test_a_link_out_of_the_extra_root_is_refused(
    engine: str, ctx: ToolContext, lib: Path, name: str
) -> None:
    key = "include_pattern" if name == "grep_search" else "pattern"
    args = {key: f"{lib}/out/*.py", **({"query": "needle"} if name == "grep_search" else {})}
    with pytest.raises(
        ToolError,
        match="out is a symbolic link .* that leads to .*outside.* outside the workspace .* and its extra roots",
    ):
        await _run(name, ctx, **args)
    # and a search of the whole root does not follow the link
    whole = await _run("grep_search", ctx, query="secret", include_pattern=str(lib))
    assert "secret" not in "\n".join(_lines(whole)) and whole.data["count"] == 0


@pytest.mark.parametrize("name", ["grep_search", "file_search"])
async def test_a_folder_outside_every_root_is_refused(
    ctx: ToolContext, tmp_path: Path, name: str
) -> None:
    key = "include_pattern" if name == "grep_search" else "pattern"
    args = {
        key: f"{tmp_path / 'outside'}/*.py",
        **({"query": "x"} if name == "grep_search" else {}),
    }
    with pytest.raises(ToolError, match="outside the workspace .* and its extra roots"):
        await _run(name, ctx, **args)
    ctx.session.extra_roots.clear()  # without the extra root, its folder is outside too
    with pytest.raises(ToolError, match="outside the workspace"):
        await _run(name, ctx, **{**args, key: "../lib/*"})


def test_the_card_and_the_approval_see_the_extra_root(ctx: ToolContext, lib: Path) -> None:
    prepared = (
        builtin_registry()
        .get("grep_search")
        .prepare({"query": "x", "include_pattern": f"{lib}/*.py"}, ctx)
    )
    assert prepared.paths == (lib.resolve(),)  # the approval engine checks this folder
    assert prepared.invocation_message == f"Searching for `x` in `{lib.resolve()}/*.py`"


async def test_list_dir_of_an_extra_root(ctx: ToolContext, lib: Path) -> None:
    result = await _run("list_dir", ctx, path=str(lib / "pkg"))
    assert result.content.splitlines()[1:] == ["core.py  23 B"]
