"""MCP resources as chat context: ``#mcp:<server>/<uri>`` and resource templates.

A reference names a server and a resource URI (``#mcp:everything/demo://resource/static/document/
features.md``) or a template followed by its parameters, ``key=value`` or positional
(``everything/demo://resource/dynamic/text/{resourceId} resourceId=3``, as the TUI passes them) or,
inside one chat token, filled in place (``#mcp:everything/demo://resource/dynamic/text/{resourceId=3}``).
Text is attached inline; binary contents are summarised (type and size).
"""

from __future__ import annotations

import re
import shlex
from typing import TYPE_CHECKING
from urllib.parse import quote

from agent_tui.errors import UsageError
from agent_tui.mcp.types import Part

if TYPE_CHECKING:
    from agent_tui.mcp.manager import McpManager

_EXPRESSION = re.compile(r"\{([+#./;?&]?)([A-Za-z0-9_.,%*:]+)\}")
_RESERVED = ":/?#[]@!$&'()*+,;="
_INLINE_VALUE = re.compile(r"\{([A-Za-z0-9_]+)=([^{}]*)\}")


def template_variables(template: str) -> list[str]:
    names: list[str] = []
    for _op, spec in _EXPRESSION.findall(template):
        for raw in spec.split(","):
            name = raw.split(":")[0].rstrip("*")
            if name not in names:
                names.append(name)
    return names


def expand_template(template: str, values: dict[str, str]) -> str:
    """Fill an RFC 6570 URI template (simple, reserved, path and query expressions).

    Raises:
        UsageError: a variable has no value.
    """
    missing = [name for name in template_variables(template) if name not in values]
    if missing:
        raise UsageError(f"{template} needs: {', '.join(missing)} (give them as name=value).")

    def fill(match: re.Match[str]) -> str:
        op, spec = match.groups()
        names = [raw.split(":")[0].rstrip("*") for raw in spec.split(",")]
        safe = _RESERVED if op in ("+", "#") else ""
        encoded = [quote(values[name], safe=safe) for name in names]
        if op in ("?", "&"):
            pairs = "&".join(f"{n}={v}" for n, v in zip(names, encoded, strict=True))
            return f"{op}{pairs}"
        if op == "/":
            return "/" + "/".join(encoded)
        prefix = "#" if op == "#" else ("." if op == "." else "")
        return prefix + ",".join(encoded)

    return _EXPRESSION.sub(fill, template)


def _template_values(template: str, words: list[str]) -> dict[str, str]:
    names = template_variables(template)
    values: dict[str, str] = {}
    positional: list[str] = []
    for word in words:
        key, sep, value = word.partition("=")
        if sep and key in names:
            values[key] = value
        else:
            positional.append(word)
    free = [name for name in names if name not in values]
    if len(positional) > len(free):
        raise UsageError(f"{template}: too many values (it takes: {', '.join(names) or 'none'}).")
    values.update(zip(free, positional, strict=False))
    return values


def split_reference(spec: str) -> tuple[str, str, list[str]]:
    """``[mcp:]server/uri [args...]`` -> (server, uri or template, args).

    Raises:
        UsageError: no server or no URI.
    """
    spec = spec.strip().removeprefix("#").removeprefix("mcp:")
    head, _, rest = spec.partition(" ")
    server, slash, uri = head.partition("/")
    if not server or not slash or not uri:
        raise UsageError(f"#mcp:{spec}: write #mcp:<server>/<resource uri>.")
    try:
        words = shlex.split(rest)
    except ValueError as exc:
        raise UsageError(f"#mcp:{spec}: {exc}") from exc
    return server, uri, words


def render_contents(parts: list[Part]) -> str:
    chunks = []
    for part in parts:
        if part.kind == "resource" and not part.binary:
            chunks.append(part.text)
        else:
            chunks.append(part.render())
    return "\n".join(chunks)


async def resolve_mcp_reference(manager: McpManager, spec: str) -> tuple[str, str]:
    """Read the resource a ``#mcp:`` reference names.

    Args:
        manager: the session's McpManager.
        spec: the reference without ``#`` (``mcp:server/uri`` or ``server/uri``, plus template
            parameters after a space).

    Returns:
        (label, text): label is ``mcp:<server>/<uri>`` with the filled-in URI.

    Raises:
        UsageError: the reference is malformed or a template parameter is missing.
        McpError: the server is unknown or not running, or the read failed.
    """
    server, uri, words = split_reference(spec)
    inline = {name: value for name, value in _INLINE_VALUE.findall(uri)}
    uri = _INLINE_VALUE.sub(lambda m: "{" + m.group(1) + "}", uri)
    if template_variables(uri):
        uri = expand_template(uri, {**inline, **_template_values(uri, words)})
    elif words:
        raise UsageError(f"#mcp:{server}/{uri} is not a template; it takes no parameters.")
    parts = await manager.read_resource(server, uri)
    return f"mcp:{server}/{uri}", render_contents(parts)


def resources_markdown(manager: McpManager) -> str:
    """The ``/mcp resources`` listing: each running server's resources and templates."""
    lines: list[str] = []
    for name, state in sorted(manager.servers.items()):
        if not state.resources and not state.templates:
            continue
        lines.append(f"**{name}**")
        for resource in state.resources:
            about = f" — {resource.description}" if resource.description else ""
            lines.append(f"- `#mcp:{name}/{resource.uri}`{about}")
        for template in state.templates:
            about = f" — {template.description}" if template.description else ""
            params = " ".join(f"{v}=…" for v in template_variables(template.uri_template))
            lines.append(f"- `#mcp:{name}/{template.uri_template} {params}` (template){about}")
    return "\n".join(lines) if lines else "No MCP resources (no running server offers any)."
