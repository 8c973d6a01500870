"""Agent files as Claude Code writes them, read from real folders (issue 16 item 3)."""

from __future__ import annotations

from pathlib import Path

from agent_tui.subagents.loader import load_agents


def write(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.md").write_text(text)


def test_claude_code_tool_names_map_to_ours_in_both_list_forms(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws / ".claude/agents", "a", "---\nname: a\ntools: Read, Edit, Glob, Task\n---\nA\n")
    write(ws / ".agent/agents", "b", "---\nname: b\ntools:\n  - Bash\n  - WebFetch\n---\nB\n")
    write(ws / ".agent/agents", "c", "---\nname: c\ntools: []\n---\nC\n")
    agents, notices = load_agents(ws, tmp_path / "user")
    assert notices == []
    assert agents["a"].tools == (
        "read_file",
        "replace_string_in_file",
        "apply_patch",
        "file_search",
        "list_dir",
    )
    assert agents["b"].tools == (
        "run_in_terminal",
        "get_terminal_output",
        "kill_terminal",
        "fetch_webpage",
    )
    assert agents["c"].tools == ()
    assert agents["a"].prompt == "A" and agents["a"].model == "inherit"


def test_workspace_agents_win_over_user_agents_and_disabled_hides(tmp_path: Path) -> None:
    ws, user = tmp_path / "ws", tmp_path / "user"
    write(user, "rev", "---\nname: rev\ndescription: user one\n---\nU\n")
    write(user, "gone", "---\nname: gone\n---\nG\n")
    write(ws / ".agent/agents", "rev", "---\nname: rev\ndescription: workspace one\n---\nW\n")
    write(ws / ".agent/agents", "gone", "---\nname: gone\ndisabled: true\n---\nG\n")
    write(ws / ".agent/agents", "explore", "---\nname: explore\ntools: Read\n---\nMine\n")
    agents, _ = load_agents(ws, user)
    assert agents["rev"].description == "workspace one"
    assert "gone" not in agents
    assert agents["explore"].prompt == "Mine"  # the built-in can be replaced


def test_bad_names_and_links_out_are_skipped_with_a_notice(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws / ".agent/agents", "bad", "---\nname: ../../x\n---\nX\n")
    outside = tmp_path / "out.md"
    outside.write_text("---\nname: out\n---\nSECRET\n")
    (ws / ".agent/agents/out.md").symlink_to(outside)
    linked = tmp_path / "linked-dir"
    write(linked, "deep", "---\nname: deep\n---\nSECRET\n")
    (ws / ".claude").mkdir()
    (ws / ".claude/agents").symlink_to(linked)  # the whole folder leads out
    agents, notices = load_agents(ws, tmp_path / "user")
    assert set(agents) == {"explore"}
    assert len(notices) == 3
    assert all("SECRET" not in a.prompt for a in agents.values())
