"""``agent/totals.py``: the lines a diff changes, read from the edit tools' own diffs, and money
priced per model."""

from __future__ import annotations

import pytest

from agent_tui.agent.totals import Spent, diff_counts
from agent_tui.providers.base import Usage
from agent_tui.tools.fs_util import unified_diff


def test_a_removed_line_starting_with_dashes_is_not_taken_for_a_header() -> None:
    old = "keep\n-- a SQL comment\n++counter;\nend"
    new = "keep\n--- now a rule\nadded\nend\n"
    diff = unified_diff(old, new, "q.sql")
    assert "\\ No newline at end of file" in diff
    # Removed: the comment, "++counter;", "end" (no newline); added: the rule, "added", "end".
    assert diff_counts(diff) == (3, 3)


def test_a_new_file_and_several_files_and_hunks_add_up() -> None:
    created = unified_diff(None, "a\nb\nc\n", "new.txt")
    assert diff_counts(created) == (3, 0)
    many = "\n".join(str(i) for i in range(40)) + "\n"
    changed = many.replace("3\n", "three\n", 1).replace("30\n", "", 1)
    both = created + unified_diff(many, changed, "n.txt")
    assert diff_counts(both) == (4, 2)
    assert diff_counts("") == (0, 0)
    assert diff_counts("not a diff\n+looks added\n") == (0, 0)


def test_each_model_is_priced_at_its_own_price_and_an_unpriced_one_leaves_no_figure() -> None:
    spent = Spent(Usage(1_000_000, 0), 0.5)  # an earlier run's, as its file says
    spent.add("claude-haiku-4-5", Usage(1_000_000, 100_000))  # $1 + $0.50
    spent.add("claude-sonnet-4", Usage(0, 100_000))  # $1.50
    assert spent.usd() == pytest.approx(0.5 + 1.5 + 1.5)
    assert spent.usage == Usage(2_000_000, 200_000)
    spent.add("local-model", Usage(10, 1))
    assert spent.usd() is None
    assert Spent(Usage(5, 5), None).usd() is None  # an earlier run spent on an unpriced model
    assert Spent().usd() == 0.0
