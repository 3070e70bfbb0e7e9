"""Projection of table-games events into TableSession and Slip.

The same `apply` runs inline in the append and on `rebuild_projections`.
"""

from __future__ import annotations

from typing import Sequence

from django.db.models import F

from ledger import RecordedEvent

from .events import (
    CREDIT_MADE,
    FILL_MADE,
    PROJECTED_TYPES,
    SOFT_COUNT_MADE,
    TABLE_CLOSED,
    TABLE_OPENED,
)
from .models import SessionState, Slip, TableSession

BASIS_POINTS = 10_000


class TableGamesProjection:
    name = "tablegames.sessions"
    event_types = PROJECTED_TYPES

    def reset(self) -> None:
        Slip.objects.all().delete()
        TableSession.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            _apply(event)


def win_and_hold(*, drop_minor: int, fills_minor: int, credits_minor: int,
                 opening_minor: int, closing_minor: int) -> tuple[int, int | None]:
    """win = drop - fills + credits + (closing - opening); hold = win / drop (bp)."""
    win = drop_minor - fills_minor + credits_minor + (closing_minor - opening_minor)
    hold = (win * BASIS_POINTS // drop_minor) if drop_minor else None
    return win, hold


def _apply(event: RecordedEvent) -> None:
    p = event.payload
    if event.type == TABLE_OPENED:
        TableSession.objects.create(
            id=p["session_id"], venue=p["venue"], table=p["table"], state=SessionState.OPEN,
            currency=p["currency"], gaming_day=event.gaming_day, opened_at=event.occurred_at,
            opening_inventory=p["inventory"], opening_minor=p["inventory_minor"],
            last_position=event.position)
    elif event.type in (FILL_MADE, CREDIT_MADE):
        fill = event.type == FILL_MADE
        cage, table = p["signed_by"]
        Slip.objects.create(
            id=p["slip_id"], kind="fill" if fill else "credit", session_id=p["session_id"],
            venue=p["venue"], table=p["table"], chips=p["chips"],
            amount_minor=p["amount_minor"], currency=p["currency"], cage_signature=cage,
            table_signature=table, made_at=event.occurred_at, position=event.position)
        column = "fills_minor" if fill else "credits_minor"
        TableSession.objects.filter(id=p["session_id"]).update(
            **{column: F(column) + p["amount_minor"]}, last_position=event.position)
    elif event.type == TABLE_CLOSED:
        TableSession.objects.filter(id=p["session_id"]).update(
            state=SessionState.CLOSED, closed_at=event.occurred_at,
            closing_inventory=p["inventory"], closing_minor=p["inventory_minor"],
            last_position=event.position)
    elif event.type == SOFT_COUNT_MADE:
        session = TableSession.objects.get(id=p["session_id"])
        win, hold = win_and_hold(drop_minor=p["drop_minor"], fills_minor=session.fills_minor,
                                 credits_minor=session.credits_minor,
                                 opening_minor=session.opening_minor,
                                 closing_minor=session.closing_minor)
        TableSession.objects.filter(id=p["session_id"]).update(
            state=SessionState.COUNTED, drop_minor=p["drop_minor"],
            count_variance_minor=p["variance_minor"], counted_by=" and ".join(p["counted_by"]),
            win_minor=win, hold_basis_points=hold, last_position=event.position)
