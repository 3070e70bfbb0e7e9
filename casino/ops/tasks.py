"""Celery entry points of operations: work for the ledger as a whole.

`casino.ops.tasks.resolve_transfers` finishes pending transfers between
books (issue 19 point 2, ledger.transfers): beat runs it every minute, and
a rerun posts and voids nothing more, so a killed worker or a second beat
does no harm.
"""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone


@shared_task(name="casino.ops.tasks.resolve_transfers", acks_late=True)
def resolve_transfers() -> dict[str, int]:
    """Post or void every pending transfer between books; return the counts."""
    from ledger import resolve_pending

    return resolve_pending(timezone.now())
