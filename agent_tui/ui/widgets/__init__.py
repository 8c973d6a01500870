"""Widgets of the app: transcript entries, the prompt input, the status bar."""
