#!/usr/bin/env bash
# Real-terminal check that text typed fast or pasted arrives whole (issue 23 §9): in tmux on the
# scripted provider, plan mode reads a file (its card has a Space toggle) and offers the plan;
# "change step 2 please" sent in one write lands in the prompt whole (no space to the card, no "2"
# carrying the plan out) and is sent; over the next offer a bracketed paste lands in the prompt;
# then the approval dialog's e with text in the same write puts the text in the JSON editor.
#
# Usage: scripts/tmux_typing_check.sh [COLUMNS ROWS]   ("tmux typing check: OK" on success)
# Env:   PYTHON (default: .venv/bin/python), TMUX_CHECK_TIMEOUT, TMUX_CHECK_KEEP=1 (see tmux_lib.sh)
set -euo pipefail

cols=${1:-120}
rows=${2:-40}
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-$root/.venv/bin/python}
work=$(mktemp -d)
session="agent-tui-typing-$$"
# shellcheck source=scripts/tmux_lib.sh
source "$root/scripts/tmux_lib.sh"
trap cleanup EXIT

mkdir -p "$work/ws" "$work/home" "$work/state"
echo "notes" >"$work/ws/notes.txt"
read_call='{"tool_calls": [{"id": "r1", "name": "read_file", "input": {"path": "notes.txt"}}]}'
create_call='{"tool_calls": [{"id": "c1", "name": "create_file", "input": {"path": "n.txt", "content": "x"}}]}'
printf '[%s, {"text": "PLAN-ONE"}, {"text": "PLAN-TWO"}, {"text": "PLAN-THREE"}, %s, {"text": "DONE"}]\n' \
    "$read_call" "$create_call" >"$work/script.json"

start_scripted_app "$cols" "$rows"
wait_app
tm send-keys -t "$session" BTab
tm send-keys -t "$session" BTab
wait_for "mode: plan" "plan mode"
tm send-keys -t "$session" -l "plan it"
tm send-keys -t "$session" Enter
wait_for "Esc keeps planning" "the plan offer, taking keys"

tm send-keys -t "$session" -l "change step 2 please"  # one write: the terminal's one read
wait_for "change step 2 please" "the typed text whole in the prompt"
if pane | grep -qF "The plan is ready"; then fail "the offer stayed"; fi
if pane | grep -qF "mode: accept edits"; then fail "the 2 carried the plan out"; fi
if pane | grep -qF "▼ input and output"; then fail "a space opened the card"; fi
tm send-keys -t "$session" Enter
wait_for "PLAN-TWO" "the change sent (still planning)"
wait_for "Esc keeps planning" "the next offer"

# A bracketed paste over the offer (ESC [200~ … ESC [201~).
tm send-keys -t "$session" -H 1b 5b 32 30 30 7e $(printf 'pasted words 3' | od -An -tx1) 1b 5b 32 30 31 7e
wait_for "pasted words 3" "the pasted text in the prompt"
if pane | grep -qF "The plan is ready"; then fail "the paste left the offer up"; fi
tm send-keys -t "$session" Enter
wait_for "PLAN-THREE" "the pasted text sent"
wait_for "Esc keeps planning" "the third offer"
tm send-keys -t "$session" 2  # carry it out, asking before edits
wait_for "Allow once" "the approval dialog"
tm send-keys -t "$session" -l "eabc def 2"  # e opens the editor; the rest goes in it, in order
wait_for "abc def 2{" "the typed text first in the JSON editor"
tm send-keys -t "$session" Escape  # back to the choices (a key right after would be Alt+key)
deadline=$((SECONDS + timeout_s))
while pane | grep -qF "Edit the input (JSON)"; do
    if ((SECONDS >= deadline)); then fail "Esc did not close the editor"; fi
    sleep 0.1
done
tm send-keys -t "$session" n
wait_for "Why?" "the deny reason"
tm send-keys -t "$session" Enter
wait_for "DONE" "the turn to end after the deny"
if [[ -e "$work/ws/n.txt" ]]; then fail "the edit box's keys allowed the call"; fi

tm send-keys -t "$session" C-c
tm send-keys -t "$session" C-c
wait_for "AGENT-TUI-EXITED 0" "the app to quit"
if pane_history | grep -qF "Traceback"; then fail "a traceback"; fi
echo "tmux typing check: OK"
