"""A ``$BROWSER`` for tests: fetch the URL and follow its redirects, as a browser would.

    BROWSER="python -m tests.mcp.fake_browser %s"

An authorization server that needs no login page (the conformance suite's) redirects straight
back to agent-tui's loopback callback, which is what this lands on.
"""

from __future__ import annotations

import sys

import httpx


def main() -> int:
    response = httpx.get(sys.argv[1], follow_redirects=True, timeout=10)
    print(f"fake browser: {response.status_code} {response.url}", file=sys.stderr)
    return 0 if response.is_success else 1


if __name__ == "__main__":
    sys.exit(main())
