#!/usr/bin/env bash
# Real-terminal check of prompt editing (issue 27 item 5): in tmux on the scripted provider, two
# prompts are sent; Ctrl+R (the byte 0x12) then "alp" shows the search line, Enter (CR) takes the
# match into the prompt without sending it; Ctrl+R "beta" then Esc gives the prompt back as it
# was; a backslash then CR adds a newline (the backslash gone), and the message sent holds both
# lines: the session file has "alpha one again\nline two" as the user's message. Then with
# `[ui] vim = true`: Esc and vi commands in one write (ESC b x, as tmux sends Esc typed within its
# escape-time before a key) go to normal mode and edit, "-- NORMAL --" shows, A appends, CR sends.
#
# Usage: scripts/tmux_prompt_keys_check.sh [COLUMNS ROWS]   ("tmux prompt keys check: OK" on success)
# Env:   PYTHON (default: .venv/bin/python), TMUX_CHECK_TIMEOUT, TMUX_CHECK_KEEP=1 (see tmux_lib.sh)
set -euo pipefail

cols=${1:-80}
rows=${2:-24}
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-$root/.venv/bin/python}
work=$(mktemp -d)
session="agent-tui-prompt-keys-$$"
# shellcheck source=scripts/tmux_lib.sh
source "$root/scripts/tmux_lib.sh"
trap cleanup EXIT

mkdir -p "$work/ws" "$work/home" "$work/state"
printf '[{"text": "ANSWER-ONE"}, {"text": "ANSWER-TWO"}, {"text": "ANSWER-THREE"}]\n' \
    >"$work/script.json"

start_scripted_app "$cols" "$rows"
wait_for "Ask anything" "the app's first frame"
tm send-keys -t "$session" -l "alpha one"
tm send-keys -t "$session" -H 0d
wait_for "ANSWER-ONE" "the first answer"
tm send-keys -t "$session" -l "beta two"
tm send-keys -t "$session" -H 0d
wait_for "ANSWER-TWO" "the second answer"

# Ctrl+R as the terminal sends it, then a query: the search line; CR takes the match.
tm send-keys -t "$session" -H 12
wait_for '(reverse-i-search)`'"'"':' "the empty search line"  # capture-pane trims the space
tm send-keys -t "$session" -l "alp"
wait_for '(reverse-i-search)`alp'"'"': alpha one' "the search line to find alpha one"
tm send-keys -t "$session" -H 0d
tm send-keys -t "$session" -l " again"
wait_for "alpha one again" "the match taken into the prompt"
if pane | grep -qF "reverse-i-search"; then fail "the search line stayed after Enter"; fi
if pane | grep -qF "ANSWER-THREE"; then fail "Enter in the search sent the prompt"; fi

# Ctrl+R, a query, Esc: the prompt as it was.
tm send-keys -t "$session" -H 12
tm send-keys -t "$session" -l "beta"
wait_for '(reverse-i-search)`beta'"'"': beta two' "the search line to find beta two"
tm send-keys -t "$session" -H 1b
deadline=$((SECONDS + timeout_s))
while pane | grep -qF "reverse-i-search"; do
    if ((SECONDS >= deadline)); then fail "Esc did not end the search"; fi
    sleep 0.1
done
wait_for "alpha one again" "the prompt kept after Esc"

# A backslash then CR, in one write as a fast typist's terminal sends them: a newline, not a send.
tm send-keys -t "$session" -H 5c 0d
tm send-keys -t "$session" -l "line two"
wait_for "line two" "the second line typed"
if pane | grep -qF "ANSWER-THREE"; then fail "backslash + Enter sent the prompt"; fi
tm send-keys -t "$session" -H 0d
wait_for "ANSWER-THREE" "the third answer"

tm send-keys -t "$session" C-c
tm send-keys -t "$session" C-c
wait_for "AGENT-TUI-EXITED 0" "the app to quit"
if pane_history | grep -qF "Traceback"; then fail "a traceback"; fi

# What the model got: the two lines as one message, without the backslash.
"$py" - "$work/state" <<'PY' || fail "the session file does not hold the two-line prompt"
import json, pathlib, sys
files = list(pathlib.Path(sys.argv[1], "sessions").glob("*/*.jsonl"))
assert len(files) == 1, files
lines = [json.loads(l) for l in files[0].read_text().splitlines()]
users = [l["message"] for l in lines if l["type"] == "message" and l["message"]["role"] == "user"]
texts = [
    b["text"]
    for m in users
    for b in ([{"type": "text", "text": m["content"]}] if isinstance(m["content"], str) else m["content"])
    if b.get("type") == "text"
]
assert texts == ["alpha one", "beta two", "alpha one again\nline two"], texts
PY

# vi modes: a new run of the app with [ui] vim = true in ~/.agentrc.
printf '[ui]\nvim = true\n' >"$work/home/.agentrc"
printf '[{"text": "ANSWER-VIM"}]\n' >"$work/script.json"
start_scripted_app "$cols" "$rows"
wait_for "-- INSERT --" "the insert mode indicator"
tm send-keys -t "$session" -l "hello big world"
tm send-keys -t "$session" -H 1b 62 78
wait_for "hello big orld" "ESC b x to delete the w in normal mode"
wait_for "-- NORMAL --" "the normal mode indicator"
tm send-keys -t "$session" -l "A now"
tm send-keys -t "$session" -H 0d
wait_for "ANSWER-VIM" "the vi-edited prompt to be sent"
wait_for "-- INSERT --" "insert mode again for the next prompt"
tm send-keys -t "$session" C-c
tm send-keys -t "$session" C-c
wait_for "AGENT-TUI-EXITED 0" "the app with vi modes to quit"
if pane_history | grep -qF "Traceback"; then fail "a traceback"; fi
echo "tmux prompt keys check: OK"
