"""Sessions by name (``/rename`` writes a ``meta`` line, the last one wins; the first prompt's
first line is the title until then), found by name or unique prefix, and forked: a copy under a
new id, the original's bytes untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_tui.sessions import SessionStore, load
from agent_tui.sessions.fork import fork_session
from agent_tui.sessions.store import AmbiguousSession, find_session
from agent_tui.sessions.writer import NAME_CHARS, TITLE_CHARS
from tests.sessions.test_timeline import Log


def _named(tmp_path: Path, prompt: str, *names: str) -> Log:
    log = Log(tmp_path)
    log.turn(prompt)
    for name in names:
        log.recorder.writer.rename(name)
    log.recorder.close()
    return log


def test_the_first_prompt_titles_a_session_until_it_is_renamed(tmp_path: Path) -> None:
    log = _named(tmp_path, "\n\n  Fix the parser\nit breaks on tabs " + "x" * 200)
    store = SessionStore(tmp_path / "state", tmp_path)
    [info] = store.list()
    assert (info.title, info.name, info.label) == ("Fix the parser", "", "Fix the parser")
    log.recorder.writer.rename("parser work")
    log.recorder.writer.rename("parser  fixes\n")  # the last name wins
    [info] = store.list()
    assert (info.name, info.label) == ("parser fixes", "parser fixes")
    assert load(info.path).name == "parser fixes"
    long = _named(tmp_path / "b", "y" * 500)
    assert len(SessionStore(tmp_path / "b" / "state", tmp_path / "b").list()[0].title) == (
        TITLE_CHARS
    )
    assert long.recorder.writer.title.endswith("…")


def test_hostile_names_are_kept_on_one_line_and_capped(tmp_path: Path) -> None:
    _named(tmp_path, "p", "evil\x1b]0;title\x07\nsecond line\r\n" + "z" * 10_000)
    [info] = SessionStore(tmp_path / "state", tmp_path).list()
    assert "\n" not in info.name and len(info.name) == NAME_CHARS
    assert info.name.startswith("evil\x1b]0;title\x07 second line")  # kept; shown through one_line


def test_a_name_before_the_first_prompt_goes_in_the_header(tmp_path: Path) -> None:
    log = Log(tmp_path)
    log.recorder.writer.rename("planned")
    log.turn("the first prompt")
    log.recorder.close()
    [info] = SessionStore(tmp_path / "state", tmp_path).list()
    assert (info.name, info.title) == ("planned", "the first prompt")


def test_a_torn_last_meta_line_leaves_the_name_before_it(tmp_path: Path) -> None:
    log = _named(tmp_path, "p", "good name")
    with log.recorder.writer.path.open("ab") as fh:
        fh.write(b'{"type":"meta","name":"torn')
    [info] = SessionStore(tmp_path / "state", tmp_path).list()
    assert info.name == "good name"


def test_find_by_id_name_or_unique_prefix(tmp_path: Path) -> None:
    one = _named(tmp_path, "p1", "alpha one").recorder.session_id
    two = _named(tmp_path, "p2", "alpha two").recorder.session_id
    store = SessionStore(tmp_path / "state", tmp_path)
    assert find_session(store, one).id == one  # type: ignore[union-attr]
    assert find_session(store, "Alpha Two").id == two  # type: ignore[union-attr]
    assert find_session(store, "alpha o").id == one  # type: ignore[union-attr]
    assert find_session(store, "beta") is None
    with pytest.raises(AmbiguousSession) as many:
        find_session(store, "alpha")
    assert {i.id for i in many.value.matches} == {one, two}


def test_a_fork_is_a_copy_under_a_new_id_and_the_original_is_untouched(tmp_path: Path) -> None:
    log = _named(tmp_path, "first", "feature")
    with log.recorder.writer.path.open("ab") as fh:
        fh.write(b'{"type":"message","message":{"ro')  # a torn last line
    original = log.recorder.writer.path.read_bytes()
    store = SessionStore(tmp_path / "state", tmp_path)
    [info] = store.list()
    copy = fork_session(store, info)
    assert copy.id != info.id and copy.name == "feature (fork)"
    assert info.path.read_bytes() == original
    forked, source = load(copy.path), load(info.path)
    assert forked.header["forked_from"] == info.id and forked.id == copy.id
    assert [m.to_dict() for m in forked.conversation.messages] == [
        m.to_dict() for m in source.conversation.messages
    ]
    assert {i.id for i in store.list()} == {info.id, copy.id}


@pytest.mark.parametrize("block", [16, 17, 23, 64, 1 << 20])
def test_the_last_name_is_found_whatever_the_block_boundaries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """The file is searched from its end a block at a time: a meta line cut by a block's start
    is still found, and the last one still wins."""
    monkeypatch.setattr("agent_tui.sessions.store.META_BLOCK", block)
    _named(tmp_path, "p", "first name", "second name", "the last name")
    [info] = SessionStore(tmp_path / "state", tmp_path).list()
    assert info.name == "the last name"
