"""The Textual app. Importing this package does not import Textual: ``app.run_tui`` does."""
