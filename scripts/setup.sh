#!/usr/bin/env bash
# Create .venv and install agent-tui (editable) with what the given extra needs.
# Idempotent and quick when nothing changed: a stamp records the pyproject and lock it installed.
#   scripts/setup.sh          the app
#   scripts/setup.sh dev      the app + test tools + the real MCP test servers + tmux
# Refresh the locks after changing dependencies in pyproject.toml:
#   .venv/bin/uv pip compile pyproject.toml -o requirements/app.lock
#   .venv/bin/uv pip compile pyproject.toml --extra dev -o requirements/dev.lock
set -euo pipefail
cd "$(dirname "$0")/.."
extra="${1:-}"
py="${PYTHON:-python3}"

if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "agent-tui needs Python 3.11 or newer (found: $("$py" --version 2>&1))" >&2
  exit 2
fi
[ -x .venv/bin/python ] || "$py" -m venv .venv
# Pinned versions (requirements/*.lock, from `uv pip compile`) make every machine, CI included,
# test against the same packages: the SVG snapshots depend on exact textual and syrupy versions.
lock="requirements/${extra:-app}.lock"
stamp=".venv/.installed-${extra:-app}"
want="$(cat pyproject.toml "$lock" | sha256sum | cut -c1-16)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  [ -x .venv/bin/uv ] || .venv/bin/python -m pip install -q --disable-pip-version-check uv
  .venv/bin/uv pip install -q --python .venv/bin/python -r "$lock"
  .venv/bin/uv pip install -q --python .venv/bin/python --no-deps -e .
  echo "$want" > "$stamp"
fi

if [ "$extra" = "dev" ]; then
  # tmux drives the real-terminal check (tests/ui/test_tmux.py).
  if ! command -v tmux >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux) >/dev/null
    else
      echo "note: install tmux to run the real-terminal check" >&2
    fi
  fi
  if [ -x scripts/install-test-servers.sh ]; then
    scripts/install-test-servers.sh
  fi
fi
