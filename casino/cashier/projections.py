"""Projection of the cashier events into Shift and Transfer.

The same `apply` runs inline in the append and on `rebuild_projections`.
"""

from __future__ import annotations

from typing import Sequence

from ledger import RecordedEvent

from .events import PROJECTED_TYPES, SHIFT_CLOSED, SHIFT_OPENED, TRANSFER_MADE
from .models import Shift, ShiftState, Transfer


class CashierProjection:
    name = "cashier.shifts"
    event_types = PROJECTED_TYPES

    def reset(self) -> None:
        Transfer.objects.all().delete()
        Shift.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            _apply(event)


def _apply(event: RecordedEvent) -> None:
    p = event.payload
    if event.type == SHIFT_OPENED:
        Shift.objects.create(
            id=p["shift_id"], venue=p["venue"], window=p["window"], cashier=p["cashier"],
            state=ShiftState.OPEN, currency=p["currency"], gaming_day=event.gaming_day,
            bank=p["bank"], bank_minor=p["bank_minor"], opened_at=event.occurred_at,
            opened_position=event.position)
    elif event.type == SHIFT_CLOSED:
        Shift.objects.filter(id=p["shift_id"]).update(
            state=ShiftState.CLOSED, count=p["count"], counted_minor=p["counted_minor"],
            expected_minor=p["expected_minor"], over_short_minor=p["over_short_minor"],
            reason=p["reason"], closed_at=event.occurred_at, closed_position=event.position)
    elif event.type == TRANSFER_MADE:
        first, second = p["signed_by"]
        Transfer.objects.create(
            id=p["transfer_id"], venue=p["venue"], source=p["source"], target=p["target"],
            count=p["count"], amount_minor=p["amount_minor"], currency=p["currency"],
            first_signature=first, second_signature=second, note=p.get("note", ""),
            gaming_day=event.gaming_day, made_at=event.occurred_at, position=event.position)
