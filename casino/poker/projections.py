"""Projections of poker events into Table, Seat, Hand and HandSnapshot.

The same `apply` runs inline in the append and on `rebuild_projections`.
Seat stacks change at hand boundaries only (see models.py): a buy-in or
cash-out on the table stream, or a hand's settlement or void. One projection
reads both streams' events, because the ledger hands a projection its events
in position order only within that projection: with two, a rebuild would
apply a chunk's buy-ins before the settlements that came before them, and
a seat's stack would end up as the older value.

A hand's snapshot (casino/poker/snapshots.py) is its engine state at the
version of its last event: each run of a hand's events reads the hand row
and snapshot once, folds the events through the engine, and writes hand,
snapshot and seat stacks back in one statement.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence

from django.db import connection

from ledger import InvariantViolation, RecordedEvent

from .events import (
    ACTION_TAKEN,
    HAND_DISPUTED,
    HAND_EVENT_TYPES,
    HAND_SETTLED,
    HAND_STARTED,
    HAND_VOIDED,
    PLAYER_BOUGHT_IN,
    PLAYER_CASHED_OUT,
    TABLE_EVENT_TYPES,
    TABLE_OPENED,
    TIME_CHARGED,
)
from . import engine, evening, snapshots
from .models import (
    Hand,
    HandSnapshot,
    HandStatus,
    PlayerBanzaiMove,
    PlayerEvening,
    Seat,
    SeatMove,
    Table,
)


class PokerProjection:
    name = "poker.tables"
    event_types = TABLE_EVENT_TYPES | HAND_EVENT_TYPES

    def reset(self) -> None:
        Table.objects.all().delete()  # seats, moves and hands cascade
        PlayerEvening.objects.all().delete()
        PlayerBanzaiMove.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        # A complete hand history arrives as one append of many events of one
        # hand: the hand and its snapshot are read at most once and written
        # once for the run, in one statement (`_save`).
        hands: dict[str, _HandRows] = {}
        for event in events:
            if event.type in HAND_EVENT_TYPES:
                _apply_hand(event, hands)
            else:
                _save(hands)
                _apply_table(event)
        _save(hands)


@dataclass(slots=True)
class _HandRows:
    """A hand's projection row and snapshot while a run of its events is applied."""

    hand: Hand
    status: str
    state: engine.HandState
    version: int
    new: bool                                   # not yet inserted
    seat_stacks: dict[str, int] | None = None   # set on the seats at a settlement or void


def _save(hands: dict[str, _HandRows]) -> None:
    """Write each hand, its snapshot and its seats' stacks: one statement a hand."""
    for rows in hands.values():
        _write(rows)
    hands.clear()


def _write(rows: _HandRows) -> None:
    hand = rows.hand
    fields = {"state": hand.state, "to_act": hand.to_act, "pot_minor": hand.pot_minor,
              "stacks_minor": json.dumps(hand.stacks_minor),
              "rake_minor": hand.rake_minor, "drop_minor": hand.drop_minor,
              "awards_minor": (None if hand.awards_minor is None
                               else json.dumps(hand.awards_minor)),
              "last_position": hand.last_position}
    snapshot = json.dumps(snapshots.snapshot_json(rows.status, rows.state))
    parts, params = [], []
    if rows.new:
        columns = {"id": hand.id, "table_id": hand.table_id, "number": hand.number,
                   "button": hand.button, **fields}
        parts.append(f"h AS (INSERT INTO {_HAND} ({', '.join(columns)}) VALUES"
                     f" ({', '.join(_CASTS.get(c, '%s') for c in columns)}))")
        params += columns.values()
        parts.append(f"t AS (UPDATE {_TABLE} SET hands_started = hands_started + 1"
                     " WHERE id = %s)")
        params.append(hand.table_id)
        final = f"INSERT INTO {_SNAPSHOT} (hand_id, version, state) VALUES (%s, %s, %s::jsonb)"
        final_params = [hand.id, rows.version, snapshot]
    else:
        assignments = ", ".join(f"{c} = {_CASTS.get(c, '%s')}" for c in fields)
        parts.append(f"h AS (UPDATE {_HAND} SET {assignments} WHERE id = %s)")
        params += [*fields.values(), hand.id]
        final = (f"UPDATE {_SNAPSHOT} SET version = %s, state = %s::jsonb"
                 " WHERE hand_id = %s")
        final_params = [rows.version, snapshot, hand.id]
    if rows.seat_stacks:
        values = ", ".join("(%s, %s::bigint)" for _ in rows.seat_stacks)
        parts.append(f"s AS (UPDATE {_SEAT} SET stack_minor = v.stack FROM (VALUES {values})"
                     f" AS v(key, stack) WHERE {_SEAT}.key = v.key)")
        for seat, stack in rows.seat_stacks.items():
            params += [f"{hand.table_id}/{seat}", stack]
    with connection.cursor() as cursor:
        cursor.execute(f"WITH {', '.join(parts)} {final}", [*params, *final_params])
        if not rows.new and cursor.rowcount != 1:
            raise InvariantViolation(f"hand {hand.id} has no snapshot to update;"
                                     " run rebuild_projections")


_HAND, _TABLE, _SEAT, _SNAPSHOT = (Hand._meta.db_table, Table._meta.db_table,
                                   Seat._meta.db_table, HandSnapshot._meta.db_table)
_CASTS = {"stacks_minor": "%s::jsonb", "awards_minor": "%s::jsonb"}


def _apply_table(event: RecordedEvent) -> None:
    p = event.payload
    if event.type == TABLE_OPENED:
        table = Table.objects.create(
            id=p["table_id"], venue=p["venue"], currency=p["currency"],
            rulebook=p["rulebook"], variant=p["variant"], structure=p["structure"],
            stakes=p["stakes"], seats_max=p["seats_max"],
            buy_in_minor_min=p["buy_in_minor_min"],
            buy_in_minor_max=p["buy_in_minor_max"], rake=p["rake"],
            drop=p["drop"], jackpot=p["jackpot"] or "", banzai=p.get("banzai", False),
            jackpot_time_fee=p.get("jackpot_time_fee"),
            electronic=p.get("electronic", False),
            opened_position=event.position,
        )
        Seat.objects.bulk_create(
            Seat(key=f"{table.id}/{n}", table=table, number=n)
            for n in range(1, p["seats_max"] + 1)
        )
    elif event.type == PLAYER_BOUGHT_IN:
        Seat.objects.filter(key=f"{p['table_id']}/{p['seat']}").update(
            player_id=p["player_id"], stack_minor=p["stack_minor_after"])
        _move(event, SeatMove.BUY_IN, p["stack_minor_after"], short=p.get("short", False))
    elif event.type == PLAYER_CASHED_OUT:
        Seat.objects.filter(key=f"{p['table_id']}/{p['seat']}").update(
            player_id="", stack_minor=0)
        _move(event, SeatMove.CASH_OUT, p["amount_minor"])
    elif event.type == TIME_CHARGED:
        _set_stacks(p["table_id"], p["stacks_minor_after"])


def _move(event: RecordedEvent, kind: str, stack_minor: int, short: bool = False) -> None:
    """Record the move, and fold it into the player's evening summaries."""
    p = event.payload
    venue, structure, stakes, banzai = Table.objects.values_list(
        "venue", "structure", "stakes", "banzai").get(id=p["table_id"])
    SeatMove.objects.create(
        position=event.position, kind=kind, player_id=p["player_id"], venue=venue,
        gaming_day=event.gaming_day, occurred_at=event.occurred_at, table_id=p["table_id"],
        amount_minor=p["amount_minor"], stack_minor=stack_minor, short=short)
    move = evening.Move(
        kind=kind, table_id=p["table_id"], structure=structure,
        small_blind_minor=stakes["small_blind_minor"],
        big_blind_minor=evening.opening_unit(stakes), banzai=banzai,
        amount_minor=p["amount_minor"], stack_minor=stack_minor, short=short,
        at=event.occurred_at)
    if banzai:
        PlayerBanzaiMove.objects.bulk_create(
            [PlayerBanzaiMove(key=PlayerBanzaiMove.key_of(p["player_id"], venue),
                              player_id=p["player_id"], venue=venue,
                              move=evening.move_record(move))],
            update_conflicts=True, unique_fields=["key"], update_fields=["move"])
    key = PlayerEvening.key_of(p["player_id"], venue, event.gaming_day)
    row = PlayerEvening.objects.filter(key=key).first()
    new = row is None
    if row is None:
        row = PlayerEvening(key=key, player_id=p["player_id"], venue=venue,
                            gaming_day=event.gaming_day)
    summary = evening.Evening(
        row.buy_ins, row.short_buy_ins,
        {s: evening.move_from(m) for s, m in row.last_moves.items()}).after(move)
    row.buy_ins, row.short_buy_ins = summary.buy_ins, summary.short_buy_ins
    row.last_moves = {s: evening.move_record(m) for s, m in summary.last_moves.items()}
    row.save(force_insert=new)


def _apply_hand(event: RecordedEvent, hands: dict[str, _HandRows]) -> None:
    """Apply a hand event to the rows held in `hands` (written by `_save`)."""
    p = event.payload
    if event.type == HAND_STARTED:
        hand = Hand(id=p["hand_id"], table_id=p["table_id"], number=p["number"],
                    button=p["button"], to_act=p["to_act"],
                    pot_minor=p["pot_minor"], stacks_minor=p["stacks_minor_live"],
                    last_position=event.position)
        _follow_phase(hand, p["phase"])
        status, state = snapshots.fold_event(None, event.type, p)
        hands[hand.id] = _HandRows(hand, status, state, event.version, new=True)
        return
    rows = hands.get(p["hand_id"])
    if rows is None:
        rows = hands[p["hand_id"]] = _read(p["hand_id"])
    hand = rows.hand
    hand.last_position = event.position
    rows.status, rows.state = snapshots.fold_event((rows.status, rows.state), event.type, p)
    rows.version = event.version
    if event.type == ACTION_TAKEN:
        hand.to_act = p["to_act"]
        hand.pot_minor = p["pot_minor"]
        seat = str(p["seat"])
        hand.stacks_minor = {**hand.stacks_minor,
                             seat: hand.stacks_minor[seat] - p["record"]["added_minor"]}
        _follow_phase(hand, p["phase"])
    elif event.type == HAND_SETTLED:
        hand.settle()
        hand.to_act = None
        hand.rake_minor = p["rake"]["total_minor"]
        hand.drop_minor = p["drop"]["total_minor"]
        hand.awards_minor = p["awards_verified"]
        hand.stacks_minor = p["stacks_minor_after"]
        rows.seat_stacks = p["stacks_minor_after"]
    elif event.type == HAND_DISPUTED:
        hand.dispute()
    elif event.type == HAND_VOIDED:
        hand.void()
        hand.to_act = None
        hand.stacks_minor = p["stacks_minor_after"]
        rows.seat_stacks = p["stacks_minor_after"]


def _read(hand_id: str) -> _HandRows:
    """A hand's row and snapshot, in one statement."""
    snapshot = HandSnapshot.objects.select_related("hand").filter(hand_id=hand_id).first()
    if snapshot is None:
        raise InvariantViolation(f"hand {hand_id} has no snapshot; run rebuild_projections")
    at = snapshots.hand_at(snapshot.version, snapshot.state)
    return _HandRows(snapshot.hand, at.status, at.state, at.version, new=False)


def _follow_phase(hand: Hand, phase: str) -> None:
    """Move the hand's state to match the engine's phase after an event."""
    if phase == "betting" or phase == "awaiting_street":
        hand.open_betting()
    elif phase == "showdown" and hand.state != HandStatus.SHOWDOWN:
        # A muck at the showdown leaves the hand where it was.
        hand.reach_showdown()
    # "complete": the same append settles the hand (commands.act).


def _set_stacks(table_id: str, stacks_minor: dict[str, int]) -> None:
    """Set the seats' stacks in one statement (a settlement touches every seat)."""
    Seat.objects.bulk_update(
        [Seat(key=f"{table_id}/{seat}", stack_minor=stack)
         for seat, stack in stacks_minor.items()], ["stack_minor"])
