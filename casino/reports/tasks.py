"""Celery entry points of the reports: a gaming day in, one command call.

`reports.seal_day` is idempotent per gaming day (key reports/seal/<day>): a
retry, a second beat or a rerun after a killed worker returns the recorded
seal and appends nothing. `reports.seal_ended_days` is what beat runs: it
seals every gaming day that has ended at every venue and is not sealed yet,
oldest first, so a beat that was down catches up; run it after the jackpots'
roll-ups (06:05 at the poker rooms) so a day's late events are in, e.g. at
06:30 Helsinki time. A day not yet ended everywhere waits for a later run;
a chain that fails to verify records `reports.seal_refused` and stops there.
`reports.close_day` closes one venue's day (idempotent per venue and day).
"""

from __future__ import annotations

import datetime as dt

from celery import shared_task

from . import commands


@shared_task(name="reports.seal_day", acks_late=True)
def seal_day(day: str) -> dict:
    """Seal one gaming day (ISO date) after verifying the chain."""
    result = commands.seal_day(gaming_day=dt.date.fromisoformat(day), actor="celery")
    return {"position": result.position, "replayed": result.replayed, **result.payload}


@shared_task(name="reports.seal_ended_days", acks_late=True)
def seal_ended_days() -> list[str]:
    """Seal every ended gaming day not sealed yet, oldest first (catch-up)."""
    return [result.payload["gaming_day"]
            for result in commands.seal_ended_days(actor="celery")]


@shared_task(name="reports.close_day", acks_late=True)
def close_day(venue: str, day: str) -> dict:
    """Close one venue's gaming day (ISO date)."""
    result = commands.close_day(venue=venue, gaming_day=dt.date.fromisoformat(day),
                                actor="celery")
    return {"position": result.position, "replayed": result.replayed,
            "reconciled": result.payload["reconciled"]}
