"""A cache keyed by object identity, for values derived from immutable objects.

Building each request walks the whole conversation (token estimates, wire forms). The blocks of a
conversation are frozen and mostly old, so what is derived from them can be kept, making a
request's cost follow what is new rather than the length of the history.

Conversation blocks cannot be dict keys (a ``ToolUseBlock`` holds a dict, so it has no hash), so
entries are keyed by ``id()`` and hold a weak reference whose callback removes the entry when the
object dies: an id reused by a later object can never find the old value.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class IdentityCache(Generic[K, V]):
    """``get(obj, compute)`` computes once per live object; entries go when the object does.

    Only for objects that are never changed in place (frozen dataclasses).
    """

    def __init__(self) -> None:
        self._entries: dict[int, tuple[weakref.ref[K], V]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, obj: K, compute: Callable[[K], V]) -> V:
        key = id(obj)
        entry = self._entries.get(key)
        if entry is not None and entry[0]() is obj:
            return entry[1]
        value = compute(obj)
        entries = self._entries

        def forget(_ref: weakref.ref[K], key: int = key) -> None:
            entries.pop(key, None)

        entries[key] = (weakref.ref(obj, forget), value)
        return value
