#!/usr/bin/env bash
# Set up (first time) and run the whole test suite: the static checks (ruff, ruff format, mypy
# strict), then pytest on every core. Extra arguments go to pytest and skip the static checks
# (`scripts/test.sh tests/ui -x` runs just those tests, still in parallel; add `-n 0` for one
# process, e.g. with --pdb).
set -euo pipefail
cd "$(dirname "$0")/.."
SETUP_NEXT_STEP="running the tests" scripts/setup.sh dev
start=$(date +%s)

if [ $# -eq 0 ]; then
  echo "ruff check…" >&2
  .venv/bin/ruff check agent_tui tests bench scripts
  echo "ruff format --check…" >&2
  .venv/bin/ruff format --check --quiet agent_tui tests bench scripts
  echo "mypy --strict…" >&2
  .venv/bin/mypy
fi

# One worker per core: two per core finished a little sooner (8 min against 10 on 2 cores) but
# loaded the machine to 4-8, which is no test of anything but patience.
workers="${TEST_WORKERS:-$(nproc 2>/dev/null || echo 2)}"
status=0
.venv/bin/python -m pytest -n "$workers" --dist worksteal "$@" || status=$?
echo "scripts/test.sh: $(($(date +%s) - start)) s wall (load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a))" >&2
exit "$status"
