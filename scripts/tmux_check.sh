#!/usr/bin/env bash
# Real-terminal check of the app (issue 5): run agent-tui inside tmux against the fake LLM server,
# type a prompt, answer the approval modal with `y`, then check the file on disk and the final
# answer in `tmux capture-pane`. Waits poll the pane with a deadline (no fixed sleeps).
#
# Usage: scripts/tmux_check.sh            (exit 0 and "tmux check: OK" on success)
# Env:   PYTHON (default: .venv/bin/python), TMUX_CHECK_TIMEOUT (seconds per wait, default 30),
#        TMUX_CHECK_KEEP=1 keeps the temp dir for inspection.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-$root/.venv/bin/python}
work=$(mktemp -d)
session="agent-tui-check-$$"
# shellcheck source=scripts/tmux_lib.sh
source "$root/scripts/tmux_lib.sh"
trap cleanup EXIT

mkdir -p "$work/ws" "$work/home" "$work/state"
cat >"$work/script.json" <<'JSON'
[
  {"text": "I'll create the file.",
   "tool_calls": [{"id": "call_1", "name": "create_file",
                   "input": {"path": "hello.txt", "content": "hello from tmux\n"}}]},
  {"text": "Created hello.txt. TMUX-CHECK-DONE"}
]
JSON

start_fake_server

tm new-session -d -s "$session" -x 100 -y 30 \
    "cd '$work/ws' && env HOME='$work/home' AGENT_TUI_STATE_DIR='$work/state' ANTHROPIC_API_KEY=test \
     PYTHONPATH='$root' '$py' -m agent_tui --provider anthropic --base-url '$url' \
     ; echo AGENT-TUI-EXITED \$?; sleep 60"

wait_for "Ask anything" "the app's first frame"
tm send-keys -t "$session" -l "please create hello.txt"
tm send-keys -t "$session" Enter
wait_for "Allow once" "the approval modal"
tm send-keys -t "$session" y
wait_for "TMUX-CHECK-DONE" "the final answer"

if [[ "$(cat "$work/ws/hello.txt" 2>/dev/null)" != "hello from tmux" ]]; then
    echo "tmux check: FAILED: hello.txt was not written as asked" >&2
    pane >&2
    exit 1
fi

tm send-keys -t "$session" C-c
tm send-keys -t "$session" C-c
wait_for "AGENT-TUI-EXITED 0" "the app to quit on Ctrl+C twice"
echo "tmux check: OK"
