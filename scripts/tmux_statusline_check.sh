#!/usr/bin/env bash
# Real-terminal check of [ui] status_line and /terminals' output view (issue 27 §4, §7), at 80x24
# by default: a Python status-line script in Claude Code's style prints the model, the mode and a
# retitle + clear-screen sequence; the line shows (the sequence as visible text, the pane's title
# untouched) and follows a Shift+Tab. Then a background command prints 40 lines, /terminals and
# Enter show them, following the end; Esc twice and Ctrl+C twice quit with exit 0.
#
# Usage: scripts/tmux_statusline_check.sh [COLUMNS ROWS]   ("tmux statusline check: OK" on success)
# Env:   PYTHON (default: .venv/bin/python), TMUX_CHECK_TIMEOUT, TMUX_CHECK_KEEP=1 (see tmux_lib.sh)
set -euo pipefail

cols=${1:-80}
rows=${2:-24}
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-$root/.venv/bin/python}
work=$(mktemp -d)
session="agent-tui-statusline-$$"
# shellcheck source=scripts/tmux_lib.sh
source "$root/scripts/tmux_lib.sh"
trap cleanup EXIT

mkdir -p "$work/ws" "$work/home" "$work/state"
cat >"$work/statusline.py" <<'PY'
import json, sys
data = json.load(sys.stdin)
mode = data["agent_tui"]["mode"]
print(f"SL-OK {mode} \x1b[32m{data['model']['display_name']}\x1b[0m\x1b]0;PWNED-TITLE\x07\x1b[2J")
PY
printf '[ui]\nstatus_line = "%s %s"\n' "$py" "$work/statusline.py" >"$work/home/.agentrc"
call='{"id": "t1", "name": "run_in_terminal", "input": {"command": "for i in $(seq 1 40); do echo out-line-$i; done; sleep 300", "is_background": true}}'
printf '[{"tool_calls": [%s]}, {"text": "STARTED-IT"}]\n' "$call" >"$work/script.json"

start_scripted_app "$cols" "$rows"
wait_app
wait_for "SL-OK ask" "the status line"
wait_for "]0;PWNED-TITLE" "the retitle sequence shown as text"
[[ "$(tm display-message -p -t "$session" '#{pane_title}')" != *PWNED* ]] || fail "the pane was retitled"
tm send-keys -t "$session" BTab
wait_for "SL-OK accept edits" "the status line after Shift+Tab"

tm send-keys -t "$session" -l "start it"
tm send-keys -t "$session" Enter
# Inside a working sandbox the command runs without a question; without one it is asked about.
deadline=$((SECONDS + timeout_s))
until pane | grep -qF "STARTED-IT"; do
    if pane | grep -qF "Allow once"; then tm send-keys -t "$session" y; fi
    if ((SECONDS >= deadline)); then fail "waiting for the background command to start"; fi
    sleep 0.1
done
tm send-keys -t "$session" -l "/terminals"
tm send-keys -t "$session" Enter
wait_for "Background terminals" "the terminals list"
tm send-keys -t "$session" Enter
wait_for "out-line-40" "the output view, following the end"
wait_for "term-1 · running" "the output view's title"
tm send-keys -t "$session" Escape
wait_for "Background terminals" "back to the list"
tm send-keys -t "$session" Escape
tm send-keys -t "$session" C-c
tm send-keys -t "$session" C-c
wait_for "AGENT-TUI-EXITED 0" "the app to quit"
if pane_history | grep -qF "Traceback"; then fail "a traceback"; fi
echo "tmux statusline check: OK"
