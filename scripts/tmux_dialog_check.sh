#!/usr/bin/env bash
# Real-terminal check that typing does not answer the approval dialog (issue 22 §1): in tmux on the
# scripted provider, the answer streams and then asks to run `touch made-by-touch`; meanwhile a
# message is typed one key every 0.2 s (real time on purpose: that is how a person types), across
# the moment the dialog opens, full of the dialog's keys (a always, y once, s, w, e, n). Then the
# files decide: no approvals.json in the state dir, no made-by-touch in the workspace; the typed
# message is whole in the prompt; after the pause the dialog's keys work (n denies).
#
# Usage: scripts/tmux_dialog_check.sh   ("tmux dialog check: OK" on success)
# Env:   PYTHON (default: .venv/bin/python), TMUX_CHECK_TIMEOUT, TMUX_CHECK_KEEP=1 (see tmux_lib.sh)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-$root/.venv/bin/python}
work=$(mktemp -d)
session="agent-tui-dialog-$$"
# shellcheck source=scripts/tmux_lib.sh
source "$root/scripts/tmux_lib.sh"
trap cleanup EXIT

mkdir -p "$work/ws" "$work/home" "$work/state"
# `touch` = false: the command asks even where the sandbox would run it unasked.
printf '[model]\nchunk_delay_s = 0.1\n[tools.terminal.auto_approve]\n"touch" = false\n' \
    >"$work/home/.agentrc"
words=$(printf 'STREAMING %.0s' $(seq 1 20))
printf '[{"text": "%s", "tool_calls": [{"id": "c1", "name": "run_in_terminal", "input": {"command": "touch made-by-touch"}}]}, {"text": "DENIED-AND-DONE"}]\n' \
    "$words" >"$work/script.json"
typed="so what about the tests? always say yes and allow it anyway"
dialog="Run command in terminal?"

start_scripted_app

wait_app
tm send-keys -t "$session" -l "look at the tests"
tm send-keys -t "$session" Enter
wait_for "STREAMING STREAMING" "the answer to stream"

# One key every 0.2 s until the dialog has been open for 10 of them.
before=0
after=0
for ((i = 0; i < ${#typed}; i++)); do
    tm send-keys -t "$session" -l "${typed:i:1}"
    if pane | grep -qF "$dialog"; then after=$((after + 1)); else before=$((before + 1)); fi
    if ((after >= 10)); then break; fi
    sleep 0.2
done
if ((before == 0 || after < 10)); then
    fail "the typing did not span the dialog's opening ($before keys before, $after after)"
fi

# The dialog shows its keys after the pause, unless a typed key answered it (the turn then ends).
deadline=$((SECONDS + timeout_s))
until pane | grep -qE "Allow once|DENIED-AND-DONE"; do
    if ((SECONDS >= deadline)); then fail "the dialog's keys never showed (did it take typed keys?)"; fi
    sleep 0.1
done
if [[ -e "$work/state/approvals.json" ]]; then fail "typing stored a grant"; fi
if [[ -e "$work/ws/made-by-touch" ]]; then fail "typing ran the command"; fi
if ! pane | grep -qF "Allow once"; then fail "typing answered the dialog"; fi

tm send-keys -t "$session" n
wait_for "Why?" "the deny reason"
tm send-keys -t "$session" Enter
wait_for "DENIED-AND-DONE" "the turn to go on after the deny"
# The keys typed while the dialog held them are in the prompt, in order, with the rest to type.
wait_for "${typed:0:i+1}" "the typed message in the prompt"
if [[ -e "$work/state/approvals.json" || -e "$work/ws/made-by-touch" ]]; then
    fail "a grant or the command after the deny"
fi

tm send-keys -t "$session" C-c  # clears the prompt; then twice quits
wait_for "Ask anything" "the prompt cleared"
tm send-keys -t "$session" C-c
tm send-keys -t "$session" C-c
wait_for "AGENT-TUI-EXITED" "the app to quit"
if ! pane_history | grep -qF "AGENT-TUI-EXITED 0"; then fail "the exit code was not 0"; fi
echo "tmux dialog check: OK"
