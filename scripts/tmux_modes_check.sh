#!/usr/bin/env bash
# Real-terminal check of modes and type-ahead (issue 17 §1, §2): in tmux on the scripted provider,
# Shift+Tab through the modes (the status bar says each), plan: the model's edit is refused and
# nothing is written, the plan offer appears and "1" carries it out in accept-edits mode (written
# without a dialog); then a message typed while an answer streams is queued and sent after it.
#
# Usage: scripts/tmux_modes_check.sh [COLUMNS ROWS]   ("tmux modes check: OK" on success)
# Env:   PYTHON (default: .venv/bin/python), TMUX_CHECK_TIMEOUT, TMUX_CHECK_KEEP=1 (see tmux_lib.sh)
set -euo pipefail

cols=${1:-120}
rows=${2:-40}
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-$root/.venv/bin/python}
work=$(mktemp -d)
session="agent-tui-modes-$$"
# shellcheck source=scripts/tmux_lib.sh
source "$root/scripts/tmux_lib.sh"
trap cleanup EXIT

mkdir -p "$work/ws" "$work/home" "$work/state"
printf '[model]\nchunk_delay_s = 0.02\n' >"$work/home/.agentrc"
create() { printf '{"tool_calls": [{"id": "%s", "name": "create_file", "input": {"path": "new.txt", "content": "%s\\n"}}]}' "$1" "$2"; }
words=$(printf 'STREAMING %.0s' $(seq 1 150))
printf '[%s, {"text": "PLAN-TEXT: create new.txt"}, %s, {"text": "BUILT-IT"}, {"text": "%s"}, {"text": "QUEUED-ANSWER"}]\n' \
    "$(create c1 planned)" "$(create c2 built)" "$words" >"$work/script.json"

start_scripted_app "$cols" "$rows"

wait_app
wait_for "mode: ask" "the mode in the status bar"
tm send-keys -t "$session" BTab
wait_for "mode: accept edits" "Shift+Tab to accept edits"
tm send-keys -t "$session" BTab
wait_for "mode: plan" "Shift+Tab to plan"
tm send-keys -t "$session" -l "plan a file"
tm send-keys -t "$session" Enter
wait_for "The plan is ready" "the plan offer"
wait_for "PLAN-TEXT" "the plan above the offer"
wait_for "Esc keeps planning" "the offer's keys (shown once it takes keys)"
if [[ -e "$work/ws/new.txt" ]]; then fail "plan mode wrote new.txt"; fi
tm send-keys -t "$session" 1
wait_for "BUILT-IT" "the plan carried out"
wait_for "mode: accept edits" "the mode plan mode came from"
[[ "$(cat "$work/ws/new.txt")" == built ]] || fail "new.txt was not written by the carried-out plan"
if pane_history | grep -qF "Allow once"; then fail "accept-edits mode asked about an edit"; fi

tm send-keys -t "$session" -l "stream please"
tm send-keys -t "$session" Enter
wait_for "STREAMING STREAMING" "the answer to stream"
tm send-keys -t "$session" -l "typed ahead"
tm send-keys -t "$session" Enter
wait_for "queued: typed ahead" "the queued message"
wait_for "QUEUED-ANSWER" "the queued message's answer"
tm send-keys -t "$session" C-c
tm send-keys -t "$session" C-c
wait_for "AGENT-TUI-EXITED 0" "the app to quit"
if pane_history | grep -qF "Traceback"; then fail "a traceback"; fi
echo "tmux modes check: OK"
