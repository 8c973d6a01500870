"""OAuth for remote MCP servers: the SDK's client provider, our token store, and "needs sign-in".

The ``mcp`` SDK's ``OAuthClientProvider`` (an httpx auth) does the protocol: protected resource
metadata (path-based and from ``WWW-Authenticate``), authorization server metadata (RFC 8414 and
OpenID), dynamic client registration or a Client ID Metadata Document, PKCE S256, the ``resource``
parameter, scope selection, step-up on 403 ``insufficient_scope`` and refresh. This module gives it

- a token store per server URL: the system keyring when ``keyring`` is installed and has a real
  backend, else ``<state dir>/mcp-oauth/<hash>.json`` (0600);
- the browser step (``SignIn``) only when the user asked to sign in (``agent-tui mcp login``,
  ``/mcp login``). A server started in the background never opens a browser: with no tokens, or
  when the stored ones cannot be refreshed, it fails with "needs sign-in: /mcp login NAME".
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl, ValidationError

from agent_tui.errors import McpError
from agent_tui.mcp.config import ServerConfig
from agent_tui.paths import state_dir
from agent_tui.safe_read import MAX_TEXT_FILE_BYTES, read_text
from agent_tui.state_files import move_aside, write_private

logger = logging.getLogger(__name__)
KEYRING_SERVICE = "agent-tui-mcp-oauth"
# What the redirect URI is registered as when no sign-in is running (never used to redirect).
PLACEHOLDER_REDIRECT = "http://127.0.0.1/callback"


class SignInRequired(McpError):
    """The server wants OAuth and there are no usable tokens: the user must sign in."""

    def __init__(self, server: str) -> None:
        super().__init__(f"needs sign-in: /mcp login {server} (or `agent-tui mcp login {server}`)")
        self.server = server


@dataclass(frozen=True)
class SignIn:
    """The interactive step of a sign-in (``mcp.login`` builds one around a loopback server).

    Args:
        redirect_uri: where the authorization server sends the browser back (127.0.0.1:PORT).
        open_url: shows the authorization URL (browser + printed line).
        wait_callback: the code and state the redirect brought back.
    """

    redirect_uri: str
    open_url: Callable[[str], Awaitable[None]]
    wait_callback: Callable[[], Awaitable[AuthorizationCodeResult]]


def _keyring() -> Any | None:
    """The ``keyring`` module when it is installed and has a backend that stores something."""
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:  # noqa: BLE001 - a broken keyring config means: use the file
        logger.warning("keyring is installed but unusable", exc_info=True)
        return None
    if isinstance(backend, fail.Keyring) or getattr(backend, "priority", 0) <= 0:
        return None
    return keyring


class TokenStore:
    """The SDK's ``TokenStorage`` for one server URL (tokens, their expiry, the client record)."""

    def __init__(self, server_url: str) -> None:
        self.server_url = server_url
        self._keyring = _keyring()
        digest = hashlib.sha256(server_url.encode()).hexdigest()[:24]
        self.path = state_dir() / "mcp-oauth" / f"{digest}.json"

    @property
    def where(self) -> str:
        """Where the tokens are kept, for the user."""
        return "the system keyring" if self._keyring is not None else str(self.path)

    def _load(self) -> dict[str, Any]:
        text: str | None
        if self._keyring is not None:
            text = self._keyring.get_password(KEYRING_SERVICE, self.server_url)
        else:
            try:
                text = read_text(self.path, MAX_TEXT_FILE_BYTES, errors="strict")
            except FileNotFoundError:
                text = None
        if not text:
            return {}
        try:
            record = json.loads(text)
        except ValueError:
            record = None
        if not isinstance(record, dict) or record.get("url") != self.server_url:
            if self._keyring is None:
                move_aside(self.path, "not a token record")
            return {}
        return record

    def _save(self, record: dict[str, Any]) -> None:
        record["url"] = self.server_url
        text = json.dumps(record)
        if self._keyring is not None:
            self._keyring.set_password(KEYRING_SERVICE, self.server_url, text)
        else:
            write_private(self.path, text)

    def clear(self) -> bool:
        """Forget the tokens and the client record. Returns whether there was anything."""
        had = bool(self._load())
        if self._keyring is not None and had:
            self._keyring.delete_password(KEYRING_SERVICE, self.server_url)
        else:
            self.path.unlink(missing_ok=True)
        return had

    def drop_tokens(self) -> None:
        """Forget the tokens (keep the client record and any pending step-up)."""
        record = self._load()
        if record.pop("tokens", None) is not None:
            record.pop("expires_at", None)
            self._save(record)

    def forget_client(self) -> None:
        """Drop the client record (it was registered for another redirect URI)."""
        record = self._load()
        if record.pop("client", None) is not None:
            self._save(record)

    def want_scope(self, scope: str) -> None:
        """Remember that the server asked for more (``scope``) than the tokens grant."""
        record = self._load()
        tokens = record.get("tokens") or {}
        granted = tokens.get("scope") if isinstance(tokens, dict) else None
        record["step_up"] = _scopes(record.get("step_up"), granted, scope) or ""
        self._save(record)

    def step_up_done(self) -> None:
        """A sign-in asked for the wider scope: forget the pending step-up."""
        record = self._load()
        if record.pop("step_up", None) is not None:
            self._save(record)

    def step_up(self) -> str | None:
        """The scopes a sign-in must ask for after a 403 ``insufficient_scope`` (None: none)."""
        value = self._load().get("step_up")
        return value if isinstance(value, str) else None

    def has_tokens(self) -> bool:
        return bool(self._load().get("tokens"))

    def expires_at(self) -> float | None:
        value = self._load().get("expires_at")
        return float(value) if isinstance(value, int | float) else None

    async def get_tokens(self) -> OAuthToken | None:
        raw = self._load().get("tokens")
        try:
            return OAuthToken.model_validate(raw) if raw else None
        except ValidationError:
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        record = self._load()
        record["tokens"] = tokens.model_dump(mode="json", exclude_none=True)
        # Kept beside the token: its expires_in is relative to when it was issued.
        record["expires_at"] = time.time() + tokens.expires_in if tokens.expires_in else None
        self._save(record)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        raw = self._load().get("client")
        try:
            return OAuthClientInformationFull.model_validate(raw) if raw else None
        except ValidationError:
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        record = self._load()
        record["client"] = client_info.model_dump(mode="json", exclude_none=True)
        self._save(record)


def _scopes(*values: str | None) -> str | None:
    """The union of space-separated scope lists, in first-seen order (None: no scope at all)."""
    seen: dict[str, None] = {}
    for value in values:
        seen.update(dict.fromkeys((value or "").split()))
    return " ".join(seen) or None


def insufficient_scope(response: httpx2.Response) -> bool:
    """A 403 whose challenge says the token lacks a scope (the MCP spec's step-up signal)."""
    from mcp.client.auth.utils import extract_field_from_www_auth

    return (
        response.status_code == 403
        and extract_field_from_www_auth(response, "error") == "insufficient_scope"
    )


class _Provider(OAuthClientProvider):
    """The SDK's provider, knowing when stored tokens expire (so a restart refreshes them).

    In the background (``interactive`` False) a 403 ``insufficient_scope`` is not turned into a
    browser sign-in: the 403 goes back to the transport (so only that request fails, as an
    error result) and the wanted scope is kept in the store for the next ``/mcp login``, which
    then asks for the granted scopes plus that one (``wider``).
    """

    def __init__(
        self, store: TokenStore, *, interactive: bool, wider: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(storage=store, **kwargs)
        self._store = store
        self._interactive = interactive
        self._wider = wider
        self._refused = 0  # 403 insufficient_scope answers let through, not yet reported
        self._legacy_issuer = ""  # see _legacy_issuer_in

    def take_step_up(self) -> bool:
        """Whether a request failed on a 403 ``insufficient_scope`` since the last ask."""
        refused, self._refused = self._refused, 0
        return refused > 0

    async def _initialize(self) -> None:
        # The SDK loads tokens without their expiry and would send an expired one forever.
        await super()._initialize()
        self.context.token_expiry_time = self._store.expires_at()

    async def _perform_authorization(self) -> httpx2.Request:
        if self._wider:
            # After a step-up in the background: the scope the SDK chose from the 401 alone
            # would be the old, too-narrow one.
            metadata = self.context.client_metadata
            metadata.scope = _scopes(metadata.scope, self._wider)
        return await super()._perform_authorization()

    def _expected_issuer(self) -> str:
        if self.context.auth_server_url is None and self._legacy_issuer:
            return self._legacy_issuer
        return super()._expected_issuer()

    def _legacy_issuer_in(self, outgoing: httpx2.Request, response: httpx2.Response) -> str:
        """The issuer to expect on the 2025-03-26 path, if this metadata answer shows one.

        A server from before protected resource metadata (none was found) has its authorization
        server on its own origin, metadata at the origin's root well-known URL; some name an
        issuer with a path there (``https://host/oauth``). The SDK expects the bare origin and
        stops. Such an issuer is accepted only on that path, only on the MCP server's own
        origin, and only as what the metadata at that origin says: servers with protected
        resource metadata keep the strict check.
        """
        if (
            self._legacy_issuer
            or self.context.protected_resource_metadata is not None
            or self.context.auth_server_url is not None
            or response.status_code != 200
            or not outgoing.url.path.startswith("/.well-known/oauth-authorization-server")
        ):
            return ""
        try:
            issuer = json.loads(response.content).get("issuer")
        except (ValueError, AttributeError, httpx2.ResponseNotRead):
            return ""
        if not isinstance(issuer, str):
            return ""
        origin, server = urlsplit(issuer), urlsplit(self.context.server_url)
        if (origin.scheme, origin.netloc) != (server.scheme, server.netloc) or origin.query:
            return ""
        return issuer if issuer.rstrip("/") != f"{server.scheme}://{server.netloc}" else ""

    async def _auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = super()._auth_flow(request)
        challenge: httpx2.Response | None = None
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                if not self._interactive and outgoing is request and insufficient_scope(response):
                    from mcp.client.auth.utils import extract_scope_from_www_auth

                    self._store.want_scope(extract_scope_from_www_auth(response) or "")
                    self._refused += 1
                    return  # the 403 is this request's answer
                if outgoing is request:
                    challenge = response
                elif challenge is not None:
                    await response.aread()
                    issuer = self._legacy_issuer_in(outgoing, response)
                    if issuer:
                        # The SDK fixed the issuer it expects before fetching this: run its flow
                        # again from the same 401, now expecting this one (no request repeated).
                        self._legacy_issuer = issuer
                        await flow.aclose()
                        flow = super()._auth_flow(request)
                        await flow.__anext__()
                        outgoing = await flow.asend(challenge)
                        continue
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()


class _NeedsSignIn(httpx2.Auth):
    """No tokens and nobody to ask: pass requests through; a 401 becomes ``SignInRequired``."""

    def __init__(self, server: str) -> None:
        self.server = server

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        response = yield request
        if response.status_code == 401:
            raise SignInRequired(self.server)


def step_up_refused(auth: httpx2.Auth | None) -> bool:
    """Whether ``auth`` let a 403 ``insufficient_scope`` through since it was last asked."""
    return isinstance(auth, _Provider) and auth.take_step_up()


def _client_credentials(config: ServerConfig, store: TokenStore) -> httpx2.Auth:
    """A provider for the client_credentials grant: nobody signs in, tokens come on demand.

    Raises:
        McpError: ``client_id`` or a secret/key is missing, or the key file cannot be read.
    """
    from mcp.client.auth.extensions.client_credentials import (
        ClientCredentialsOAuthProvider,
        PrivateKeyJWTOAuthProvider,
        SignedJWTParameters,
    )

    settings = config.oauth
    scope = " ".join(settings.scopes) or None
    if not settings.client_id or not (settings.client_secret or settings.private_key_file):
        raise McpError(
            "oauth.grant = client_credentials needs client_id and client_secret or private_key_file"
        )
    if settings.private_key_file:
        try:
            key = Path(settings.private_key_file).expanduser().read_text(encoding="utf-8")
        except OSError as exc:
            raise McpError(f"cannot read oauth.private_key_file: {exc.strerror}") from exc
        signer = SignedJWTParameters(
            issuer=settings.client_id,
            subject=settings.client_id,
            signing_key=key,
            signing_algorithm=settings.signing_algorithm,
        )
        return PrivateKeyJWTOAuthProvider(
            server_url=config.url,
            storage=store,
            client_id=settings.client_id,
            assertion_provider=signer.create_assertion_provider(),
            scope=scope,
        )
    return ClientCredentialsOAuthProvider(
        server_url=config.url,
        storage=store,
        client_id=settings.client_id,
        client_secret=settings.client_secret,
        scope=scope,
    )


def _pre_registered(config: ServerConfig, redirect_uri: str) -> OAuthClientInformationFull:
    settings = config.oauth
    return OAuthClientInformationFull(
        client_id=settings.client_id,
        client_secret=settings.client_secret or None,
        redirect_uris=[AnyUrl(redirect_uri)],
        token_endpoint_auth_method="client_secret_basic" if settings.client_secret else "none",
        scope=" ".join(settings.scopes) or None,
    )


def client_metadata(config: ServerConfig, redirect_uri: str) -> OAuthClientMetadata:
    """What agent-tui registers as (dynamic client registration)."""
    return OAuthClientMetadata(
        client_name="agent-tui",
        redirect_uris=[AnyUrl(redirect_uri)],
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method="none",  # a public client: it cannot keep a secret
        scope=" ".join(config.oauth.scopes) or None,
    )


async def http_auth(config: ServerConfig, sign_in: SignIn | None = None) -> httpx2.Auth:
    """The httpx auth for a remote server's requests.

    Args:
        config: the server (its URL keys the token store; ``oauth`` holds pre-registered
            credentials).
        sign_in: the browser step; None (a server started in the background): never ask, fail
            with ``SignInRequired`` instead.
    """
    client_metadata_url = config.oauth.client_metadata_url or None
    store = TokenStore(config.url)
    if config.oauth.grant == "client_credentials":
        return _client_credentials(config, store)
    if sign_in is None and not store.has_tokens():
        return _NeedsSignIn(config.name)
    redirect_uri = sign_in.redirect_uri if sign_in is not None else PLACEHOLDER_REDIRECT
    wider = store.step_up() if sign_in is not None else None
    if wider is not None:
        # The stored token works but lacks a scope: sign in again (a 401 starts the flow).
        store.drop_tokens()
    if config.oauth.client_id:
        await store.set_client_info(_pre_registered(config, redirect_uri))
    else:
        known = await store.get_client_info()
        if known is not None and sign_in is not None and known.redirect_uris:
            if str(known.redirect_uris[0]) != redirect_uri and known.client_id != (
                client_metadata_url or ""
            ):
                # Registered with another loopback port: register again rather than be refused.
                store.forget_client()

    async def refuse(_url: str) -> None:
        raise SignInRequired(config.name)

    async def no_callback() -> AuthorizationCodeResult:
        raise SignInRequired(config.name)

    return _Provider(
        store,
        interactive=sign_in is not None,
        wider=wider,
        server_url=config.url,
        client_metadata=client_metadata(config, redirect_uri),
        redirect_handler=sign_in.open_url if sign_in is not None else refuse,
        callback_handler=sign_in.wait_callback if sign_in is not None else no_callback,
        client_metadata_url=client_metadata_url,
    )
