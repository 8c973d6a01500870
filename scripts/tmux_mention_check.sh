#!/usr/bin/env bash
# Real-terminal check of @path mentions (issue 17 §4): in tmux on the scripted provider, type
# "explain @ldr", complete it with Tab to the workspace file, send it, and check the transcript
# says the file was attached; then "@Makefile what builds?" as the first word is a file, not an
# unknown participant.
#
# Usage: scripts/tmux_mention_check.sh   ("tmux mention check: OK" on success)
# Env:   PYTHON (default: .venv/bin/python), TMUX_CHECK_TIMEOUT, TMUX_CHECK_KEEP=1 (see tmux_lib.sh)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-$root/.venv/bin/python}
work=$(mktemp -d)
session="agent-tui-mention-$$"
# shellcheck source=scripts/tmux_lib.sh
source "$root/scripts/tmux_lib.sh"
trap cleanup EXIT

mkdir -p "$work/ws/src" "$work/home" "$work/state"
printf 'x = 1\n' >"$work/ws/src/loader.py"
printf 'all:\n\ttrue\n' >"$work/ws/Makefile"
printf '[{"text": "FIRST-ANSWER"}, {"text": "SECOND-ANSWER"}]\n' >"$work/script.json"

start_scripted_app

wait_app
tm send-keys -t "$session" -l "explain @ldr"
wait_for "@src/loader.py" "the @ completion offering the file"
tm send-keys -t "$session" Tab
tm send-keys -t "$session" Enter
wait_for "attached #file:src/loader.py" "the attachment note"
wait_for "FIRST-ANSWER" "the answer"
tm send-keys -t "$session" -l "@Makefile what builds?"
# Enter once no completion list offers @Makefile (the word at the cursor is "builds?"); not Esc to
# close it: ESC and CR sent together are Alt+Enter, as a terminal sends it (a newline here).
deadline=$((SECONDS + timeout_s))
while (($(pane | grep -c "Makefile") > 1)); do
    if ((SECONDS >= deadline)); then fail "the completion list stayed"; fi
    sleep 0.1
done
tm send-keys -t "$session" Enter
wait_for "attached #file:Makefile" "the first-word mention attached"
wait_for "SECOND-ANSWER" "the second answer"
if pane_history | grep -qF "unknown participant"; then fail "@Makefile was taken as a participant"; fi
echo "tmux mention check: OK"
