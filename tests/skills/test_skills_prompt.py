"""The system prompt's skills list stays within its budget and shows descriptions as text."""

from __future__ import annotations

from pathlib import Path

from agent_tui.skills.discover import MAX_DESCRIPTION, find_skills
from agent_tui.skills.prompt import MAX_NAMES_CHARS, SKILLS_BUDGET, skills_section


def _write(base: Path, name: str, description: str) -> None:
    (base / name).mkdir(parents=True)
    (base / name / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\nBody\n"
    )


def test_many_long_skills_fit_the_budget_and_every_name_is_still_given(tmp_path: Path) -> None:
    base = tmp_path / "ws" / ".agents" / "skills"
    for i in range(60):
        _write(base, f"skill-{i:02d}", "x" * MAX_DESCRIPTION)

    skills, notices = find_skills(tmp_path / "ws", home=tmp_path / "home")
    section = skills_section(skills)

    assert len(skills) == 60 and notices == []
    assert len(section) <= SKILLS_BUDGET + MAX_NAMES_CHARS + 100
    assert all(f"skill-{i:02d}" in section for i in range(60))
    assert "no room for their descriptions" in section


def test_hundreds_of_skills_are_named_up_to_a_cap(tmp_path: Path) -> None:
    base = tmp_path / "ws" / ".agents" / "skills"
    for i in range(300):
        _write(base, f"skill-number-{i:03d}", "z" * 200)

    section = skills_section(find_skills(tmp_path / "ws", home=tmp_path / "home")[0])

    assert len(section) <= SKILLS_BUDGET + MAX_NAMES_CHARS + 100
    listed = section.count("skill-number-")
    assert section.endswith(f" … and {300 - listed} more")


def test_control_characters_in_a_description_are_made_visible(tmp_path: Path) -> None:
    _write(tmp_path / "ws" / ".claude" / "skills", "tidy", "Tidy up\x1b[2J\u202eevil")

    skills, _ = find_skills(tmp_path / "ws", home=tmp_path / "home")
    section = skills_section(skills)

    assert "\x1b" not in section and "\u202e" not in section
    assert "- tidy: Tidy up" in section


def test_a_description_over_the_limit_is_skipped_with_a_notice(tmp_path: Path) -> None:
    _write(tmp_path / "ws" / ".agents" / "skills", "long", "y" * (MAX_DESCRIPTION + 1))

    skills, notices = find_skills(tmp_path / "ws", home=tmp_path / "home")

    assert skills == []
    assert notices == [
        "skill .agents/skills/long not used: its description is longer than 1024 characters"
    ]
