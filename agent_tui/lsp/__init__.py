"""Diagnostics after edits: a Language Server Protocol client over stdio (pygls + lsprotocol).

``config.py`` reads ``[lsp]`` (configured servers, and the defaults found on PATH: basedpyright,
pyright or ruff for Python, typescript-language-server for TypeScript); ``client.py`` is one
running server; ``manager.py`` starts servers lazily on the first edit of a matching file, keeps
them for the session and stops them on exit; ``report.py`` turns what a server published into the
lines the model sees (only what an edit added, capped, its text made visible); ``tool.py`` is the
``diagnostics`` tool. What a server says comes from a process the workspace controls: hostile text.
"""
