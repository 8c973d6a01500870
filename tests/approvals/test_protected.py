"""The one list of protected paths (issue 22 item 8): names at every level, globs and concrete
paths for a sandbox, configured instructions files."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.approvals.protected import (
    protected_glob,
    protected_globs,
    protected_match,
    protected_paths,
)
from agent_tui.approvals.rules import glob_matches


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (".env", ".env*"),
        (".env.local", ".env*"),
        ("config/.env.production", ".env*"),
        (".git/config", ".git/**"),
        ("vendor/lib/.git/hooks/post-checkout", ".git/**"),
        (".agentrc", ".agentrc"),
        ("sub/.agentrc", ".agentrc"),
        ("src/env.py", None),
        ("src/.environment_notes/x", ".env*"),
        (".gitignore", None),
        ("docs/agentrc.md", None),
        (".mcp.json", ".mcp.json"),
        ("pkg/.mcp.json", ".mcp.json"),
        (".MCP.JSON", ".mcp.json"),
        (".vscode/settings.json", ".vscode/**"),
        (".VSCode/tasks.json", ".vscode/**"),
        (".agent/prompts/review.prompt.md", ".agent/**"),
        (".claude/settings.local.json", ".claude/**"),
        ("sub/.claude", ".claude/**"),
        (".mcp\u200c.json", ".mcp.json"),
        (".mcp.json. ", ".mcp.json"),
        (".git./config", ".git/**"),
        ("mcp.json", None),
        ("src/.mcp.json.bak", None),
        # issue 22 item 8: every folder and file the app reads instructions, skills, agents,
        # prompts or hooks from
        (".agents/skills/deploy/SKILL.md", ".agents/**"),
        (".AGENTS/skills/x/SKILL.md", ".agents/**"),
        (".agents", ".agents/**"),
        (".claude/skills/x/SKILL.md", ".claude/**"),
        (".claude/agents/reviewer.md", ".claude/**"),
        (".agent/agents/reviewer.md", ".agent/**"),
        ("AGENTS.md", "AGENTS.md"),
        ("agents.md", "AGENTS.md"),
        ("pkg/AGENTS.md", "AGENTS.md"),
        ("CLAUDE.md", "CLAUDE.md"),
        ("src/lib/claude.MD", "CLAUDE.md"),
        (".github/copilot-instructions.md", ".github/copilot-instructions.md"),
        ("pkg/.github/Copilot-Instructions.md", ".github/copilot-instructions.md"),
        (".github/workflows/ci.yml", None),
        ("copilot-instructions.md", None),
        ("docs/AGENTS.md.orig", None),
        ("AGENTS", None),
    ],
)
def test_protected_names_at_any_level(path: str, expected: str | None) -> None:
    assert protected_match(path) == expected


def test_configured_instructions_files_are_protected() -> None:
    extra = ("AI.md", "docs/agent-notes.md")
    assert protected_match("AI.md", extra) == "AI.md"
    assert protected_match("pkg/ai.md", extra) == "AI.md"  # read in subfolders too
    assert protected_match("docs/agent-notes.md", extra) == "docs/agent-notes.md"
    assert protected_match("pkg/docs/agent-notes.md", extra) is None  # read at the root only
    assert protected_match("AI.md") is None


@pytest.mark.parametrize(
    "path",
    [
        ".agents/skills/x/SKILL.md",
        ".agents",
        "pkg/.vscode/tasks.json",
        ".git",
        ".git/config",
        "AGENTS.md",
        "sub/CLAUDE.md",
        ".github/copilot-instructions.md",
        ".env.local",
        "config/.env",
        ".mcp.json",
        "pkg/.agentrc",
    ],
)
def test_globs_cover_what_the_matcher_protects(path: str) -> None:
    """A sandbox given protected_globs() protects the same paths as the approval policy."""
    assert protected_match(path) is not None
    assert any(glob_matches(glob, path) for glob in protected_globs()), path


def test_globs_leave_ordinary_paths_alone() -> None:
    for path in ("src/main.py", ".github/workflows/ci.yml", "docs/agents.txt", ".gitignore"):
        assert not any(glob_matches(glob, path) for glob in protected_globs()), path


def test_protected_paths_lists_existing_ones_at_any_depth_and_missing_top_level_names(
    tmp_path: Path,
) -> None:
    for rel in (".agents/skills/x/SKILL.md", "pkg/.vscode/tasks.json", "pkg/AGENTS.md",
                ".git/config", "src/main.py", ".env.local", "pkg/.github/copilot-instructions.md"):  # fmt: skip
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x")

    paths = {p.relative_to(tmp_path).as_posix() for p in protected_paths(tmp_path)}

    assert {".agents", "pkg/.vscode", "pkg/AGENTS.md", ".git", ".env.local",
            "pkg/.github/copilot-instructions.md"} <= paths  # fmt: skip
    assert ".agents/skills" not in paths  # a protected folder is listed whole
    missing = {".claude", ".agent", ".vscode", "AGENTS.md", "CLAUDE.md", ".mcp.json", ".agentrc",
               ".github/copilot-instructions.md"}  # fmt: skip
    assert missing <= paths  # listed, so a sandbox keeps them from being created
    assert "src/main.py" not in paths and "src" not in paths


def test_a_root_link_to_a_folder_makes_its_files_protected_through_the_link(
    tmp_path: Path,
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / ".github").symlink_to("docs")
    (tmp_path / "skills-real").mkdir()
    (tmp_path / ".agents").symlink_to("skills-real")
    root = tmp_path.resolve()

    assert protected_glob(root, root / "docs/copilot-instructions.md") == (
        ".github/copilot-instructions.md"
    )
    assert protected_glob(root, root / "skills-real/x/SKILL.md") == ".agents/**"
    assert protected_glob(root, root / "docs/other.md") is None


def test_the_sandbox_mounts_the_same_list_with_git_narrowed() -> None:
    """One list: the sandbox keeps read-only what the approvals ask for, except that commands may
    still write git's objects and refs (git commit)."""
    from agent_tui.approvals.protected import sandbox_protected_names
    from agent_tui.sandbox.policy import PROTECTED_NAMES

    assert PROTECTED_NAMES == sandbox_protected_names()
    assert {".git/config", ".git/hooks", ".agents", "AGENTS.md", "CLAUDE.md", ".mcp.json"} <= set(
        PROTECTED_NAMES
    )
    assert ".git" not in PROTECTED_NAMES
    for name in PROTECTED_NAMES:
        assert protected_match(name) is not None, name
