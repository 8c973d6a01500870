"""Custom agents: Markdown files that define a sub-agent, and the run_agent tool.

``loader`` reads ``.agent/agents/*.md``, ``.claude/agents/*.md`` and ``~/.agent/agents/*.md``;
``runner`` runs one in a fresh conversation through the same loop and approvals as the parent.
"""
