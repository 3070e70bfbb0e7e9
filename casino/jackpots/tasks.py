"""Celery entry points of the jackpots: ids and a day in, one command call.

Each task is idempotent per (job, pool, gaming day): the roll-up command
replays a day already rolled up, so a task retried, run twice, run
concurrently or rerun after its worker was killed posts nothing more.
`rollup_pool` is what the beat schedule runs per pool
(casino.jackpots.beat); it catches up every closed day in order.
"""

from __future__ import annotations

import datetime as dt

from celery import shared_task

from . import commands


@shared_task(name="casino.jackpots.tasks.rollup_pool", acks_late=True)
def rollup_pool(venue: str, kind: str) -> list[dict]:
    """Roll up every closed gaming day of one pool not yet rolled up."""
    results = commands.rollup_closed_days(venue=venue, kind=kind, actor="celery")
    return [_record(r) for r in results]


@shared_task(name="casino.jackpots.tasks.rollup_day", acks_late=True)
def rollup_day(venue: str, kind: str, gaming_day: str) -> dict:
    """Roll up one gaming day (ISO date) of one pool."""
    result = commands.rollup_day(venue=venue, kind=kind,
                                 gaming_day=dt.date.fromisoformat(gaming_day), actor="celery")
    return _record(result)


@shared_task(name="casino.jackpots.tasks.rollup_all", acks_late=True)
def rollup_all() -> list[str]:
    """Open pools for new pending accounts, then queue each pool's roll-up."""
    from .models import JackpotPool

    commands.ensure_pools_for_pending_accounts(actor="celery")
    pools = list(JackpotPool.objects.values_list("venue", "kind"))
    for venue, kind in pools:
        rollup_pool.delay(venue, kind)
    return [f"{venue}/{kind}" for venue, kind in pools]


def _record(result: commands.RollupResult) -> dict:
    return {"venue": result.venue, "kind": result.kind,
            "gaming_day": result.gaming_day.isoformat(),
            "contributions": result.contributions, "amount_minor": result.amount_minor,
            "position": result.position, "replayed": result.replayed}
