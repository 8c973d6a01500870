"""URL patterns (userinfo tricks, IDNA, ports, dot segments), terminal rules, path globs."""

from __future__ import annotations

import pytest

from agent_tui.approvals.rules import (
    TerminalRule,
    UrlPattern,
    glob_matches,
    normalise_path,
    url_origin,
)
from agent_tui.errors import ConfigError


def _matches(pattern: str, url: str) -> bool:
    parsed = UrlPattern.parse(pattern)
    assert parsed is not None, pattern
    return parsed.matches(url)


@pytest.mark.parametrize(
    "url",
    [
        "https://trusted.example@evil.example/",
        "https://trusted.example:pw@evil.example/",
        "https://user@trusted.example/",  # credentials in a URL are never auto-approved
        "https://trusted.example\\@evil.example/",
        "https://trusted.example%2f@evil.example/",
        "https://evil.example/trusted.example/",
        "https://evil.example/?u=https://trusted.example/",
        "https://evil.example#https://trusted.example/",
        "https://trusted.example.evil.example/",
        "https://eviltrusted.example/",
        "http://trusted.example/",  # scheme differs
        "https://trusted.example:8443/",  # port differs
        "https://trusted.example:99999/",  # bad port
        "ftp://trusted.example/",
        "https:///trusted.example/",
        "https://trusted.example /",
        "https://trusted.example\t/",
        "javascript:alert(1)//trusted.example/",
        "not a url",
        "",
    ],
)
def test_lookalikes_do_not_match(url: str) -> None:
    assert not _matches("https://trusted.example", url)


@pytest.mark.parametrize(
    "url",
    [
        "https://trusted.example",
        "https://trusted.example/",
        "https://TRUSTED.Example/a/b?q=1#frag",
        "https://trusted.example./x",
        "https://trusted.example:443/x",
    ],
)
def test_same_origin_matches(url: str) -> None:
    assert _matches("https://trusted.example", url)


def test_path_globs_and_dot_segments() -> None:
    pattern = "https://docs.python.org/3/*"
    assert _matches(pattern, "https://docs.python.org/3/library/re.html")
    assert not _matches(pattern, "https://docs.python.org/2/library/re.html")
    assert not _matches(pattern, "https://docs.python.org/3/../admin")
    assert not _matches(pattern, "https://docs.python.org/3/%2e%2e/admin")
    assert not _matches(pattern, "https://docs.python.org/3/%2E%2E/admin")
    assert _matches("https://a.example/exact", "https://a.example/exact")
    assert not _matches("https://a.example/exact", "https://a.example/exact/more")
    assert normalise_path("/a/./b/../c/") == "/a/c/"
    assert normalise_path("") == "/"


def test_subdomain_wildcard_and_missing_scheme() -> None:
    assert _matches("*.example.com", "https://docs.example.com/")
    assert _matches("*.example.com", "http://a.b.example.com/")
    assert not _matches("*.example.com", "https://example.com/")
    assert not _matches("*.example.com", "https://badexample.com/")
    assert not _matches("*.example.com", "ftp://docs.example.com/")


def test_idna_hosts_match_in_either_form() -> None:
    assert _matches("https://bücher.example", "https://xn--bcher-kva.example/")
    assert _matches("https://xn--bcher-kva.example", "https://BÜCHER.example/")
    assert not _matches("https://bücher.example", "https://bucher.example/")


def test_ports() -> None:
    assert _matches("http://127.0.0.1:8000/*", "http://127.0.0.1:8000/x")
    assert not _matches("http://127.0.0.1:8000/*", "http://127.0.0.1:8001/x")
    assert not _matches("http://127.0.0.1:8000/*", "http://127.0.0.1/x")
    assert _matches("http://[::1]:8080", "http://[::1]:8080/")


@pytest.mark.parametrize("bad", ["https://user@host/", "https://host:port/", "https://", "://"])
def test_unusable_patterns(bad: str) -> None:
    assert UrlPattern.parse(bad) is None


def test_url_origin() -> None:
    assert url_origin("https://Docs.Python.org:443/3/x?y") == "https://docs.python.org"
    assert url_origin("http://127.0.0.1:8000/") == "http://127.0.0.1:8000"
    assert url_origin("https://a@b.example/") is None
    assert url_origin("http://[::1]:8080/x") == "http://[::1]:8080"


@pytest.mark.parametrize(
    ("rule", "text", "expected"),
    [
        ("git status", "git status", True),
        ("git status", "git  status   --short", True),
        ("git status", "git statusx", False),
        ("git status", "git", False),
        ("git", "gitk", False),
        ("/^npm (test|run lint)$/", "npm run lint", True),
        ("/^npm (test|run lint)$/", "npm run lint --fix", False),
        ("/^NPM test$/i", "npm test", True),
        ("/rm/", "git rm x", True),
        ("", "anything", False),
    ],
)
def test_terminal_rule(rule: str, text: str, expected: bool) -> None:
    assert TerminalRule.parse(rule, True).matches(text) is expected


def test_bad_regex_rule() -> None:
    with pytest.raises(ConfigError, match="not a valid regular expression"):
        TerminalRule.parse("/(/", True, source="~/.agentrc")


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        ("src/**/*.py", "src/a.py", True),
        ("src/**/*.py", "src/a/b/c.py", True),
        ("src/**/*.py", "src/a.pyc", False),
        ("src/**/*.py", "other/src/a.py", False),
        ("src/*.py", "src/a/b.py", False),
        ("*.md", "README.md", True),
        ("*.md", "docs/x.md", False),
        ("**/*.md", "docs/x.md", True),
        ("docs/?.md", "docs/a.md", True),
        ("docs/?.md", "docs/ab.md", False),
        ("a+b/[x].txt", "a+b/[x].txt", True),
    ],
)
def test_globs(glob: str, path: str, expected: bool) -> None:
    assert glob_matches(glob, path) is expected
