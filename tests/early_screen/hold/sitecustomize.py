"""Test scaffolding (on PYTHONPATH only in tests/early_screen): the app's ``import textual`` waits
until the file named by ``EARLY_SCREEN_RELEASE`` exists, so a test can type on the early screen
while it is certainly up. Up to 60 s, then the import goes on."""

import importlib.abc
import os
import sys
import time


class _Hold(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):  # type: ignore[no-untyped-def]
        if name == "textual":
            sys.meta_path.remove(self)
            release = os.environ.get("EARLY_SCREEN_RELEASE", "")
            deadline = time.monotonic() + 60
            while release and not os.path.exists(release) and time.monotonic() < deadline:
                time.sleep(0.01)
        return None


sys.meta_path.insert(0, _Hold())
