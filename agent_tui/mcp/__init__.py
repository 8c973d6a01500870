"""MCP client: servers from config, their tools, prompts and resources.

``adapter`` is the only module importing the ``mcp`` SDK, and only once a server starts; importing
this package or ``manager`` stays cheap so sessions without servers never pay for the SDK.
"""
