"""Hooks in Claude Code's format: commands run on agent events (README "Hooks")."""
