#!/usr/bin/env bash
# Real-terminal check of sessions by name (issue 27 item 1): in tmux on the scripted provider,
# answer a prompt, `/rename` the session, `/export` it, `/fork` it, quit; then a name holding an
# escape sequence is appended to the file (as a hostile file would hold it: typed keys never carry
# a raw ESC), and `agent-tui --resume PREFIX` of it reopens the original, the name shown escaped
# (the terminal's title never set by it).
#
# Usage: scripts/tmux_names_check.sh [COLUMNS ROWS]   ("tmux names check: OK" on success)
# Env:   PYTHON (default: .venv/bin/python), TMUX_CHECK_TIMEOUT, TMUX_CHECK_KEEP=1 (see tmux_lib.sh)
set -euo pipefail

cols=${1:-100}
rows=${2:-30}
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-$root/.venv/bin/python}
work=$(mktemp -d)
session="agent-tui-names-$$"
# shellcheck source=scripts/tmux_lib.sh
source "$root/scripts/tmux_lib.sh"
trap cleanup EXIT

mkdir -p "$work/ws" "$work/home" "$work/state"
printf '[{"text": "The parser is in parse.py."}, {"text": "Again."}]\n' >"$work/script.json"

send() {
    tm send-keys -t "$session" -l "$1"
    tm send-keys -t "$session" Enter
}

start_scripted_app "$cols" "$rows"
wait_app
send "where is the parser"
wait_for "parse.py" "the answer"
send "/rename Parser work"
wait_for "Renamed the session" "the rename"
send "/export"
wait_for "Exported the session" "the export"
ls "$work/ws"/*.md >/dev/null 2>&1 || fail "no Markdown file in the workspace"
send "/fork"
wait_for "Forked" "the fork"
tm send-keys -t "$session" C-c
tm send-keys -t "$session" C-c
wait_for "AGENT-TUI-EXITED" "the app to end"
tm kill-session -t "$session"
original=$(grep -L '"forked_from"' "$work"/state/sessions/*/*.jsonl | head -n 1)
[[ -n "$original" ]] || fail "no session file but the fork"
grep -qF '"name":"Parser work"' "$original" || fail "the /rename is not in the session file"
# ESC ] 0 ; … BEL: written to the terminal as is, it would retitle it.
printf '%s\n' '{"type":"meta","name":"Hostile \u001b]0;pwned\u0007 parser"}' >>"$original"

APP_ARGS="--resume hostile" start_scripted_app "$cols" "$rows"
wait_for "Resumed" "the session resumed by its name"
screen=$(pane)
grep -qF "where is the parser" <<<"$screen" || fail "the resumed prompt is not shown"
grep -qF "␛]0;pwned" <<<"$screen" || fail "the name is not shown escaped"
if grep -qF "(fork)" <<<"$screen"; then fail "the fork was resumed, not the original"; fi
title=$(tm display-message -p -t "$session" '#{pane_title}')
if grep -qF "pwned" <<<"$title"; then fail "the name set the terminal's title"; fi
echo "tmux names check: OK"
