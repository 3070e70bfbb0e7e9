"""Celery entry points of the tournaments: one job call each.

`flag_unfinished_hexapro` is on the beat schedule (settings.CELERY_BEAT_SCHEDULE,
daily): a compliance alert for each HexaPro game still playing
`hexapro.unfinished.settle_within` days after its start (001:L576;
casino/tournaments/unfinished.py). Idempotent: one alert per game at most.
"""

from __future__ import annotations

from celery import shared_task

from .unfinished import flag_unfinished_hexapro_games


@shared_task(name="casino.tournaments.tasks.flag_unfinished_hexapro", acks_late=True)
def flag_unfinished_hexapro() -> list[str]:
    """Flag every overdue HexaPro game not yet flagged; return their ids."""
    return [alert.tournament_id for alert in flag_unfinished_hexapro_games(actor="celery")]
