# Shared by the tmux checks (sourced, not run): a private tmux server per run, a pane reader, and
# waits that poll the pane with a deadline (no fixed sleeps). The caller sets `work` (a temp dir)
# and `session`, and may set `server_pid`; `timeout_s` is the deadline of each wait.
# wait_gone TEXT WHAT: poll the pane until TEXT is no longer on it, or fail after the deadline.
wait_gone() {
    local deadline=$((SECONDS + timeout_s))
    while pane | grep -qF -- "$1"; do
        if ((SECONDS >= deadline)); then fail "waiting for $2 (\"$1\" still shown)"; fi
        sleep 0.1
    done
}

# start_fake_server: the fake LLM server on $work/script.json (127.0.0.1, a free port), in the
# background; sets server_pid (cleanup stops it) and url (its base URL).
start_fake_server() {
    (cd "$root" && exec "$py" -m tests.fakes.llm_server --script "$work/script.json" --port 0) \
        >"$work/server.out" 2>"$work/server.err" &
    server_pid=$!
    local deadline=$((SECONDS + timeout_s))
    until [[ -s "$work/server.out" ]]; do
        if ((SECONDS >= deadline)); then
            echo "tmux check: fake server did not start" >&2
            cat "$work/server.err" >&2
            exit 1
        fi
        sleep 0.05
    done
    url=$(head -n1 "$work/server.out")
}

# start_fake_server and start_scripted_app also need `root` (the repository) and `py` (its Python).

timeout_s=${TMUX_CHECK_TIMEOUT:-30}
server_pid=""
# A private tmux server (socket) for this run: never touches the user's sessions. Each app start
# after the first gets a socket of its own (start_scripted_app): a server told to exit (kill-server,
# or kill-session of its last session) takes a moment to go, and a new-session sent to it meanwhile
# fails with "server exited unexpectedly" (seen in CI under load).
tmux_socket=""
app_starts=0
tm() { tmux -L "${tmux_socket:-$session}" "$@"; }

cleanup() {
    tm kill-server 2>/dev/null || true
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$session" "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$session"-*
    if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; fi
    if [[ "${TMUX_CHECK_KEEP:-0}" != 1 ]]; then rm -rf "$work"; fi
}

pane() { tm capture-pane -p -t "$session" 2>/dev/null || true; }
# The whole pane including what scrolled off: a traceback is longer than the screen.
pane_history() { tm capture-pane -p -S - -t "$session" 2>/dev/null || true; }

# fail WHY: say what failed, show the pane, exit 1.
fail() {
    echo "tmux check: FAILED: $1; the pane was:" >&2
    pane_history >&2
    exit 1
}

# wait_app: the app itself is up, not only the early screen (early_screen/: drawn before the app
# loads; it keeps typed text and Enter, but a key such as Ctrl+T, F1 or Alt+Enter, or "@" waiting
# for its completions, needs the app).
wait_app() {
    wait_for "Ask anything" "the first screen"
    wait_gone "○ starting" "the app to take over from the early screen"
}

# wait_for TEXT WHAT: poll the pane until it contains TEXT, or fail after the deadline.
wait_for() {
    local deadline=$((SECONDS + timeout_s))
    until pane | grep -qF -- "$1"; do
        if ((SECONDS >= deadline)); then fail "waiting for $2 ($1)"; fi
        sleep 0.1
    done
}

# start_scripted_app [COLUMNS ROWS]: agent-tui in a pane (default 100x30) on the scripted provider
# ($work/script.json), in $work/ws with HOME and the state dir in $work; at exit the pane shows
# AGENT-TUI-EXITED <code>. APP_ENV adds NAME=VALUE words to the app's environment, APP_ARGS
# words to its command line, APP_PYTHONPATH a folder before the repository on its PYTHONPATH. The
# terminal's mode (stty -g) before and after the app is written to $work/stty.before and .after.
start_scripted_app() {
    app_starts=$((app_starts + 1))
    if ((app_starts > 1)); then
        tm kill-server 2>/dev/null || true
        tmux_socket="$session-$app_starts"
    fi
    tm new-session -d -s "$session" -x "${1:-100}" -y "${2:-30}" \
        "cd '$work/ws' || exit 1; stty -g >'$work/stty.before'; \
         env HOME='$work/home' AGENT_TUI_STATE_DIR='$work/state' ${APP_ENV:-} \
         PYTHONPATH='${APP_PYTHONPATH:+$APP_PYTHONPATH:}$root' \
         '$py' -m agent_tui --provider scripted --script '$work/script.json' ${APP_ARGS:-}; \
         echo AGENT-TUI-EXITED \$?; stty -g >'$work/stty.after'; sleep 60"
}
