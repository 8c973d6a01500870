"""Screens of the app; each has a sibling ``.tcss`` file."""
