"""Celery entry points of the poker rooms: one command call each.

`forfeit_unresolved` is on the beat schedule (settings.CELERY_BEAT_SCHEDULE,
daily): it voids every unresolved hand older than its rulebook's
`unresolved_stakes.void_after` days, the pot to charity (001:L110;
casino/poker/commands/forfeits.py). Idempotent: a voided hand is no longer
unresolved, and each void runs under its own key.
"""

from __future__ import annotations

from celery import shared_task

from .commands.forfeits import forfeit_unresolved_hands


@shared_task(name="casino.poker.tasks.forfeit_unresolved", acks_late=True)
def forfeit_unresolved() -> list[str]:
    """Forfeit every due unresolved hand; return their ids."""
    return [result.hand_id for result in forfeit_unresolved_hands(actor="celery")]
