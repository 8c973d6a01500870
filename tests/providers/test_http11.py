"""The providers' own HTTP/1.1 client (providers/http11.py) and the httpx path it leaves for proxies.

Real sockets on 127.0.0.1: the fake LLM server, or a raw asyncio server where a test needs bytes
the fake server never sends (a split UTF-8 character, a kept-alive connection closed while idle,
a stalled answer).
"""

from __future__ import annotations

import asyncio
import ssl
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from agent_tui.config import ModelConfig
from agent_tui.errors import ProviderError, ProviderRateLimitError, StreamInterrupted
from agent_tui.providers import http11
from agent_tui.providers.openai import OpenAIProvider
from agent_tui.providers.retry import RetryPolicy
from tests.fakes.llm_server import FakeLLM
from tests.helpers import missing

from .conftest import KEY_ENV, Sleeps, collect, collect_error, simple_request
from .test_streaming import text_of

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
PROXY_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"]


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@asynccontextmanager
async def raw_server(handler: Handler) -> AsyncIterator[str]:
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.close()


async def read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    return head + await reader.readexactly(length)


def provider(url: str, sleeps: Sleeps, timeout_s: float = 20, retries: int = 0) -> OpenAIProvider:
    model = ModelConfig(
        provider="openai", name="m", base_url=url, api_key_env=KEY_ENV, timeout_s=timeout_s
    )
    return OpenAIProvider(model, retry=RetryPolicy(max_retries=retries, sleep=sleeps))


def sse(*payloads: str) -> bytes:
    return b"".join(b"data: " + p.encode() + b"\n\n" for p in payloads)


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


DELTA = '{"choices":[{"index":0,"delta":{"content":%s}}]}'
STOP = '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}'


@pytest.mark.usefixtures("api_key")
async def test_a_character_split_across_chunks_arrives_whole(sleeps: Sleeps) -> None:
    body = sse(DELTA % '"caf\u00e9 \u2713"', STOP, "[DONE]")
    cut = body.index("\u2713".encode()) + 1  # inside the three bytes of the check mark

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n")
        writer.write(b"transfer-encoding: chunked\r\n\r\n")
        for piece in (body[:cut], body[cut:]):
            writer.write(chunk(piece))
            await writer.drain()
            await asyncio.sleep(0)  # the two halves go out as separate chunks
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    async with raw_server(handler) as url:
        events = await collect(provider(url, sleeps))
    assert text_of(events) == "caf\u00e9 \u2713"


@pytest.mark.usefixtures("api_key")
@pytest.mark.parametrize("framing", ["content-length", "read-to-close"])
async def test_unchunked_bodies_are_read_to_their_end(framing: str, sleeps: Sleeps) -> None:
    body = sse(DELTA % '"whole answer"', STOP, "[DONE]")

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        length = f"content-length: {len(body)}\r\n" if framing == "content-length" else ""
        writer.write(f"HTTP/1.1 200 OK\r\n{length}\r\n".encode() + body)
        await writer.drain()
        writer.close()

    async with raw_server(handler) as url:
        events = await collect(provider(url, sleeps))
    assert text_of(events) == "whole answer"


@pytest.mark.usefixtures("api_key")
async def test_a_kept_alive_connection_closed_while_idle_is_reopened_once(sleeps: Sleeps) -> None:
    connections = []
    body = sse(DELTA % '"ok"', STOP)  # no [DONE]: the client reads to the body's end and keeps it

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(writer)
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
        await writer.drain()
        writer.close()  # as a server does when its keep-alive timeout passes

    async with raw_server(handler) as url:
        client = provider(url, sleeps)
        for _ in range(2):
            events = [e async for e in client.stream(simple_request())]
            assert text_of(events) == "ok"
            await asyncio.sleep(0.01)  # let the close reach the client's idle connection
        await client.aclose()
    assert len(connections) == 2
    assert sleeps == []  # not a retry of the request: a fresh connection for a stale one


@pytest.mark.usefixtures("api_key")
async def test_a_stalled_answer_times_out_as_a_broken_stream(sleeps: Sleeps) -> None:
    release = asyncio.Event()

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
        writer.write(chunk(sse(DELTA % '"so far"')))
        await writer.drain()
        await release.wait()  # never sends the rest

    async with raw_server(handler) as url:
        events, error = await collect_error(provider(url, sleeps, timeout_s=0.3))
        release.set()
    assert isinstance(error, StreamInterrupted)
    assert text_of(events) == "so far" and "no data for 0.3 s" in str(error)


@pytest.mark.parametrize(
    "key",
    ["sk-abc\r\nx-evil: 1", "sk-abc\nx-evil: 1", "sk-abc\rx-evil: 1", "sk\r\n\r\nx-evil: 1"],
    ids=["crlf", "lf", "cr", "blank-line"],
)
async def test_a_key_with_a_line_break_never_splits_the_request(
    key: str, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch, sleeps: Sleeps
) -> None:
    monkeypatch.setenv(KEY_ENV, key)
    fake_llm.set_script([{"text": "unused"}])
    _, error = await collect_error(provider(fake_llm.openai_url, sleeps))
    assert type(error) is ProviderError and "line break" in str(error)
    assert "x-evil" not in str(error) and fake_llm.requests == []


@pytest.mark.parametrize(
    ("url", "env", "suits"),
    [
        ("http://127.0.0.1:8080/v1/chat/completions", {}, True),
        ("https://api.openai.com/v1/chat/completions", {}, True),
        ("https://api.openai.com/v1", {"HTTPS_PROXY": "http://proxy:3128"}, False),
        ("https://api.openai.com/v1", {"all_proxy": "socks5://proxy:1080"}, False),
        ("https://api.openai.com/v1", {"HTTP_PROXY": ""}, True),
        ("http://user:pw@127.0.0.1/v1", {}, False),
        ("ftp://127.0.0.1/v1", {}, False),
    ],
)
def test_proxies_credentials_in_the_url_and_other_schemes_go_to_httpx(
    url: str, env: dict[str, str], suits: bool
) -> None:
    assert http11.suits(url, env) is suits


@pytest.mark.usefixtures("api_key")
@pytest.mark.parametrize("path", ["http11", "httpx"])
async def test_both_paths_stream_retry_and_report_cuts_alike(
    path: str, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch, sleeps: Sleeps
) -> None:
    if path == "httpx":
        # A proxy setting sends requests through httpx; NO_PROXY keeps them on loopback.
        monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    fake_llm.set_script(
        [
            {"text": "first answer", "fault": {"status": 503, "times": 1, "retry_after": 0}},
            {"text": "second answer is cut off midway", "fault": "cut"},
        ]
    )
    client = provider(fake_llm.openai_url, sleeps, retries=2)
    events = await collect(client)
    assert text_of(events) == "first answer" and len(sleeps) == 1
    events, error = await collect_error(client)
    assert isinstance(error, StreamInterrupted) and text_of(events)
    assert ("httpx" in sys.modules) or path == "http11"
    fake_llm.set_script([{"text": "x", "fault": {"status": 429, "times": 9}}])
    _, error = await collect_error(provider(fake_llm.openai_url, sleeps, retries=0))
    assert isinstance(error, ProviderRateLimitError)


HOSTILE_ANSWERS = {
    "not-http": b"SSH-2.0-OpenSSH_9.6\r\n\r\n",
    "bad-status": b"HTTP/1.1 abc OK\r\n\r\n",
    "header-flood": b"HTTP/1.1 200 OK\r\n" + b"x-a: b\r\n" * 500 + b"\r\n",
    "huge-header-line": b"HTTP/1.1 200 OK\r\nx-a: " + b"b" * 200_000 + b"\r\n\r\n",
    "bad-chunk-size": b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\ndata\r\n",
    "short-body": b"HTTP/1.1 200 OK\r\ncontent-length: 500\r\n\r\ndata: {}\n\n",
    "bad-length": b"HTTP/1.1 200 OK\r\ncontent-length: lots\r\n\r\n",
    "headers-cut": b"HTTP/1.1 200 OK\r\nx-a: b",
    "negative-length": b"HTTP/1.1 200 OK\r\ncontent-length: -5\r\n\r\ndata: {}\n\n",
    "negative-chunk": b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n-5\r\nab\r\n",
    # A 64 GiB chunk announced, 9 bytes sent: read in pieces, never a 64 GiB buffer.
    "huge-chunk": b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1000000000\r\ndata: {}\n",
    "chunk-overrun": b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nabcdef\r\n",
    "trailer-flood": b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\n"
    + b"x-t: 1\r\n" * 500
    + b"\r\n",
}


@pytest.mark.usefixtures("api_key")
@pytest.mark.parametrize("answer", HOSTILE_ANSWERS.values(), ids=HOSTILE_ANSWERS.keys())
async def test_a_server_that_answers_garbage_is_an_error_not_a_hang(
    answer: bytes, sleeps: Sleeps
) -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(answer)
        await writer.drain()
        writer.close()

    async with raw_server(handler) as url:
        _, error = await collect_error(provider(url, sleeps, timeout_s=5))
    assert isinstance(error, ProviderError)
    assert "cannot reach" in str(error) or "broke off" in str(error)


def self_signed(tmp_path: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, signed by itself."""
    try:
        import datetime as dt
        import ipaddress

        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError:
        missing("cryptography (to make a test certificate)")
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "agent-tui test")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


@pytest.mark.usefixtures("api_key")
@pytest.mark.parametrize("trusted", [True, False], ids=["ssl-cert-file", "unknown-certificate"])
async def test_https_is_verified_against_the_ca_bundle_or_ssl_cert_file(
    trusted: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sleeps: Sleeps
) -> None:
    cert, key = self_signed(tmp_path)
    if trusted:
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    else:
        monkeypatch.delenv("SSL_CERT_FILE", raising=False)
        monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    server_tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_tls.load_cert_chain(cert, key)
    body = sse(DELTA % '"over tls"', STOP, "[DONE]")

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await read_request(reader)
        except (asyncio.IncompleteReadError, ConnectionError):
            return  # the client refused the certificate
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(handler, "127.0.0.1", 0, ssl=server_tls)
    url = f"https://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"
    try:
        if trusted:
            assert text_of(await collect(provider(url, sleeps))) == "over tls"
        else:
            _, error = await collect_error(provider(url, sleeps))
            assert "cannot reach" in str(error) and "CERTIFICATE_VERIFY_FAILED" in str(error)
    finally:
        server.close()


@pytest.mark.usefixtures("api_key")
async def test_the_connection_is_kept_when_the_answer_ends_with_done(sleeps: Sleeps) -> None:
    """OpenAI ends its stream with "[DONE]" and then the body's last chunk: one connection."""
    connections = []
    requests = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(writer)
        while True:
            try:
                requests.append(await read_request(reader))
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
            writer.write(chunk(sse(DELTA % f'"answer {len(requests)}"', STOP, "[DONE]")))
            await writer.drain()
            writer.write(b"0\r\n\r\n")
            await writer.drain()

    async with raw_server(handler) as url:
        client = provider(url, sleeps)
        for n in (1, 2, 3):
            events = [e async for e in client.stream(simple_request())]
            assert text_of(events) == f"answer {n}"
        await client.aclose()
    assert len(requests) == 3 and len(connections) == 1


@pytest.mark.usefixtures("api_key")
async def test_an_answer_that_never_ends_after_done_costs_its_connection_only(
    sleeps: Sleeps,
) -> None:
    connections = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(writer)
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
        writer.write(chunk(sse(DELTA % '"ok"', STOP, "[DONE]")))
        await writer.drain()
        await asyncio.Event().wait()  # never ends the body

    async with raw_server(handler) as url:
        client = provider(url, sleeps)
        for _ in range(2):
            assert text_of([e async for e in client.stream(simple_request())]) == "ok"
        await client.aclose()  # stops the background read; nothing is left running
    assert len(connections) == 2
