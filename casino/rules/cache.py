"""Reference data cached in the process: venues and rulebook versions.

A rulebook version never changes once loaded (a new figure is a new
version), and a venue changes only by its own event, so every write need
not read them again. The cache holds:

- venues by code;
- the versions of each rulebook, ordered, to find the one in force on a day;
- per version (keyed by its `key`, e.g. `ray-casino@1`): its figures, stake
  limits, win limit and tables.

Invalidation: the ledger applies `RulesCacheProjection` inside the append
that loads a rulebook version or registers a venue, and on every rebuild, so
this process sees its own changes at once. Decision: another process (a
second gunicorn worker) sees a *new* venue or version at once too, because a
miss is read from the database and only hits are cached; a venue registered
again with other terms reaches it within `TTL_SECONDS`. Reason: rulebook
versions take effect from a date that is normally in the future, and asking
the database for a generation number on every write would cost the very
statement the cache saves.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Sequence, TypeVar

from ledger import RecordedEvent

TTL_SECONDS = 30.0
T = TypeVar("T")

_lock = threading.Lock()
_entries: dict[tuple, tuple[float, Any]] = {}


def cached(key: tuple, load: Callable[[], T]) -> T:
    """Return the cached value for key, loading (and caching) it on a miss.

    `load` may raise; nothing is cached then. A None result is not cached,
    so an unknown venue or a missing version is asked for again next time.
    """
    now = time.monotonic()
    entry = _entries.get(key)
    if entry is not None and now - entry[0] < TTL_SECONDS:
        return entry[1]
    value = load()
    if value is not None:
        with _lock:
            _entries[key] = (now, value)
    return value


def invalidate() -> None:
    """Forget everything cached (a rulebook or venue event, a rebuild, a test)."""
    with _lock:
        _entries.clear()


class RulesCacheProjection:
    """Empties the cache when a rulebook version loads or a venue registers."""

    name = "rules.cache"
    # It keeps no table (the rules.* projections own the app's).
    tables = ()

    def __init__(self, event_types: frozenset[str]) -> None:
        self.event_types = event_types

    def reset(self) -> None:
        invalidate()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        invalidate()
