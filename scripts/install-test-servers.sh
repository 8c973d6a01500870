#!/usr/bin/env bash
# Install the real MCP servers the tests in tests/mcp/ run against.
#   - @modelcontextprotocol/server-everything (npm), pinned, into tests/.mcp-servers/ (gitignored)
#   - mcp-server-time (PyPI) comes with the `dev` extra of pyproject.toml
# Idempotent: does nothing, silently, when the pinned version is already there. Needs node >= 18
# and npm (scripts/setup.sh dev checks for them first).
set -euo pipefail

EVERYTHING_VERSION="2026.8.31"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dest="$root/tests/.mcp-servers"
pkg="$dest/node_modules/@modelcontextprotocol/server-everything/package.json"

if ! { [[ -f "$pkg" ]] && grep -q "\"version\": \"$EVERYTHING_VERSION\"" "$pkg"; }; then
    echo "installing the MCP test server (server-everything $EVERYTHING_VERSION, npm)…" >&2
    mkdir -p "$dest"
    [[ -f "$dest/package.json" ]] || echo '{"name": "agent-tui-mcp-test-servers", "private": true}' >"$dest/package.json"
    npm install --prefix "$dest" --no-audit --no-fund --save-exact --loglevel=error \
        "@modelcontextprotocol/server-everything@$EVERYTHING_VERSION" >/dev/null
fi

python="${PYTHON:-$root/.venv/bin/python}"
if ! "$python" -c "import mcp_server_time" 2>/dev/null; then
    echo "mcp-server-time is missing: install the dev extra (uv pip install -e '.[dev]')" >&2
    exit 1
fi
