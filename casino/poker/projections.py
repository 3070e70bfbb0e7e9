"""Projections of poker events into Table, Seat and Hand.

The same `apply` runs inline in the append and on `rebuild_projections`.
Seat stacks change at hand boundaries only (see models.py): a buy-in or
cash-out on the table stream, or a hand's settlement or void. One projection
reads both streams' events, because the ledger hands a projection its events
in position order only within that projection: with two, a rebuild would
apply a chunk's buy-ins before the settlements that came before them, and
a seat's stack would end up as the older value.
"""

from __future__ import annotations

from typing import Sequence

from django.db.models import F

from ledger import RecordedEvent

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
from . import evening
from .models import Hand, HandStatus, PlayerBanzaiMove, PlayerEvening, Seat, SeatMove, Table


class PokerProjection:
    name = "poker.tables"
    event_types = TABLE_EVENT_TYPES | HAND_EVENT_TYPES

    def reset(self) -> None:
        Table.objects.all().delete()  # seats, moves and hands cascade
        PlayerEvening.objects.all().delete()
        PlayerBanzaiMove.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        # A complete hand history arrives as one append of many events of one
        # hand: the hand row is read once and written once for the run.
        hands: dict[str, Hand] = {}
        for event in events:
            if event.type in HAND_EVENT_TYPES:
                _apply_hand(event, hands)
            else:
                _save(hands)
                _apply_table(event)
        _save(hands)


def _save(hands: dict[str, Hand]) -> None:
    for hand in hands.values():
        hand.save()
    hands.clear()


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


def _apply_hand(event: RecordedEvent, hands: dict[str, Hand]) -> None:
    """Apply a hand event to the hand row held in `hands` (saved by the caller)."""
    p = event.payload
    if event.type == HAND_STARTED:
        hand = Hand(id=p["hand_id"], table_id=p["table_id"], number=p["number"],
                    button=p["button"], to_act=p["to_act"],
                    pot_minor=p["pot_minor"], stacks_minor=p["stacks_minor_live"],
                    last_position=event.position)
        _follow_phase(hand, p["phase"])
        hand.save(force_insert=True)
        hands[hand.id] = hand
        Table.objects.filter(id=p["table_id"]).update(
            hands_started=F("hands_started") + 1)
        return
    hand = hands.get(p["hand_id"])
    if hand is None:
        hand = hands[p["hand_id"]] = Hand.objects.get(id=p["hand_id"])
    hand.last_position = event.position
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
        _set_stacks(p["table_id"], p["stacks_minor_after"])
    elif event.type == HAND_DISPUTED:
        hand.dispute()
    elif event.type == HAND_VOIDED:
        hand.void()
        hand.to_act = None
        hand.stacks_minor = p["stacks_minor_after"]
        _set_stacks(p["table_id"], p["stacks_minor_after"])


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
