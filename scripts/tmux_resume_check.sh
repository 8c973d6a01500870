#!/usr/bin/env bash
# Real-terminal check of resuming a session whose command was cut off: run agent-tui in tmux on
# the scripted provider, approve a long command, then end the app while the command runs (kill:
# SIGKILL to the app, as a crash or a closed terminal does; quit: Ctrl+C twice), start
# `agent-tui --continue` and check that the call shows as interrupted, never as still running.
#
# Usage: scripts/tmux_resume_check.sh kill|quit   ("tmux resume check: OK" on success)
# Env:   PYTHON (default: .venv/bin/python), TMUX_CHECK_TIMEOUT, TMUX_CHECK_KEEP=1 (see tmux_lib.sh)
set -euo pipefail

how=${1:?usage: tmux_resume_check.sh kill|quit}
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-$root/.venv/bin/python}
work=$(mktemp -d)
session="agent-tui-resume-$$"
# shellcheck source=scripts/tmux_lib.sh
source "$root/scripts/tmux_lib.sh"
command_pid=""
stop_command() { if [[ -n "$command_pid" ]]; then kill "$command_pid" 2>/dev/null || true; fi; }
trap 'stop_command; cleanup' EXIT

mkdir -p "$work/ws" "$work/home" "$work/state"
printf '[{"text": "Waiting.", "tool_calls": [{"id": "c1", "name": "run_in_terminal",
  "input": {"command": "echo $$ > %s/pid; exec sleep 120"}}]}, {"text": "never reached"}]\n' \
    "$work" >"$work/script.json"
# The command's host pid is read (to stop it after a kill): outside the sandbox's PID namespace.
APP_ENV="AGENT_TUI_SANDBOX=off"

start_scripted_app
wait_app
tm send-keys -t "$session" -l "sleep for a while"
tm send-keys -t "$session" Enter
wait_for "Allow once" "the approval dialog"
tm send-keys -t "$session" y
deadline=$((SECONDS + timeout_s))
until [[ -s "$work/pid" ]]; do
    if ((SECONDS >= deadline)); then fail "the command did not start"; fi
    sleep 0.1
done
command_pid=$(cat "$work/pid")

if [[ "$how" == kill ]]; then
    shell_pid=$(tm display-message -p -t "$session" '#{pane_pid}')
    app_pid=$(pgrep -P "$shell_pid" | head -n 1)
    [[ -n "$app_pid" ]] || fail "no app process under the pane's shell"
    kill -KILL "$app_pid"
else
    tm send-keys -t "$session" C-c
    tm send-keys -t "$session" C-c
fi
wait_for "AGENT-TUI-EXITED" "the app to end"
stop_command
tm kill-session -t "$session"

APP_ARGS="--continue" start_scripted_app
wait_for "Resumed" "the resumed session"
screen=$(pane)
grep -qF "sleep for a while" <<<"$screen" || fail "the prompt is not shown"
grep -qF "Interrupted" <<<"$screen" || fail "the call is not shown as interrupted"
if grep -qF "Running" <<<"$screen"; then fail "the call still shows as running"; fi
echo "tmux resume check: OK"
