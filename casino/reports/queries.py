"""Read side of the reports used by the write path."""

from __future__ import annotations

import datetime as dt

from django.db.models import Max

from .models import DayClose


def last_closed_day(venue_code: str) -> dt.date | None:
    """Return the venue's last closed gaming day (None: none closed yet)."""
    return DayClose.objects.filter(venue=venue_code).aggregate(
        last=Max("gaming_day"))["last"]
