#!/usr/bin/env bash
# Real-terminal check of the early screen (early_screen/): in tmux, the app's `import textual` is
# held (tests/early_screen/hold/sitecustomize.py) so the keys below certainly reach the early
# screen, not the app. 1) The early screen shows the workspace, the prompt's placeholder and the
# key hints, its footer and the line above the prompt exactly as the app then draws them (same
# characters, same colours); "hello wörld", CR, "draft two" typed on it: the first is the
# message the model gets once the app is up, the second waits in the prompt; quitting restores the
# terminal's mode. 2) Ctrl+C twice on the early screen quits at once (exit 0, mode restored,
# no session). 3) A workspace .agentrc with an unknown key: the error prints on the normal screen.
# 4) Without the hold, typing from the spawn on, one key every 10 ms as a fast typist: every
# character reaches the app's prompt, in order, across the early screen's handover to the app.
#
# Usage: scripts/tmux_early_screen_check.sh [COLUMNS ROWS [truecolor|256]]
#        ("tmux early screen check: OK"; 256: COLORTERM empty, the colours as Rich brings them down)
# Env:   PYTHON (default: .venv/bin/python), TMUX_CHECK_TIMEOUT, TMUX_CHECK_KEEP=1 (see tmux_lib.sh)
set -euo pipefail

cols=${1:-100}
rows=${2:-30}
colours=${3:-truecolor}
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-$root/.venv/bin/python}
work=$(mktemp -d)
session="agent-tui-early-$$"
# shellcheck source=scripts/tmux_lib.sh
source "$root/scripts/tmux_lib.sh"
trap cleanup EXIT

mkdir -p "$work/ws" "$work/home" "$work/state"
printf '[{"text": "ANSWER-ONE"}]\n' >"$work/script.json"
APP_PYTHONPATH="$root/tests/early_screen/hold"
APP_ENV="EARLY_SCREEN_RELEASE='$work/release' COLORTERM=${colours/256/}"

row() { tm capture-pane -p -e -t "$session" -S "$1" -E "$1"; }
same_mode() {
    wait_for "AGENT-TUI-EXITED $1" "the exit ($1)"
    until [[ -s "$work/stty.after" ]]; do sleep 0.05; done
    cmp -s "$work/stty.before" "$work/stty.after" || fail "the terminal's mode was not restored"
}

# 1) Typing on the early screen; its look against the app's.
start_scripted_app "$cols" "$rows"
wait_for "○ starting │ $work/ws" "the early screen"
wait_for "Ask anything · / commands" "the early screen's prompt"
early_footer=$(row $((rows - 1)))
early_line=$(row $((rows - 3)))
tm send-keys -t "$session" -l "hello wörld"
tm send-keys -t "$session" -H 0d
tm send-keys -t "$session" -l "draft two"
wait_for " draft two" "the typing shown on the early screen"
if pane | grep -qF "○ ready"; then fail "the app was up before the release"; fi
touch "$work/release"
wait_for "ANSWER-ONE" "the answer to the message typed on the early screen"
wait_for "○ ready" "the app's status bar"
[[ "$(row $((rows - 1)))" == "$early_footer" ]] || fail "the footer differs from the app's"
[[ "$(row $((rows - 3)))" == "$early_line" ]] || fail "the line above the prompt differs"
"$py" - "$work/state" <<'PY' || fail "the session does not hold the message typed early"
import json, pathlib, sys
files = list(pathlib.Path(sys.argv[1]).rglob("*.jsonl"))
lines = [json.loads(l) for f in files for l in f.read_text().splitlines() if l.strip()]
texts = [json.dumps(l, ensure_ascii=False) for l in lines]
assert any('"hello wörld"' in t for t in texts), texts
assert not any("draft two" in t for t in texts), "the draft was sent"
PY
pane | grep -qF " draft two" || fail "the draft is not in the app's prompt"
tm send-keys -t "$session" C-u
tm send-keys -t "$session" C-c
tm send-keys -t "$session" C-c
same_mode 0

# 2) Ctrl+C twice on the early screen.
rm -rf "$work/state" "$work/release" "$work/stty.after" && mkdir "$work/state"
start_scripted_app "$cols" "$rows"
wait_for "○ starting" "the early screen again"
tm send-keys -t "$session" -l "x"
tm send-keys -t "$session" -H 03 03
same_mode 0
if find "$work/state" -name '*.jsonl' | grep -q .; then fail "a session was written"; fi

# 3) An error while the early screen is up prints where it can be read.
rm -f "$work/stty.after"
printf 'no_such_key = 1\n' >"$work/ws/.agentrc"
start_scripted_app "$cols" "$rows"
wait_for "unknown key" "the configuration error on the normal screen"
same_mode 2
if pane_history | grep -qF "Traceback"; then fail "a traceback"; fi

# 4) Typing through the whole start.
rm -f "$work/ws/.agentrc" "$work/stty.after"
APP_PYTHONPATH=""
text="the quick brown fox jumps over the lazy dog and keeps running far away"
start_scripted_app "$cols" "$rows"
for ((i = 0; i < ${#text}; i++)); do
    tm send-keys -t "$session" -l "${text:i:1}"
    sleep 0.01
done
wait_for "○ ready" "the app"
wait_for " ${text: -30}" "the end of the text typed during the start"
pane | grep -qF " $text" || fail "keys typed during the start were lost"
if pane_history | grep -qF "Traceback"; then fail "a traceback"; fi
echo "tmux early screen check: OK"
