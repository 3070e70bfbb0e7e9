"""Rebuilding every projection from the log alone.

Runs in one transaction holding the writer lock, so appends wait and readers
keep seeing the old tables until the rebuilt ones commit.

`ledger_account` and `ledger_stream` refuse every change that does not come
from the log's insert triggers (migration 0004). A rebuild is the one other
writer they admit: `replay_log` sets the transaction-local setting
`ledger.rebuilding` for its own duration, and the tables' guard accepts it
from the tables' owner (or a superuser) only. That setting is no secret: a
session of the owner can set it too, as it can switch triggers off. What
keeps the runtime role out is that it is not the owner (least privilege);
what catches the owner is `verify_ledger`, which recomputes every balance.
"""

from __future__ import annotations

from typing import Callable

from django.db import connection, transaction

from . import projections
from .errors import InvariantViolation
from .store import iter_event_chunks

REBUILDING_SETTING = "ledger.rebuilding"


def rebuild_projections(progress: Callable[[int], None] | None = None) -> int:
    """Reset every registered projection and replay the log; return the count."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            # Every book's writer lock, in id order as appends take them: the
            # replay reads every book.
            cursor.execute("SELECT position FROM ledger_head ORDER BY id FOR UPDATE")
        return replay_log(progress)


def replay_log(progress: Callable[[int], None] | None = None) -> int:
    """Reset every projection and feed it the whole log; return the count.

    Writes to whichever tables the search_path names first: the live ones
    for a rebuild, a scratch schema's for `verify_ledger`. Must run inside
    a transaction; the rebuild setting ends with it, or with this call.
    """
    if not connection.in_atomic_block:
        raise InvariantViolation("replay_log must run inside transaction.atomic()")
    count = 0
    # A savepoint of its own: if the replay fails, rolling it back also
    # takes the rebuild setting back, even when a caller goes on.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT set_config(%s, 'on', true)", [REBUILDING_SETTING])
        for projection in reversed(projections.registered()):
            projection.reset()
        for chunk in iter_event_chunks():
            projections.replay(chunk)
            count += len(chunk)
            if progress is not None:
                progress(len(chunk))
        cursor.execute("SELECT set_config(%s, '', true)", [REBUILDING_SETTING])
    return count
