"""The one-shot redirect server of a sign-in (mcp.login.loopback_sign_in), over real loopback HTTP.

Anything may reach a port on 127.0.0.1 (another local program, a web page in the browser): only a
redirect to the callback path carrying a code and the state of the authorization URL completes the
wait; a redirect with another state gets 400 and the wait goes on (the SDK compares the state too;
test_conformance covers that flow end to end).
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import httpx
import pytest

from agent_tui.errors import McpError
from agent_tui.mcp.login import loopback_sign_in


async def _get(url: str) -> httpx.Response:
    async with httpx.AsyncClient(timeout=5) as client:
        return await client.get(url)


async def test_only_a_callback_with_code_and_state_completes_the_sign_in() -> None:
    opened: list[str] = []

    async def open_url(url: str) -> None:
        opened.append(url)

    async with loopback_sign_in(lambda url: None, open_url) as sign_in:
        base = sign_in.redirect_uri
        assert urlsplit(base).hostname == "127.0.0.1"  # loopback only, never 0.0.0.0
        await sign_in.open_url("https://as.example/authorize?x=1")
        assert opened == ["https://as.example/authorize?x=1"]
        waiting = asyncio.create_task(sign_in.wait_callback())
        root = base.removesuffix("/callback")
        strays = [f"{root}/", f"{root}/favicon.ico", f"{base}?code=only", f"{base}?state=only"]
        statuses = [(await _get(url)).status_code for url in strays]
        assert statuses == [404, 404, 400, 400]
        assert not waiting.done()
        answer = await _get(f"{base}?code=C1&state=S1&iss=https%3A%2F%2Fas.example")
        assert answer.status_code == 200 and "Signed in" in answer.text
        result = await waiting
        assert (result.code, result.state, result.iss) == ("C1", "S1", "https://as.example")
        replay = await _get(f"{base}?code=C2&state=S2")  # a second redirect changes nothing
        assert replay.status_code == 404
        assert (await sign_in.wait_callback()).code == "C1"


async def test_an_error_redirect_fails_the_sign_in_with_the_servers_words_cut_short() -> None:
    async with loopback_sign_in(lambda url: None, lambda url: asyncio.sleep(0)) as sign_in:
        waiting = asyncio.create_task(sign_in.wait_callback())
        await _get(f"{sign_in.redirect_uri}?error=access_denied&error_description={'x' * 1000}")
        with pytest.raises(McpError, match="the authorization server said: access_denied") as err:
            await waiting
        assert len(str(err.value)) < 400


async def test_the_port_is_closed_when_the_sign_in_ends() -> None:
    async with loopback_sign_in(lambda url: None, lambda url: asyncio.sleep(0)) as sign_in:
        url = sign_in.redirect_uri
    with pytest.raises(httpx.ConnectError):
        await _get(url)


async def test_a_wrong_state_gets_400_and_the_sign_in_waits_for_the_real_one() -> None:
    async with loopback_sign_in(lambda url: None, lambda url: asyncio.sleep(0)) as sign_in:
        await sign_in.open_url("https://as.example/authorize?client_id=c&state=REAL-77")
        waiting = asyncio.create_task(sign_in.wait_callback())
        base = sign_in.redirect_uri
        forged = await _get(f"{base}?code=EVIL&state=forged")
        assert forged.status_code == 400 and "not the sign-in" in forged.text
        no_state = await _get(f"{base}?code=EVIL")
        assert no_state.status_code == 400
        # Nor can a stranger end the sign-in with an error redirect.
        aborted = await _get(f"{base}?error=access_denied&state=forged")
        assert aborted.status_code == 400
        assert not waiting.done()
        real = await _get(f"{base}?code=GOOD&state=REAL-77")
        assert real.status_code == 200 and "Signed in" in real.text
        result = await waiting
        assert (result.code, result.state) == ("GOOD", "REAL-77")
