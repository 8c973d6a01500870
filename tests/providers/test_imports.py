"""Import cost guards: the provider modules must not pull in the SDKs, jsonschema or a UI."""

from __future__ import annotations

import subprocess
import sys

from agent_tui.providers.api import import_httpx
from agent_tui.providers.retry import parse_retry_after


def test_provider_modules_import_no_heavy_dependencies() -> None:
    code = (
        "import sys\n"
        "import agent_tui.providers, agent_tui.providers.anthropic, agent_tui.providers.openai\n"
        "import agent_tui.providers.scripted, agent_tui.providers.recording\n"
        "heavy = ('anthropic', 'openai', 'jsonschema', 'textual', 'prompt_toolkit', 'httpx', 'pydantic')\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == ""


def test_import_httpx_skips_the_cli_module() -> None:
    code = (
        "import sys\n"
        "from agent_tui.providers.api import import_httpx\n"
        "httpx = import_httpx()\n"
        "assert httpx.AsyncClient\n"
        "print('httpx._main' in sys.modules, 'rich' in sys.modules, 'click' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "False", "False"]
    assert import_httpx() is sys.modules["httpx"]  # already imported here: returns the same module


def test_retry_after_forms() -> None:
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # in the past
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
