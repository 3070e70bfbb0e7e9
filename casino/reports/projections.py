"""Projection of the reports' events into DayClose, JournalExport, DaySeal
and ReportExport.

The same `apply` runs inline in the append and on `rebuild_projections`.
"""

from __future__ import annotations

import datetime as dt
from typing import Sequence

from ledger import RecordedEvent

from .events import (
    DAY_CLOSED,
    DAY_SEALED,
    JOURNAL_EXPORTED,
    PROJECTED_TYPES,
    THRESHOLD_REPORT_EXPORTED,
)
from .models import DayClose, DaySeal, JournalExport, ReportExport


class ReportsProjection:
    name = "reports.records"
    event_types = PROJECTED_TYPES

    def reset(self) -> None:
        DayClose.objects.all().delete()
        JournalExport.objects.all().delete()
        DaySeal.objects.all().delete()
        ReportExport.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            p = event.payload
            if event.type == DAY_CLOSED:
                DayClose.objects.create(
                    key=f"{p['venue']}/{p['gaming_day']}", venue=p["venue"],
                    gaming_day=dt.date.fromisoformat(p["gaming_day"]),
                    reconciled=p["reconciled"], head_position=p["head_position"],
                    head_hash=p["head_hash"], postings=p["postings"], figures=p["figures"],
                    lines=p["lines"], differences=p["differences"],
                    closed_by=event.metadata.get("actor", ""), position=event.position)
            elif event.type == JOURNAL_EXPORTED:
                JournalExport.objects.create(
                    position=event.position, actor=p["actor"],
                    first_day=dt.date.fromisoformat(p["from"]),
                    last_day=dt.date.fromisoformat(p["to"]), format=p["format"],
                    part=p["part"], rows=p["rows"], sha256=p["sha256"],
                    head_position=p["head_position"], head_hash=p["head_hash"],
                    totals=p["totals"], recorded_at=event.recorded_at)
            elif event.type == THRESHOLD_REPORT_EXPORTED:
                ReportExport.objects.create(
                    position=event.position, actor=p["actor"], report=p["report"],
                    first_day=dt.date.fromisoformat(p["from"]),
                    last_day=dt.date.fromisoformat(p["to"]), format=p["format"],
                    rows=p["rows"], sha256=p["sha256"], size_bytes=p["bytes"],
                    head_position=p["head_position"], head_hash=p["head_hash"],
                    recorded_at=event.recorded_at)
            elif event.type == DAY_SEALED:
                DaySeal.objects.create(
                    gaming_day=dt.date.fromisoformat(p["gaming_day"]),
                    head_position=p["head_position"], head_hash=p["head_hash"],
                    day_last_position=p["day_last_position"],
                    day_last_hash=p["day_last_hash"], day_events=p["day_events"],
                    position=event.position, recorded_at=event.recorded_at)
