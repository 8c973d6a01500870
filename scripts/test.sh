#!/usr/bin/env bash
# Set up (first time) and run the whole test suite. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
SETUP_NEXT_STEP="running the tests" scripts/setup.sh dev
exec .venv/bin/python -m pytest "$@"
