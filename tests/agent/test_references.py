"""Each #reference kind on real files and real git repos, and the errors a user can fix."""

from __future__ import annotations

import base64
import shutil
import subprocess
from pathlib import Path

import pytest

from agent_tui.agent.references import (
    MAX_COMMAND_OUTPUT_CHARS,
    ReferenceContext,
    builtin_reference_registry,
    find_tokens,
    mcp_reference_kind,
    parse_file_arg,
    quote_path,
)
from agent_tui.errors import UsageError
from agent_tui.tools.base import SessionState, ToolContext
from tests.helpers import missing, new_workspace


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return new_workspace(tmp_path)


@pytest.fixture
def ctx(workspace: Path) -> ReferenceContext:
    session = SessionState()
    return ReferenceContext(workspace, session, ToolContext(workspace, session))


async def resolve(ctx: ReferenceContext, kind: str, arg: str = ""):  # type: ignore[no-untyped-def]
    found = builtin_reference_registry().get(kind)
    assert found is not None
    return await found.resolve(ctx, arg)


def git(workspace: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=workspace,
        check=True,
        capture_output=True,
    )


# --- parsing -----------------------------------------------------------------------------------


def test_tokens_are_found_with_their_arguments_and_without_trailing_punctuation() -> None:
    text = "see #file:src/app.py:10-40, then (#changes) and #terminalLastCommand."

    tokens = find_tokens(text)

    assert [(t.name, t.arg) for t in tokens] == [
        ("file", "src/app.py:10-40"),
        ("changes", ""),
        ("terminalLastCommand", ""),
    ]
    assert text[tokens[0].start : tokens[0].end] == "#file:src/app.py:10-40"


def test_hash_inside_a_word_is_not_a_token() -> None:
    assert find_tokens("C# and issue#12 and a#file:x") == []


@pytest.mark.parametrize(
    ("arg", "expected"),
    [
        ("a.py", ("a.py", None, None)),
        ("a.py:10-40", ("a.py", 10, 40)),
        ("a.py:7", ("a.py", 7, 7)),
        ("src/a.py:3-9.", ("src/a.py", 3, 9)),
    ],
)
def test_file_argument_parsing(arg: str, expected: tuple[str, int | None, int | None]) -> None:
    assert parse_file_arg(arg) == expected


@pytest.mark.parametrize("arg", ["", "a.py:40-10", "a.py:0-3"])
def test_bad_file_arguments_are_usage_errors(arg: str) -> None:
    with pytest.raises(UsageError):
        parse_file_arg(arg)


def test_a_quoted_path_keeps_its_spaces_its_range_and_drops_sentence_punctuation() -> None:
    text = 'read #file:"docs/my notes.txt":10-40, (#file:\'a b.txt\') and #file:"c d.md".'

    tokens = find_tokens(text)

    assert [t.arg for t in tokens] == ['"docs/my notes.txt":10-40', "'a b.txt'", '"c d.md".']
    assert text[tokens[0].start : tokens[0].end] == '#file:"docs/my notes.txt":10-40'
    assert text[tokens[1].start : tokens[1].end] == "#file:'a b.txt'"
    assert [parse_file_arg(t.arg) for t in tokens] == [
        ("docs/my notes.txt", 10, 40),
        ("a b.txt", None, None),
        ("c d.md", None, None),
    ]


def test_a_reference_word_inside_a_quoted_path_is_not_a_token() -> None:
    assert [(t.name, t.arg) for t in find_tokens('#file:"log #changes.txt" ok')] == [
        ("file", '"log #changes.txt"')
    ]


@pytest.mark.parametrize(
    ("arg", "expected"),
    [
        ('"my notes.txt"', ("my notes.txt", None, None)),
        ('"my notes.txt":7', ("my notes.txt", 7, 7)),
        ('"my notes.txt":3-9.', ("my notes.txt", 3, 9)),
        ("'it\"s here.txt'", ('it"s here.txt', None, None)),
        ('"v2:3"', ("v2:3", None, None)),  # quoted, ":3" is part of the name, not a range
    ],
)
def test_quoted_file_argument_parsing(
    arg: str, expected: tuple[str, int | None, int | None]
) -> None:
    assert parse_file_arg(arg) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('see #file:"a b.txt please', r'#file:"a: the opening " is never closed.*#file:"docs/my'),
        ("see #file:'a b.txt", r"#file:'a: the opening ' is never closed"),
        ('see #file:"" now', "#file needs a path"),
        ('see #file:"a b.txt"x', "only a line range may follow a quoted path"),
        ('see #file:"a b.txt":40-10', "1-based and ascending"),
    ],
)
def test_bad_quoted_file_arguments_are_usage_errors(text: str, message: str) -> None:
    (token,) = find_tokens(text)
    with pytest.raises(UsageError, match=message):
        parse_file_arg(token.arg)


@pytest.mark.parametrize(
    "path",
    ["my notes.txt", "notes!", "v2:3", "v2:3-4", "'quoted", 'say "hi" now.txt', "a\tb.txt"],
)
def test_quote_path_makes_awkward_paths_read_back_whole(path: str) -> None:
    written = quote_path(path)

    (token,) = find_tokens(f"see #file:{written}, thanks")

    assert written[0] in "\"'"
    assert parse_file_arg(token.arg) == (path, None, None)


@pytest.mark.parametrize("path", ["src/app.py", "f(x).py", "notes.", "a-b_c.d"])
def test_quote_path_leaves_plain_paths_alone(path: str) -> None:
    assert quote_path(path) == path


# --- #file -------------------------------------------------------------------------------------


async def test_a_whole_file_is_inlined_as_it_is(ctx: ReferenceContext, workspace: Path) -> None:
    (workspace / "src").mkdir()
    path = workspace / "src" / "app.py"
    path.write_text("import os\n\nprint(os.getcwd())\n", encoding="utf-8")

    ref = await resolve(ctx, "file", "src/app.py")

    assert ref.kind == "file" and ref.label == "#file:src/app.py"
    assert ref.text.splitlines() == [
        "src/app.py (3 lines)",
        "import os",
        "",
        "print(os.getcwd())",
    ]  # no number-and-tab prefixes: small models copied them into the code they wrote
    assert ctx.session.changed_since_seen(path.resolve()) is False  # the model has now seen it


async def test_file_range_inlines_only_those_lines_and_focuses_them(
    ctx: ReferenceContext, workspace: Path
) -> None:
    (workspace / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 101)))

    ref = await resolve(ctx, "file", "big.txt:10-12")

    assert ref.label == "#file:big.txt:10-12"
    lines = ref.text.splitlines()
    assert lines == ["big.txt, lines 10-12 of 100", "10\tline 10", "11\tline 11", "12\tline 12"]
    assert ref.focus_lines == (2, 4)


async def test_file_range_past_the_end_is_clamped_or_refused(
    ctx: ReferenceContext, workspace: Path
) -> None:
    (workspace / "short.txt").write_text("a\nb\nc\n")

    clamped = await resolve(ctx, "file", "short.txt:2-50")
    assert clamped.label == "#file:short.txt:2-3"
    with pytest.raises(UsageError, match="only 3 lines"):
        await resolve(ctx, "file", "short.txt:9-12")


async def test_a_sentence_ending_dot_is_not_part_of_the_path(
    ctx: ReferenceContext, workspace: Path
) -> None:
    (workspace / "app.py").write_text("x = 1\n")

    ref = await resolve(ctx, "file", "app.py.")

    assert ref.label == "#file:app.py"


async def test_a_quoted_path_with_spaces_is_attached_and_labelled_quoted(
    ctx: ReferenceContext, workspace: Path
) -> None:
    (workspace / "my docs").mkdir()
    (workspace / "my docs" / "release notes.txt").write_text("one\ntwo\nthree\n")

    whole = await resolve(ctx, "file", '"my docs/release notes.txt"')
    ranged = await resolve(ctx, "file", "'my docs/release notes.txt':2-3")

    assert whole.label == '#file:"my docs/release notes.txt"'
    assert (
        whole.text.splitlines()[0] == "my docs/release notes.txt (3 lines)"
    )  # unquoted for the model
    assert ranged.label == '#file:"my docs/release notes.txt":2-3'
    assert ranged.text.splitlines()[1:] == ["2\ttwo", "3\tthree"]
    # The label is valid input: pasted back, it names the same file and lines.
    (token,) = find_tokens(ranged.label)
    assert parse_file_arg(token.arg) == ("my docs/release notes.txt", 2, 3)


async def test_an_unquoted_path_with_a_space_attaches_only_the_first_word(
    ctx: ReferenceContext, workspace: Path
) -> None:
    (workspace / "my notes.txt").write_text("x\n")

    (token,) = find_tokens("#file:my notes.txt")

    assert token.arg == "my"
    with pytest.raises(UsageError, match="no such file"):
        await resolve(ctx, "file", token.arg)


async def test_missing_file_is_a_usage_error(ctx: ReferenceContext) -> None:
    with pytest.raises(UsageError, match="no such file"):
        await resolve(ctx, "file", "missing.py")


@pytest.mark.parametrize("arg", ["../secret.txt", "/etc/hostname"])
async def test_files_outside_the_workspace_are_refused(
    ctx: ReferenceContext, workspace: Path, arg: str
) -> None:
    (workspace.parent / "secret.txt").write_text("s3cret")

    with pytest.raises(UsageError, match="outside the workspace"):
        await resolve(ctx, "file", arg)


async def test_a_symlink_pointing_outside_the_workspace_is_refused(
    ctx: ReferenceContext, workspace: Path
) -> None:
    (workspace.parent / "secret.txt").write_text("s3cret")
    (workspace / "link.txt").symlink_to(workspace.parent / "secret.txt")

    with pytest.raises(UsageError, match="outside the workspace"):
        await resolve(ctx, "file", "link.txt")


async def test_folders_and_binary_files_are_refused(ctx: ReferenceContext, workspace: Path) -> None:
    (workspace / "pkg").mkdir()
    (workspace / "prog.bin").write_bytes(b"\x7fELF\x02\x01\x01\0\0\0\0\0")
    # Named like an image, but not one: refused as binary, never sent as an image.
    (workspace / "fake.png").write_bytes(b"#!/bin/sh\0rm -rf ~\n")

    with pytest.raises(UsageError, match="folder"):
        await resolve(ctx, "file", "pkg")
    for name in ("prog.bin", "fake.png"):
        with pytest.raises(UsageError, match="binary"):
            await resolve(ctx, "file", name)


async def test_image_files_attach_as_images(ctx: ReferenceContext, workspace: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + b"\0" * 40
    (workspace / "shot.png").write_bytes(png)
    (workspace / "photo.txt").write_bytes(b"\xff\xd8\xff\xe0" + b"\0" * 40)  # a JPEG by content
    (workspace / "big.gif").write_bytes(b"GIF89a" + b"\0" * (5 * 1024 * 1024))

    reference = await resolve(ctx, "file", "shot.png")
    assert reference.kind == "image" and reference.text == "" and reference.image is not None
    assert reference.image.media_type == "image/png"
    assert base64.b64decode(reference.image.data) == png
    photo = await resolve(ctx, "file", "photo.txt")
    assert photo.image is not None and photo.image.media_type == "image/jpeg"
    with pytest.raises(UsageError, match="limited to 5 MB"):
        await resolve(ctx, "file", "big.gif")


# --- #changes ----------------------------------------------------------------------------------


async def test_changes_shows_staged_unstaged_and_untracked(
    ctx: ReferenceContext, workspace: Path
) -> None:
    git(workspace, "init", "-q")
    (workspace / "a.txt").write_text("one\n")
    (workspace / "b.txt").write_text("bee\n")
    git(workspace, "add", ".")
    git(workspace, "commit", "-q", "-m", "init")
    (workspace / "a.txt").write_text("one\ntwo\n")  # unstaged
    (workspace / "b.txt").write_text("bee\nbuzz\n")
    git(workspace, "add", "b.txt")  # staged
    (workspace / "new.txt").write_text("fresh\n")  # untracked

    ref = await resolve(ctx, "changes")

    assert ref.label == "#changes"
    assert "+two" in ref.text and "+buzz" in ref.text
    assert "Untracked files" in ref.text and "new.txt" in ref.text


async def test_changes_in_a_clean_repo_says_so(ctx: ReferenceContext, workspace: Path) -> None:
    git(workspace, "init", "-q")
    (workspace / "a.txt").write_text("one\n")
    git(workspace, "add", ".")
    git(workspace, "commit", "-q", "-m", "init")

    ref = await resolve(ctx, "changes")

    assert "No changes" in ref.text


async def test_changes_in_a_repo_without_commits_diffs_the_index(
    ctx: ReferenceContext, workspace: Path
) -> None:
    git(workspace, "init", "-q")
    (workspace / "a.txt").write_text("first\n")
    git(workspace, "add", "a.txt")

    ref = await resolve(ctx, "changes")

    assert "+first" in ref.text


async def test_changes_outside_a_repo_is_a_clear_error(
    ctx: ReferenceContext, monkeypatch: pytest.MonkeyPatch, workspace: Path
) -> None:
    # Keep git from finding a repository above tmp_path.
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(workspace.parent))

    with pytest.raises(UsageError, match="needs a git repository"):
        await resolve(ctx, "changes")


# --- #terminalLastCommand ----------------------------------------------------------------------


async def test_last_command_includes_command_exit_code_and_output(ctx: ReferenceContext) -> None:
    ctx.session.last_command = {"command": "make", "output": "error: no rule", "exit_code": 2}

    ref = await resolve(ctx, "terminalLastCommand")

    assert ref.text.splitlines() == ["$ make", "exit code: 2", "output:", "error: no rule"]
    assert ref.focus_lines is not None and ref.focus_lines[1] == 4


async def test_last_command_keeps_the_end_of_a_huge_output(ctx: ReferenceContext) -> None:
    output = "noise\n" * (MAX_COMMAND_OUTPUT_CHARS // 3) + "FATAL: the real cause"
    ctx.session.last_command = {"command": "build", "output": output, "exit_code": None}

    ref = await resolve(ctx, "terminalLastCommand")

    assert ref.text.endswith("FATAL: the real cause")
    assert "still running" in ref.text
    assert len(ref.text) < MAX_COMMAND_OUTPUT_CHARS + 200


async def test_no_command_yet_is_a_clear_error(ctx: ReferenceContext) -> None:
    with pytest.raises(UsageError, match="no command has run in this session yet"):
        await resolve(ctx, "terminalLastCommand")


def test_template_parameters_after_a_uri_template_belong_to_the_token() -> None:
    text = "read #mcp:srv/demo://text/{id} id=7 now, and #mcp:srv/plain://x y=1"

    tokens = find_tokens(text)

    assert [t.arg for t in tokens] == ["srv/demo://text/{id} id=7", "srv/plain://x"]


# --- #mcp (registered by the MCP integration through the same registry call) ---------------------

EVERYTHING_JS = (
    Path(__file__).resolve().parents[2]
    / "tests/.mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
)


async def test_mcp_resource_reference_over_a_real_server(
    ctx: ReferenceContext, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("node") is None or not EVERYTHING_JS.is_file():
        missing("server-everything is not installed: run scripts/install-test-servers.sh")
    from agent_tui.mcp.config import load_servers
    from agent_tui.mcp.manager import McpManager
    from agent_tui.tools.registry import ToolRegistry

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("AGENT_TUI_STATE_DIR", str(tmp_path / "state"))
    servers = {"everything": {"command": "node", "args": [str(EVERYTHING_JS), "stdio"]}}
    manager = McpManager(
        load_servers({"servers": servers}, workspace, trusted=False),
        tools=ToolRegistry(),
        workspace=workspace,
    )
    registry = builtin_reference_registry()
    registry.register(mcp_reference_kind(manager))
    manager.start_all()
    try:
        await manager.wait_for(
            lambda: manager.servers["everything"].status in ("running", "failed")
        )
        kind = registry.get("mcp")
        assert kind is not None
        (token,) = find_tokens(
            "see #mcp:everything/demo://resource/dynamic/text/{resourceId} resourceId=7"
        )

        ref = await kind.resolve(ctx, token.arg)

        assert ref.kind == "mcp"
        assert ref.label == "#mcp:everything/demo://resource/dynamic/text/7"
        assert "7" in ref.text
    finally:
        await manager.aclose()


def test_no_references_inside_fenced_code_or_piped_stdin() -> None:
    text = (
        "explain #changes\n```sh\ngit diff #changes\n```\n"
        "<stdin>\ncommit 1: #terminalLastCommand and #file:x.py\n</stdin>"
    )

    assert [t.name for t in find_tokens(text)] == ["changes"]


async def test_an_empty_file_is_attached_as_empty(ctx: ReferenceContext, workspace: Path) -> None:
    (workspace / "empty.py").write_text("")

    whole = await resolve(ctx, "file", "empty.py")
    ranged = await resolve(ctx, "file", "empty.py:1-5")

    assert whole.text == ranged.text == "empty.py (empty file)"
    assert ranged.label == "#file:empty.py"
