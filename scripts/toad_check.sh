#!/usr/bin/env bash
# agent-tui as the ACP agent of Toad (PyPI batrachian-toad, a Textual ACP client nobody here wrote),
# in a real terminal (tmux), against the fake LLM server, in one Toad session: a create_file
# approval answered "Allow once" (the file appears), one answered "Reject" (nothing written, the
# model is told), an edit of the existing file approved on Toad's diff screen, then the mode
# switched to "accept edits" in Toad and an edit made without a question. Waits poll the pane with
# a deadline (no fixed sleeps); the screens are kept.
#
# Toad needs Python >= 3.14, which Debian bookworm lacks, so Toad and agent-tui run in a Debian sid
# chroot built once with debootstrap (about 3 minutes, ~600 MB) and reused afterwards; agent-tui is
# reinstalled into it from this checkout on every run. Not part of the test suite or CI: it needs
# root (debootstrap, chroot, mount) and minutes.
#
# Usage: scripts/toad_check.sh     (as root; exit 0 and "toad check: OK" on success, else 1)
# Env:   TOAD_CHECK_ROOT   the chroot (default ~/.cache/agent-tui-bench/sid)
#        TOAD_CHECK_TOAD   the Toad requirement (default batrachian-toad==0.6.20)
#        TOAD_CHECK_SCREENS where the captured screens go (default ~/.cache/agent-tui-bench/toad-screens)
#        TMUX_CHECK_TIMEOUT seconds per wait (default 60), TMUX_CHECK_KEEP=1 keeps the temp dir.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-$root/.venv/bin/python}
chroot_dir=${TOAD_CHECK_ROOT:-$HOME/.cache/agent-tui-bench/sid}
toad_req=${TOAD_CHECK_TOAD:-batrachian-toad==0.6.20}
screens=${TOAD_CHECK_SCREENS:-$HOME/.cache/agent-tui-bench/toad-screens}
export TMUX_CHECK_TIMEOUT=${TMUX_CHECK_TIMEOUT:-60}
session="agent-tui-toad-$$"
work=""
mounted=()

say() { echo "toad check: $*" >&2; }
die() {
    echo "toad check: FAILED: $*" >&2
    exit 1
}

if [[ $(id -u) != 0 ]]; then die "needs root (debootstrap, chroot, mount)"; fi

# in_chroot CMD...: run in the chroot with a clean environment (nothing of the host's leaks in).
in_chroot() {
    chroot "$chroot_dir" env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
        PIP_CERT=/etc/ssl/certs/ca-certificates.crt PIP_DISABLE_PIP_VERSION_CHECK=1 "$@"
}

build_chroot() {
    if ! command -v debootstrap >/dev/null; then
        say "installing debootstrap (apt-get)…"
        apt-get install -y -q debootstrap >/dev/null || die "apt-get install debootstrap failed"
    fi
    say "building a Debian sid chroot in $chroot_dir (minutes)…"
    rm -rf "$chroot_dir.tmp"
    mkdir -p "$(dirname "$chroot_dir")"
    debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates,git \
        sid "$chroot_dir.tmp" http://deb.debian.org/debian >"$chroot_dir.log" 2>&1 ||
        die "debootstrap failed (see $chroot_dir.log)"
    mv "$chroot_dir.tmp" "$chroot_dir"
}

# A host behind a TLS-inspecting proxy trusts the proxy's CA in /usr/local/share/ca-certificates:
# the chroot needs it too for pip to reach PyPI.
share_host_cas() {
    local cas=(/usr/local/share/ca-certificates/*.crt)
    if [[ -e ${cas[0]} ]]; then
        cp "${cas[@]}" "$chroot_dir/usr/local/share/ca-certificates/"
        in_chroot update-ca-certificates >/dev/null 2>&1 || die "update-ca-certificates failed"
    fi
}

install_toad() {
    if [[ -x $chroot_dir/opt/toad/bin/toad ]]; then return; fi
    say "installing $toad_req in the chroot (pip)…"
    in_chroot python3 -m venv /opt/toad
    in_chroot /opt/toad/bin/pip install -q "$toad_req" >&2 || die "pip install $toad_req failed"
}

# agent-tui from this checkout (its working tree), in a venv of its own: Toad pins its own Textual.
install_agent_tui() {
    say "installing agent-tui from $root into the chroot (pip)…"
    rm -rf "$chroot_dir/opt/agent-tui-src"
    mkdir -p "$chroot_dir/opt/agent-tui-src"
    (cd "$root" && tar -cf - --exclude=__pycache__ pyproject.toml README.md agent_tui tools prompts) |
        tar -xf - -C "$chroot_dir/opt/agent-tui-src"
    if [[ ! -x $chroot_dir/opt/agent-tui/bin/pip ]]; then in_chroot python3 -m venv /opt/agent-tui; fi
    in_chroot /opt/agent-tui/bin/pip install -q /opt/agent-tui-src >&2 || die "pip install agent-tui failed"
}

# /proc and /dev (with /dev/pts) for the programs in the pane; unmounted at exit.
mount_filesystems() {
    local target
    for target in proc dev dev/pts; do
        if mountpoint -q "$chroot_dir/$target"; then continue; fi
        case $target in
            proc) mount -t proc proc "$chroot_dir/proc" ;;
            *) mount --bind "/$target" "$chroot_dir/$target" ;;
        esac
        mounted=("$chroot_dir/$target" "${mounted[@]}")
    done
}

# Is any process still running inside the chroot (its root directory there)?
chroot_busy() {
    local proc_dir real
    real=$(readlink -f "$chroot_dir")
    for proc_dir in /proc/[0-9]*; do
        if [[ $(readlink "$proc_dir/root" 2>/dev/null) == "$real" ]]; then return 0; fi
    done
    return 1
}

finish() {
    if [[ -n $work ]]; then cleanup; fi # tmux's kill-server hangs up Toad and its agent
    local deadline=$((SECONDS + 10)) target
    while chroot_busy && ((SECONDS < deadline)); do sleep 0.1; done
    for target in "${mounted[@]}"; do umount "$target" || umount --lazy "$target"; done
}
trap finish EXIT

if [[ ! -x $chroot_dir/usr/bin/python3 ]]; then build_chroot; fi
cp /etc/resolv.conf "$chroot_dir/etc/resolv.conf"
share_host_cas
in_chroot python3 -c 'import sys; sys.exit(sys.version_info < (3, 14))' ||
    die "the chroot's python3 is older than 3.14 (Toad's minimum): $(in_chroot python3 --version)"
install_toad
install_agent_tui
mount_filesystems
toad_version=$(in_chroot /opt/toad/bin/toad --version 2>&1 | tail -n1)
python_version=$(in_chroot python3 --version)

work=$(mktemp -d "$chroot_dir/tmp/toad-check.XXXXXX")
inside=${work#"$chroot_dir"} # the same directory as the chroot sees it
# shellcheck source=scripts/tmux_lib.sh
source "$root/scripts/tmux_lib.sh"
mkdir -p "$work/ws" "$work/home" "$screens"
cat >"$work/script.json" <<'JSON'
[
  {"tool_calls": [{"id": "call_1", "name": "create_file",
                   "input": {"path": "yes.txt", "content": "approved in Toad\n"}}]},
  {"text": "Created yes.txt. TOAD-YES-DONE"},
  {"tool_calls": [{"id": "call_2", "name": "create_file",
                   "input": {"path": "no.txt", "content": "rejected in Toad\n"}}]},
  {"text": "Not creating no.txt. TOAD-NO-DONE"},
  {"tool_calls": [{"id": "call_3", "name": "replace_string_in_file",
                   "input": {"path": "yes.txt", "old_string": "approved in Toad",
                             "new_string": "edited in Toad"}}]},
  {"text": "Edited yes.txt. TOAD-EDIT-DONE"},
  {"tool_calls": [{"id": "call_4", "name": "replace_string_in_file",
                   "input": {"path": "yes.txt", "old_string": "edited in Toad",
                             "new_string": "accepted in Toad"}}]},
  {"text": "Edited yes.txt again. TOAD-MODE-DONE"}
]
JSON

# The fake server runs on the host; the chroot shares its network, so 127.0.0.1 reaches it.
start_fake_server

# How Toad runs any ACP agent: `toad acp "COMMAND" PROJECT_DIR`, as the README says (agent-tui on
# PATH: Toad names the agent by the command's first word).
agent="agent-tui acp --provider anthropic --base-url $url"
tm new-session -d -s "$session" -x 120 -y 40 \
    "chroot '$chroot_dir' env -i HOME='$inside/home' PATH=/opt/agent-tui/bin:/usr/bin:/bin \
     LANG=C.UTF-8 \
     TERM=xterm-256color ANTHROPIC_API_KEY=test AGENT_TUI_STATE_DIR='$inside/state' \
     sh -c 'cd $inside/ws && /opt/toad/bin/toad acp \"$agent\" $inside/ws'; \
     echo TOAD-EXITED \$?; sleep 60"

# wait_idle WHAT: until the session's tab says neither busy (⌛) nor asking (❯): the turn is over
# and the input has the keys again (typed earlier, they are lost).
wait_idle() { wait_for "▎  New Session" "$1"; }

# turn_over: Toad takes keys again only once the turn is over (wait_idle) and the answered
# question has left the input (0.3 s after the answer, which a fast model outruns): keys typed
# earlier are lost.
turn_over() {
    wait_idle "the end of the turn"
    wait_gone "Allow once" "the answered question to leave Toad's input"
}

# prompt TEXT: type a prompt into Toad's input, see it there, send it and see it in the transcript.
prompt() {
    turn_over
    tm send-keys -t "$session" -l "$1"
    wait_for "▊ ❯ $1 " "the prompt in Toad's input"
    tm send-keys -t "$session" Enter
    wait_for "▌ ❯ $1" "the prompt sent"
}

wait_for "   agent-tui  /tmp/" "Toad connected to agent-tui (its name in the footer)"
prompt "please create yes.txt"
wait_for "Allow once" "the approval of yes.txt"
pane >"$screens/1-asked.txt"
tm send-keys -t "$session" a # Toad: a = Allow once
wait_for "TOAD-YES-DONE" "the answer after the approved call"
turn_over
pane >"$screens/2-approved.txt"
[[ $(cat "$work/ws/yes.txt" 2>/dev/null) == "approved in Toad" ]] || fail "yes.txt was not written"

prompt "please create no.txt"
wait_for "Creating no.txt" "the second tool call"
wait_for "Allow once" "the approval of no.txt"
tm send-keys -t "$session" r # Toad: r = Reject once
wait_for "TOAD-NO-DONE" "the answer after the rejected call"
turn_over
pane >"$screens/3-rejected.txt"
[[ ! -e $work/ws/no.txt ]] || fail "no.txt was written although the call was rejected"
# What the model was told about the rejected call: the last request's tool result.
told=$("$py" -c 'import json, sys, urllib.request
last = json.load(urllib.request.urlopen(sys.argv[1] + "/_requests"))[-1]["messages"][-1]
print(" ".join(b.get("content", "") for b in last["content"] if b.get("type") == "tool_result"))' "$url")
[[ $told == *declined* ]] || fail "the model was not told of the rejection (it got: $told)"

# An edit of an existing file: Toad asks on its diff screen (a new file's diff has no old text,
# and Toad then asks in its input as above).
prompt "please edit yes.txt"
wait_for "Allow once" "the approval of the edit"
pane >"$screens/4-edit-asked.txt"
tm send-keys -t "$session" a
wait_for "TOAD-EDIT-DONE" "the answer after the approved edit"
turn_over
pane >"$screens/5-edited.txt"
[[ $(cat "$work/ws/yes.txt") == "edited in Toad" ]] || fail "yes.txt was not edited"

# Toad's mode switcher (ctrl+o; modes sorted by name, the current one ticked): "accept edits" is
# session/set_mode, and the next edit runs without a question (one would never be answered).
tm send-keys -t "$session" C-o
wait_for "✔ ask" "Toad's list of agent-tui's modes"
tm send-keys -t "$session" Up Enter
wait_gone "✔ ask" "the list of modes to close"
wait_for "  accept edits" "the mode in Toad's footer"
prompt "please edit yes.txt again"
wait_for "TOAD-MODE-DONE" "the answer after the edit made in accept-edits mode"
turn_over
pane >"$screens/6-accept-edits.txt"
[[ $(cat "$work/ws/yes.txt") == "accepted in Toad" ]] || fail "yes.txt was not edited in accept-edits mode"

echo "Toad $toad_version, $python_version; screens in $screens"
echo "toad check: OK"
