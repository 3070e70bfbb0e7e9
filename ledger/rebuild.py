"""Rebuilding every projection from the log alone.

Runs in one transaction holding the writer lock, so appends wait and readers
keep seeing the old tables until the rebuilt ones commit.
"""

from __future__ import annotations

from typing import Callable

from django.db import connection, transaction

from . import projections
from .store import iter_event_chunks


def rebuild_projections(progress: Callable[[int], None] | None = None) -> int:
    """Reset every registered projection and replay the log; return the count."""
    count = 0
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT position FROM ledger_head WHERE id = 1 FOR UPDATE")
        for projection in reversed(projections.registered()):
            projection.reset()
        for chunk in iter_event_chunks():
            projections.apply(chunk)
            count += len(chunk)
            if progress is not None:
                progress(len(chunk))
    return count
