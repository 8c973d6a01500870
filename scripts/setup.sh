#!/usr/bin/env bash
# Create .venv and install agent-tui (editable) with what the given extra needs.
# Idempotent and quick when nothing changed: a stamp records the pyproject, lock and this script it
# installed. Each step that does something prints one line on stderr; a no-op run prints nothing.
#   scripts/setup.sh          the app
#   scripts/setup.sh dev      the app + test tools + the real MCP test servers; needs git, node >= 18
#                             with npm, and tmux (installed with apt-get when run as root on Debian)
# SETUP_NEXT_STEP="starting agent-tui" prints that as the last step line, if any step ran.
# Refresh the locks after changing dependencies in pyproject.toml (existing pins are kept):
#   .venv/bin/uv pip compile pyproject.toml --python-version 3.11 -o requirements/app.lock
#   .venv/bin/uv pip compile pyproject.toml --extra dev --python-version 3.11 -o requirements/dev.lock
set -euo pipefail
cd "$(dirname "$0")/.."
extra="${1:-}"
py="${PYTHON:-python3}"
did=""

step() {
  echo "$*…" >&2
  did=1
}

node_ok() {
  command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1 &&
    node -e 'process.exit(Number(process.versions.node.split(".")[0]) < 18 ? 1 : 0)' 2>/dev/null
}

if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "agent-tui needs Python 3.11 or newer (found: $("$py" --version 2>&1))" >&2
  exit 2
fi

# The tests' prerequisites are checked before anything is installed, so a missing one stops the
# run here with its name instead of halfway through (npm: command not found).
if [ "$extra" = "dev" ]; then
  wanted=()
  command -v git >/dev/null 2>&1 || wanted+=(git)  # real repos in tests
  node_ok || wanted+=(nodejs npm)                   # the MCP test server (server-everything)
  command -v tmux >/dev/null 2>&1 || wanted+=(tmux) # the real-terminal check (tests/ui/test_tmux.py)
  command -v bwrap >/dev/null 2>&1 || wanted+=(bubblewrap) # the sandbox (tests/sandbox/)
  command -v socat >/dev/null 2>&1 || wanted+=(socat)      # its network bridge (else a Python one)
  if [ ${#wanted[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    step "installing ${wanted[*]} with apt-get"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${wanted[@]}") >/dev/null
  fi
  needed=()
  command -v git >/dev/null 2>&1 || needed+=("git")
  node_ok || needed+=("node >= 18 with npm")
  if [ ${#needed[@]} -gt 0 ]; then
    list="$(IFS=,; echo "${needed[*]}" | sed 's/,/, /g')"
    echo "scripts/setup.sh dev: the tests need $list (not found on PATH); install them (Debian/Ubuntu: apt-get install git nodejs npm) and run it again" >&2
    exit 2
  fi
  # A browser to read the HTML export as one does (tests/sessions/test_export.py): Debian's
  # headless Chromium; where it cannot be had, lxml alone checks the page and the test says so.
  if ! command -v chromium-headless-shell >/dev/null 2>&1 && ! command -v chromium >/dev/null 2>&1 &&
    [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    step "installing chromium-headless-shell with apt-get"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends chromium-headless-shell) >/dev/null 2>&1 ||
      echo "note: could not install chromium-headless-shell; the HTML export is read by lxml only" >&2
  fi
  command -v tmux >/dev/null 2>&1 || echo "note: install tmux to run the real-terminal check" >&2
  command -v bwrap >/dev/null 2>&1 || echo "note: install bubblewrap to run the sandbox tests" >&2
elif [ "$(uname -s)" = Linux ] && ! command -v bwrap >/dev/null 2>&1 &&
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  # The app runs commands in a bwrap sandbox where it can; without it they ask first, and the
  # app says so at start (how to install it included), so a non-root setup stays quiet here.
  step "installing bubblewrap (the command sandbox) with apt-get"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap socat) >/dev/null ||
    echo "note: could not install bubblewrap; commands will ask before they run" >&2
fi

if [ ! -x .venv/bin/python ]; then
  step "creating .venv with $("$py" --version 2>&1)"
  "$py" -m venv .venv
fi
# Pinned versions (requirements/*.lock, from `uv pip compile`) make every machine, CI included,
# test against the same packages: the SVG snapshots depend on exact textual and syrupy versions.
lock="requirements/${extra:-app}.lock"
stamp=".venv/.installed-${extra:-app}"
want="$(cat pyproject.toml "$lock" scripts/setup.sh | sha256sum | cut -c1-16)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  step "installing $(grep -c '^[A-Za-z0-9]' "$lock") packages into .venv"
  [ -x .venv/bin/uv ] || .venv/bin/python -m pip install -qq --disable-pip-version-check uv
  # Compiled now, once: where PYTHONDONTWRITEBYTECODE=1 is set (containers, CI) nothing is ever
  # cached, and every start would compile each imported module again.
  .venv/bin/uv pip install -q --compile-bytecode --python .venv/bin/python -r "$lock"
  .venv/bin/uv pip install -q --compile-bytecode --python .venv/bin/python --no-deps -e .
  # uv compiles only what it installs now, not packages an older setup left uncompiled, nor the
  # editable agent_tui/ in the checkout. compileall skips what is already compiled (~1 s).
  # Only a speed-up: a file that does not compile fails where it is imported, with its error.
  site="$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  .venv/bin/python -m compileall -q -j0 "$site" agent_tui >/dev/null 2>&1 || true
  echo "$want" > "$stamp"
fi

if [ "$extra" = "dev" ] && [ -x scripts/install-test-servers.sh ]; then
  servers="tests/.mcp-servers/node_modules/@modelcontextprotocol/server-everything/package.json"
  before="$(cat "$servers" 2>/dev/null || true)"
  scripts/install-test-servers.sh
  [ "$(cat "$servers" 2>/dev/null || true)" = "$before" ] || did=1
fi

if [ -n "$did" ] && [ -n "${SETUP_NEXT_STEP:-}" ]; then
  echo "$SETUP_NEXT_STEP…" >&2
fi
