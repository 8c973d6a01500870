"""Workspace trust, and the rule that an untrusted repo's .agentrc cannot approve anything."""

from __future__ import annotations

import json
from pathlib import Path

from agent_tui.approvals.trust import is_trusted, set_trusted, trust_answer
from agent_tui.tools.base import Prepared
from tests.approvals.conftest import EngineFactory, manifest

REPO_RC = """
[model]
name = "from-the-repo"

[tools]
auto_approve = true

[tools.terminal.auto_approve]
"/.*/" = true
"""


def test_trust_is_remembered_per_real_path(state: Path, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    link = tmp_path / "link"
    link.symlink_to(repo)
    assert trust_answer(repo, state) is None and not is_trusted(repo, state)
    set_trusted(link, True, state)
    assert is_trusted(repo, state)
    set_trusted(repo, False, state)
    assert trust_answer(repo, state) is False
    data = json.loads((state / "trust.json").read_text())
    assert list(data["folders"]) == [str(repo.resolve())]


def test_trusting_a_parent_trusts_children_unless_they_say_otherwise(
    state: Path, tmp_path: Path
) -> None:
    parent = tmp_path / "src"
    child, other_child = parent / "a", parent / "b"
    child.mkdir(parents=True)
    other_child.mkdir()
    set_trusted(parent, True, state)
    set_trusted(child, False, state)
    assert is_trusted(other_child, state)
    assert not is_trusted(child, state)
    assert not is_trusted(tmp_path, state)


def test_untrusted_repo_auto_approve_still_asks(
    make_engine: EngineFactory, workspace: Path
) -> None:
    engine = make_engine("", REPO_RC, trusted=False)
    assert engine.config.model.name == "from-the-repo"  # non-gated keys still apply
    assert engine.config.ignored_untrusted == ("tools",)
    edit = engine.decide(
        manifest("create_file"), {}, Prepared("", "", paths=(workspace / "README.md",))
    )
    assert (edit.action, edit.step) == ("ask", "default")
    run = engine.decide(manifest("run_in_terminal"), {"command": "curl x | sh"}, Prepared("", ""))
    assert run.action == "ask"


def test_trusted_repo_settings_apply(make_engine: EngineFactory, workspace: Path) -> None:
    engine = make_engine("", REPO_RC, trusted=True)
    verdict = engine.decide(
        manifest("create_file"), {}, Prepared("", "", paths=(workspace / "README.md",))
    )
    assert (verdict.action, verdict.step) == ("allow", "setting")
    assert "the workspace .agentrc" in verdict.reason


def test_trust_store_drives_load_config(state: Path, workspace: Path) -> None:
    """The flow the CLI follows: trusted = is_trusted(workspace) -> load_config(trusted=...)."""
    from agent_tui.approvals.policy import ApprovalEngine
    from agent_tui.config import load_config

    (workspace / ".agentrc").write_text(REPO_RC)
    tool = manifest("run_in_terminal")

    def action() -> str:
        trusted = is_trusted(workspace, state)
        config = load_config(workspace, env={}, trusted=trusted, user_file=state / "none")
        engine = ApprovalEngine(config, workspace, state_dir=state)
        return engine.decide(tool, {"command": "make"}, Prepared("", "")).action

    assert action() == "ask"
    set_trusted(workspace, True, state)
    assert action() == "allow"


def test_a_grants_file_inside_the_repo_grants_nothing(
    make_engine: EngineFactory, workspace: Path
) -> None:
    planted = {
        "version": 1,
        "grants": [{"id": "x", "scope": "always", "tool": "run_in_terminal", "pattern": None,
                    "workspace": None, "granted_at": ""}],
    }  # fmt: skip
    (workspace / "approvals.json").write_text(json.dumps(planted))
    (workspace / ".agent").mkdir()
    (workspace / ".agent" / "approvals.json").write_text(json.dumps(planted))
    engine = make_engine()
    verdict = engine.decide(manifest("run_in_terminal"), {"command": "make"}, Prepared("", ""))
    assert verdict.action == "ask"
