"""The Textual app (issue 5). Importing this package does not import Textual: ``app.run_tui`` does."""
