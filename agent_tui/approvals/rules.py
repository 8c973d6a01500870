"""Matching for the approval settings: terminal rules, URL patterns, edit globs.

Pure functions and small value classes, no I/O. The policy (policy.py) decides what a match means.

Terminal rules (``[tools.terminal.auto_approve]``): a plain string is a command prefix of whole words
(``"git status"`` matches ``git status --short``, not ``git statusx``); ``/regex/`` (optionally
``/regex/i``) is searched in the sub-command's text. URL patterns (``[tools.urls.auto_approve]``):
``scheme://host[:port]/path-glob``; the host may start with ``*.`` for subdomains, ``*`` in the path
matches anything, no path means the whole origin, a missing scheme means http or https.
Edit globs (``[tools.edits.auto_approve]``): workspace-relative, ``**`` spans folders, ``*`` stays in one.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import SplitResult, unquote, urlsplit

from agent_tui.errors import ConfigError

_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class TerminalRule:
    """One ``[tools.terminal.auto_approve]`` entry."""

    pattern: str
    allow: bool
    regex: re.Pattern[str] | None = None

    @classmethod
    def parse(cls, pattern: str, allow: bool, *, source: str = "") -> TerminalRule:
        """Compile a rule.

        Raises:
            ConfigError: a ``/regex/`` that does not compile.
        """
        regex = compile_terminal_regex(pattern, source=source)
        return cls(pattern, allow, regex)

    def matches(self, command_text: str) -> bool:
        text = " ".join(command_text.split())
        if self.regex is not None:
            return self.regex.search(text) is not None
        prefix = " ".join(self.pattern.split())
        return bool(prefix) and (text == prefix or text.startswith(prefix + " "))


def names_word(pattern: str, item: str, word: str) -> bool:
    """Whether a terminal rule or grant names ``word`` of sub-command ``item`` itself.

    An option that writes or runs (option_effects.py) is covered only by a rule that names it:
    ``"sed -i"`` names ``-i``; the exact-command grant (``/^sed\\ -i\\ …$/``) names every word of
    its command; ``"git log"`` names no option, so it does not cover ``git log --output=F``.
    """
    text = " ".join(item.split())
    if pattern.strip() == "/^" + re.escape(text) + "$/":
        return True
    source = pattern
    if re.fullmatch(r"/(.+)/([i]?)", pattern, flags=re.DOTALL):
        source = pattern.replace("\\", "")  # `/^sed \-i /` names `-i`
    return re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", source) is not None


def compile_terminal_regex(pattern: str, *, source: str = "") -> re.Pattern[str] | None:
    """The compiled regex of a ``/…/`` or ``/…/i`` rule, None for a plain prefix rule.

    Raises:
        ConfigError: the regex does not compile.
    """
    match = re.fullmatch(r"/(.+)/([i]?)", pattern, flags=re.DOTALL)
    if match is None:
        return None
    try:
        return re.compile(match.group(1), re.IGNORECASE if match.group(2) else 0)
    except re.error as exc:
        raise ConfigError(
            f"rule {pattern!r} is not a valid regular expression: {exc}",
            file=source or None,
            key="tools.terminal.auto_approve",
        ) from exc


# --- URLs -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UrlPattern:
    """A parsed URL pattern: scheme, host (glob), port and path glob."""

    text: str
    schemes: frozenset[str]
    host: str
    port: int | None
    path: re.Pattern[str] | None  # None: any path

    @classmethod
    def parse(cls, text: str) -> UrlPattern | None:
        """Parse a pattern; None when it has no usable host."""
        raw = text.strip()
        if "://" not in raw:
            raw = "*://" + raw
        scheme, _, rest = raw.partition("://")
        netloc, slash, path = rest.partition("/")
        hostport = re.fullmatch(r"(\[[^\]]*\]|[^:@]*)(?::(\d+))?", netloc)
        if hostport is None:
            return None  # userinfo, a bad port, ...
        host = _normalise_host(hostport.group(1))
        if not host:
            return None
        port = int(hostport.group(2)) if hostport.group(2) else None
        schemes = frozenset({"http", "https"} if scheme in ("*", "") else {scheme.lower()})
        path_glob = (slash + path) if path else ""
        return cls(text, schemes, host, port, _path_regex(path_glob) if path_glob else None)

    def matches(self, url: str) -> bool:
        parts = parse_url(url)
        if parts is None or parts.scheme not in self.schemes:
            return False
        host = _normalise_host(parts.hostname or "")
        if not _host_matches(self.host, host):
            return False
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
        wanted = self.port or _DEFAULT_PORTS.get(parts.scheme)
        if port != wanted:
            return False
        return self.path is None or self.path.fullmatch(normalise_path(parts.path)) is not None


def parse_url(url: str) -> SplitResult | None:
    """Split a URL we would consider auto-approving; None when it is odd enough to always ask.

    Odd: not http(s), no host, credentials in it (``https://trusted@evil/``), a bad port, or
    characters that browsers and Python read differently (backslashes, whitespace, controls).
    """
    if any(ch in url for ch in "\\ \t\r\n") or any(ord(ch) < 32 for ch in url):
        return None
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        return None
    if parts.scheme.lower() not in _DEFAULT_PORTS or not parts.hostname:
        return None
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        return None
    return parts


def url_origin(url: str) -> str | None:
    """``scheme://host[:port]`` of a URL (default ports left out), or None for an odd URL."""
    parts = parse_url(url)
    if parts is None:
        return None
    host = _normalise_host(parts.hostname or "")
    port = parts.port
    show_port = port is not None and port != _DEFAULT_PORTS.get(parts.scheme)
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if show_port else "")


def normalise_path(path: str) -> str:
    """Remove dot segments (``/docs/../admin`` -> ``/admin``), also percent-encoded ones."""
    decoded = re.sub(r"%2[eE]", ".", path or "/")
    clean = posixpath.normpath(decoded)
    if clean.startswith("//"):
        clean = "/" + clean.lstrip("/")
    if decoded.endswith("/") and clean != "/":
        clean += "/"
    return clean if clean.startswith("/") else "/" + clean


def _normalise_host(host: str) -> str:
    host = unquote(host).strip().rstrip(".").lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]  # urllib's hostname gives IPv6 literals without brackets
    if ":" in host:
        return host
    labels = []
    for label in host.split("."):
        if label == "*" or label.isascii():
            labels.append(label)
            continue
        try:
            labels.append(label.encode("idna").decode("ascii"))
        except UnicodeError:
            return ""
    return ".".join(labels)


def _host_matches(pattern: str, host: str) -> bool:
    if pattern == "*":
        return True
    if pattern.startswith("*."):
        return host.endswith(pattern[1:]) and len(host) > len(pattern) - 1
    return pattern == host


@lru_cache(maxsize=256)
def _path_regex(glob: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(piece) for piece in glob.split("*")))


# --- paths ------------------------------------------------------------------------------------


@lru_cache(maxsize=512)
def glob_regex(glob: str) -> re.Pattern[str]:
    """A workspace-relative path glob as a regex: ``**`` spans folders, ``*``/``?`` stay in one."""
    out = []
    i = 0
    pattern = glob.strip().lstrip("/")
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


def glob_matches(glob: str, relative: str) -> bool:
    """Whether a workspace-relative posix path matches a glob."""
    return glob_regex(glob).fullmatch(relative) is not None
