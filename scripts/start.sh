#!/usr/bin/env bash
# Set up (first time) and start agent-tui in the current folder. Arguments pass through.
# A first start installs for a while; each step it takes prints one line on stderr.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
SETUP_NEXT_STEP="starting agent-tui" "$here/scripts/setup.sh" >&2
exec "$here/.venv/bin/agent-tui" "$@"
