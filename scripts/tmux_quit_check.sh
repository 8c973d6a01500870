#!/usr/bin/env bash
# Real-terminal check of quitting (issue 11 §5): run agent-tui in tmux on the scripted provider
# (slow streaming through [model] chunk_delay_s), press Ctrl+C twice at one awkward moment, and
# check that the app exits 0 with no traceback anywhere in the pane (Textual prints a crash there
# after it leaves the alternate screen) and that a command it was running is gone.
#
# Usage: scripts/tmux_quit_check.sh stream|dialog|tool   ("tmux quit check: OK" on success)
#   stream  while the answer streams       dialog  with the approval dialog open
#   tool    while an approved command runs (its process must be killed)
# Env:   PYTHON (default: .venv/bin/python), TMUX_CHECK_TIMEOUT, TMUX_CHECK_KEEP=1 (see tmux_lib.sh)
set -euo pipefail

moment=${1:?usage: tmux_quit_check.sh stream|dialog|tool}
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-$root/.venv/bin/python}
work=$(mktemp -d)
session="agent-tui-quit-$$"
# shellcheck source=scripts/tmux_lib.sh
source "$root/scripts/tmux_lib.sh"
trap cleanup EXIT

mkdir -p "$work/ws" "$work/home" "$work/state"
printf '[model]\nchunk_delay_s = 0.05\n' >"$work/home/.agentrc"
words=$(printf 'STREAMING %.0s' $(seq 1 400))
case "$moment" in
stream) turn="{\"text\": \"$words\"}" ;;
dialog) turn='{"text": "Writing.", "tool_calls": [{"id": "c1", "name": "create_file",
          "input": {"path": "hello.txt", "content": "hi\n"}}]}' ;;
tool) turn="{\"text\": \"Waiting.\", \"tool_calls\": [{\"id\": \"c1\", \"name\": \"run_in_terminal\",
          \"input\": {\"command\": \"echo \$\$ > '$work/pid'; exec sleep 120\"}}]}"
    # The check reads the command's host pid and asks first: outside the sandbox, whose PID
    # namespace would hide that pid (tests/sandbox checks nothing outlives a sandboxed command).
    APP_ENV="AGENT_TUI_SANDBOX=off" ;;
*) echo "unknown moment: $moment" >&2; exit 2 ;;
esac
printf '[%s, {"text": "never reached"}]\n' "$turn" >"$work/script.json"

start_scripted_app

wait_app
tm send-keys -t "$session" -l "go"
tm send-keys -t "$session" Enter
case "$moment" in
stream) wait_for "STREAMING STREAMING" "the answer to stream" ;;
dialog) wait_for "Allow once" "the approval dialog" ;;
tool)
    wait_for "Allow once" "the approval dialog"
    tm send-keys -t "$session" y
    deadline=$((SECONDS + timeout_s))
    until [[ -s "$work/pid" ]]; do
        if ((SECONDS >= deadline)); then fail "the command did not start"; fi
        sleep 0.1
    done
    ;;
esac

tm send-keys -t "$session" C-c
tm send-keys -t "$session" C-c
wait_for "AGENT-TUI-EXITED" "the app to quit on Ctrl+C twice"
history=$(pane_history)
if ! grep -qF "AGENT-TUI-EXITED 0" <<<"$history"; then fail "the exit code was not 0"; fi
if grep -qE "Traceback|Error|Exception ignored|Task was destroyed" <<<"$history"; then
    fail "the app printed an error on the way out"
fi
if [[ "$moment" == tool ]]; then
    pid=$(cat "$work/pid")
    if [[ -e /proc/$pid ]] && ! grep -q $'^State:\tZ' "/proc/$pid/status" 2>/dev/null; then
        fail "the command (pid $pid) still runs after the app quit"
    fi
fi
echo "tmux quit check: OK"
