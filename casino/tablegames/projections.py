"""Projection of table-games events into TableSession and Slip, and of the
chips by denomination into ChipStock, ChipReceipt and ChipBankCount.

The same `apply` runs inline in the append and on `rebuild_projections`.
"""

from __future__ import annotations

from typing import Sequence

from django.db.models import F

from ledger import RecordedEvent

from .events import (
    CHIP_BANK,
    CHIP_BANK_COUNTED,
    CHIPS_RECEIVED,
    CREDIT_MADE,
    FILL_MADE,
    PLAYERS,
    PROJECTED_TYPES,
    SOFT_COUNT_MADE,
    STOCK_TYPES,
    TABLE_CLOSED,
    TABLE_OPENED,
    tray_place,
)
from .models import ChipBankCount, ChipReceipt, ChipStock, SessionState, Slip, TableSession

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


# --- chips by denomination ------------------------------------------------------

def stock_of(venue: str, place: str) -> dict[int, int]:
    """Pieces per denomination at a place (denominations with pieces only)."""
    return {denomination: pieces for denomination, pieces in ChipStock.objects.filter(
        venue=venue, place=place).exclude(pieces=0).values_list("denomination_minor",
                                                                 "pieces")}


def _pieces(count: dict) -> dict[int, int]:
    return {int(denomination): int(pieces) for denomination, pieces in count.items()}


def _move(event: RecordedEvent, place: str, changes: dict[int, int]) -> None:
    venue, currency = event.payload["venue"], event.payload["currency"]
    for denomination, delta in changes.items():
        if not delta:
            continue
        key = f"{venue}/{place}/{denomination}"
        updated = ChipStock.objects.filter(key=key).update(
            pieces=F("pieces") + delta, last_position=event.position)
        if not updated:
            ChipStock.objects.create(key=key, venue=venue, place=place,
                                     denomination_minor=denomination, pieces=delta,
                                     currency=currency, last_position=event.position)


def _difference(after: dict[int, int], before: dict[int, int]) -> dict[int, int]:
    return {d: after.get(d, 0) - before.get(d, 0) for d in set(after) | set(before)}


def _negate(changes: dict[int, int]) -> dict[int, int]:
    return {d: -n for d, n in changes.items()}


class ChipStockProjection:
    """Pieces per denomination at the cage's chip bank, the trays and the players."""

    name = "tablegames.chip_stock"
    event_types = STOCK_TYPES

    def reset(self) -> None:
        ChipStock.objects.all().delete()
        ChipReceipt.objects.all().delete()
        ChipBankCount.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            _apply_stock(event)


def _apply_stock(event: RecordedEvent) -> None:
    p = event.payload
    venue = p["venue"]
    if event.type in (TABLE_OPENED, TABLE_CLOSED):
        tray = tray_place(p["table"])
        change = _difference(_pieces(p["inventory"]), stock_of(venue, tray))
        _move(event, tray, change)
        # Opening: chips added to the tray come from the cage. Closing: the
        # tray's chips missing at the count went to the players.
        _move(event, CHIP_BANK if event.type == TABLE_OPENED else PLAYERS, _negate(change))
    elif event.type in (FILL_MADE, CREDIT_MADE):
        chips = _pieces(p["chips"])
        sign = 1 if event.type == FILL_MADE else -1
        _move(event, tray_place(p["table"]), {d: sign * n for d, n in chips.items()})
        _move(event, CHIP_BANK, {d: -sign * n for d, n in chips.items()})
    elif event.type == CHIPS_RECEIVED:
        _move(event, CHIP_BANK, _pieces(p["chips"]))
        cage, other = p["signed_by"]
        ChipReceipt.objects.create(
            id=p["receipt_id"], venue=venue, chips=p["chips"], amount_minor=p["amount_minor"],
            currency=p["currency"], first_signature=cage, second_signature=other,
            note=p["note"], received_at=event.occurred_at, position=event.position)
    elif event.type == CHIP_BANK_COUNTED:
        _move(event, CHIP_BANK, {int(d): n for d, n in p["differences"].items()})
        first, second = p["signed_by"]
        ChipBankCount.objects.create(
            id=p["count_id"], venue=venue, gaming_day=event.gaming_day, count=p["count"],
            counted_minor=p["counted_minor"], expected_count=p["expected_count"],
            expected_minor=p["expected_minor"], count_differences=p["differences"],
            over_short_minor=p["over_short_minor"], reason=p["reason"],
            first_signature=first, second_signature=second, currency=p["currency"],
            counted_at=event.occurred_at, position=event.position)
