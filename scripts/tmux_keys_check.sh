#!/usr/bin/env bash
# Real-terminal check of the steering keys (issue 23 §8): in tmux on the scripted provider, three
# turns each stream an answer and then read a file; while the answer streams, a message is typed
# and sent with the raw bytes a terminal sends: ESC CR (Alt+Enter in xterm, tmux, VS Code, kitty's
# legacy mode), CSI 27;3;13~ (xterm's modifyOtherKeys) and Ctrl+S (the fallback). Each must steer
# (the note says so, nothing is queued) and reach the model after the tool result: the session
# file holds each message in the request after that turn's tool call.
#
# Usage: scripts/tmux_keys_check.sh [COLUMNS ROWS]   ("tmux keys check: OK" on success)
# Env:   PYTHON (default: .venv/bin/python), TMUX_CHECK_TIMEOUT, TMUX_CHECK_KEEP=1 (see tmux_lib.sh)
set -euo pipefail

cols=${1:-120}
rows=${2:-40}
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-$root/.venv/bin/python}
work=$(mktemp -d)
session="agent-tui-keys-$$"
# shellcheck source=scripts/tmux_lib.sh
source "$root/scripts/tmux_lib.sh"
trap cleanup EXIT

mkdir -p "$work/ws" "$work/home" "$work/state"
echo "notes" >"$work/ws/notes.txt"
printf '[model]\nchunk_delay_s = 0.03\n' >"$work/home/.agentrc"
# Turn N streams "STREAM-N" 60 times (2 s), then reads notes.txt; the next request answers.
read_call() {
    printf '{"text": "%s", "tool_calls": [{"id": "r%s", "name": "read_file", "input": {"path": "notes.txt"}}]}' \
        "$(printf "STREAM-$1 %.0s" $(seq 1 60))" "$1"
}
printf '[%s, {"text": "ANSWER-ONE"}, %s, {"text": "ANSWER-TWO"}, %s, {"text": "ANSWER-THREE"}]\n' \
    "$(read_call 1)" "$(read_call 2)" "$(read_call 3)" >"$work/script.json"

start_scripted_app "$cols" "$rows"
wait_app

# steer N ANSWER HEX...: a turn; while it streams, type "steer-N" and press the key HEX... sends.
steer() {
    local n=$1 answer=$2
    shift 2
    tm send-keys -t "$session" -l "turn $n"
    tm send-keys -t "$session" Enter
    wait_for "STREAM-$n STREAM-$n" "turn $n to stream"
    tm send-keys -t "$session" -l "steer-$n"
    tm send-keys -t "$session" -H "$@"
    wait_for "steering (after the current tool results): steer-$n" "steer-$n to steer"
    wait_for "$answer" "turn $n's answer"
    if pane_history | grep -qF "queued: steer-$n"; then fail "steer-$n was queued, not steered"; fi
}
steer 1 ANSWER-ONE 1b 0d
steer 2 ANSWER-TWO 1b 5b 32 37 3b 33 3b 31 33 7e
steer 3 ANSWER-THREE 13

tm send-keys -t "$session" C-c
tm send-keys -t "$session" C-c
wait_for "AGENT-TUI-EXITED 0" "the app to quit"
if pane_history | grep -qF "Traceback"; then fail "a traceback"; fi

# What the model saw: each steer-N in a user message right after turn N's tool result.
"$py" - "$work/state" <<'PY' || fail "the session file does not show the steering as sent"
import json, pathlib, sys
files = list(pathlib.Path(sys.argv[1], "sessions").glob("*/*.jsonl"))
assert len(files) == 1, files
lines = [json.loads(l) for l in files[0].read_text().splitlines()]
messages = [l["message"] for l in lines if l["type"] == "message"]
for n in (1, 2, 3):
    at = next(i for i, m in enumerate(messages) if f"steer-{n}" in json.dumps(m["content"]))
    before = messages[at - 1]["content"] + messages[at]["content"]
    assert messages[at]["role"] == "user", messages[at]
    assert any(b.get("type") == "tool_result" for b in before), messages[at - 1 : at + 1]
PY
echo "tmux keys check: OK"
