"""``[ui] keys`` read into a keymap: what is kept, what is refused and said once, conflicts."""

from __future__ import annotations

from agent_tui.ui.keymap import ACTIONS, build_keymap


def test_no_table_keeps_every_default() -> None:
    keymap = build_keymap(None)
    assert keymap.notices == []
    assert keymap.keys == {name: keys for name, (keys, _) in ACTIONS.items()}
    assert keymap.textual_keymap() == {}


def test_keys_are_normalised_and_the_app_bindings_follow() -> None:
    keymap = build_keymap({"cancel": " Ctrl+B , f9 ", "newline": ["ctrl+n"]})
    assert keymap.notices == []
    assert keymap.keys["cancel"] == ("ctrl+b", "f9")
    assert keymap.textual_keymap() == {
        "cancel_turn": "ctrl+b,f9",
        "edit_previous": "ctrl+b,f9",
        "newline": "ctrl+n",
    }
    assert keymap.shown("cancel") == "Ctrl+B / F9"


def test_each_bad_entry_is_one_notice_and_keeps_its_defaults() -> None:
    keymap = build_keymap(
        {
            "nope": "ctrl+x",
            "submit": "",
            "quit": "ctrl+c",
            "tools": "hyper+t",
            "help": ["f1", 3],
        }
    )
    assert len(keymap.notices) == 5, keymap.notices
    assert "no action 'nope'" in keymap.notices[0]
    assert "keys.submit: no key given" in keymap.notices[1]
    assert "ctrl+c is kept" in keymap.notices[2]
    assert "'hyper+t' is not a key" in keymap.notices[3]
    assert "give a key or a list of keys" in keymap.notices[4]
    for action in ("submit", "quit", "tools", "help"):
        assert keymap.keys[action] == ACTIONS[action][0]


def test_a_key_two_actions_claim_goes_to_the_one_the_user_set() -> None:
    keymap = build_keymap({"help": "f2"})
    assert keymap.keys["help"] == ("f2",)
    assert keymap.keys["toggle_todo"] == ()  # its only key moved to help
    assert keymap.notices == ["[ui] keys: f2 is both help and toggle_todo; it does help."]
    assert keymap.textual_keymap()["toggle_todo"] == "ctrl+f24"  # no key a terminal sends
    both = build_keymap({"tools": "f9", "help": "f9"})
    assert both.keys["tools"] == ("f9",) and both.keys["help"] == ()
    assert both.notices == ["[ui] keys: f9 is both tools and help; it does tools."]


def test_steering_shares_its_keys_with_newline_on_purpose() -> None:
    keymap = build_keymap({"steer": "ctrl+j"})
    assert keymap.notices == []
    assert keymap.has("steer", "ctrl+j") and keymap.has("newline", "ctrl+j")


def test_prompt_actions_may_take_editing_keys_but_app_actions_may_not() -> None:
    keymap = build_keymap({"history_search": "ctrl+k", "toggle_todo": "ctrl+a"})
    assert keymap.keys["history_search"] == ("ctrl+k",)
    assert keymap.keys["toggle_todo"] == ("f2",)
    assert keymap.notices == [
        "[ui] keys.toggle_todo: ctrl+a edits the prompt (cursor line start): choose another key;"
        " its defaults are kept."
    ]
