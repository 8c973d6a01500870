"""Test scaffolding (on PYTHONPATH only in tests that ask for it): an import of any module named in
``EARLY_SCREEN_HOLD`` (comma-separated; default ``textual``) waits until the file named by
``EARLY_SCREEN_RELEASE`` exists, so a test can type on the early screen while it is certainly up,
or show that the early screen needs none of those modules. Up to 60 s, then the import goes on."""

import importlib.abc
import os
import sys
import time

HELD = set(os.environ.get("EARLY_SCREEN_HOLD", "textual").split(","))


class _Hold(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):  # type: ignore[no-untyped-def]
        if name in HELD:
            HELD.discard(name)
            release = os.environ.get("EARLY_SCREEN_RELEASE", "")
            deadline = time.monotonic() + 60
            while release and not os.path.exists(release) and time.monotonic() < deadline:
                time.sleep(0.01)
        return None


sys.meta_path.insert(0, _Hold())
