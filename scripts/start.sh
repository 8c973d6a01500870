#!/usr/bin/env bash
# Set up (first time) and start agent-tui in the current folder. Arguments pass through.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
"$here/scripts/setup.sh" >&2
exec "$here/.venv/bin/agent-tui" "$@"
