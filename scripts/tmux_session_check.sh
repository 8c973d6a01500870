#!/usr/bin/env bash
# Real-terminal check of /clear's sessions and of new content in view (issue 23 §6, §7): in tmux on
# the scripted provider, a long answer is paged up through and a prompt sent then is answered in
# view; /clear starts a new session (a second file) and names the old one; quitting prints
# `agent-tui --resume ID` for the session in use; a second run with --resume of the cleared
# session shows the old conversation.
#
# Usage: scripts/tmux_session_check.sh [COLUMNS ROWS]   ("tmux session check: OK" on success)
# Env:   PYTHON (default: .venv/bin/python), TMUX_CHECK_TIMEOUT, TMUX_CHECK_KEEP=1 (see tmux_lib.sh)
set -euo pipefail

cols=${1:-120}
rows=${2:-40}
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-$root/.venv/bin/python}
work=$(mktemp -d)
session="agent-tui-session-$$"
# shellcheck source=scripts/tmux_lib.sh
source "$root/scripts/tmux_lib.sh"
trap cleanup EXIT

mkdir -p "$work/ws" "$work/home" "$work/state"
long=$(for n in $(seq 1 80); do printf 'line %s\\n\\n' "$n"; done)
printf '[{"text": "%sOLD-END"}, {"text": "SECOND-ANSWER"}, {"text": "NEW-ANSWER"}]\n' "$long" \
    >"$work/script.json"
sessions() { find "$work/state/sessions" -name '*.jsonl' 2>/dev/null | sort; }

start_scripted_app "$cols" "$rows"
wait_app
tm send-keys -t "$session" -l "old topic"
tm send-keys -t "$session" Enter
wait_for "OLD-END" "the long answer"
tm send-keys -t "$session" PageUp
tm send-keys -t "$session" PageUp
deadline=$((SECONDS + timeout_s))
while pane | grep -qF "OLD-END"; do
    if ((SECONDS >= deadline)); then fail "PageUp did not scroll the transcript"; fi
    sleep 0.1
done
tm send-keys -t "$session" -l "second"
tm send-keys -t "$session" Enter
wait_for "SECOND-ANSWER" "the answer to the prompt sent after paging up, in view"

tm send-keys -t "$session" -l "/clear"
tm send-keys -t "$session" Enter
wait_for "y Clear" "the clear question, taking keys"
tm send-keys -t "$session" y
wait_for "/undo-clear brings them back" "the clear's note"
old=$(basename "$(sessions)" .jsonl)
[[ -n "$old" ]] || fail "no session file before the clear"
tm send-keys -t "$session" -l "new topic"
tm send-keys -t "$session" Enter
wait_for "NEW-ANSWER" "the new conversation's answer"
[[ $(sessions | wc -l) -eq 2 ]] || fail "/clear did not start a second session file: $(sessions)"
new=$(basename "$(sessions | grep -v "$old")" .jsonl)
if grep -qF '"rewind"' "$work/state/sessions/"*/"$old.jsonl"; then fail "the old file was rewound"; fi

tm send-keys -t "$session" C-c
tm send-keys -t "$session" C-c
wait_for "AGENT-TUI-EXITED 0" "the app to quit"
wait_for "agent-tui --resume $new" "the resume hint of the session in use"
if pane_history | grep -qF "Traceback"; then fail "a traceback"; fi

tm kill-session -t "$session"
APP_ARGS="--resume $old" start_scripted_app "$cols" "$rows"
wait_for "Resumed" "the cleared session resumed"
wait_for "old topic" "the old conversation drawn"
if pane | grep -qF "new topic"; then fail "the new conversation in the old session"; fi
tm send-keys -t "$session" C-c
tm send-keys -t "$session" C-c
wait_for "agent-tui --resume $old" "the resume hint of the resumed session"
echo "tmux session check: OK"
