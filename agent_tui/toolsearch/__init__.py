"""Tool search: offer the tools that fit the window, and let the model find and load the rest.

A request carries every enabled tool's schema. With many MCP tools (or a small local window) that
is more than the window can spare, so ``offer.plan_offer`` keeps the request to a core set plus
``tool_search`` once the MCP tools' schemas would take more than ``[tools] search_threshold`` of the
measured window (10%; half of it on windows of 16k tokens or less) or more tools are enabled than a
request may carry (128). Rarely used built-ins are deferred behind ``tool_search`` everywhere, and
on small windows and local servers every built-in but a small core (read, list, create, replace,
terminal).

``tool_search`` (``tool.py``) scores the deferred tools against the model's words (``scoring.py``:
BM25 over names, descriptions and parameter names; no network) and *loads* the best: they are
offered from the next request on, for the rest of the session. This is what Claude Code's tool
search (MCP tools deferred past 10% of the window) and Codex's ``search_tool_bm25`` do, made to
work for any provider, the window it really has and the built-ins as well as MCP tools.
"""
