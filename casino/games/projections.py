"""Projection of the games' events into GameTable, Round, Bet and RoundSnapshot.

The same `apply` runs inline in the append and on `rebuild_projections`; one
projection reads both streams so that a rebuild applies them in position
order. Each event that changes a round's state also writes the round's
snapshot (casino/games/snapshots.py) at the event's stream version, in the
append's transaction. A bet, the write a busy table makes most, is one
statement: it inserts the bet, adds its stake to the round and appends it
to the snapshot's bets.
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from django.db import connection
from django.db.models import F

from ledger import InvariantViolation, RecordedEvent

from .events import (
    BET_PLACED,
    BETTING_CLOSED,
    OUTCOME_RECORDED,
    PLAYER_SETTLED,
    PROJECTED_TYPES,
    ROUND_DISPUTED,
    ROUND_OPENED,
    ROUND_SETTLED,
    ROUND_VOIDED,
    TABLE_OPENED,
)
from .models import Bet, GameTable, Round, RoundSnapshot
from .snapshots import STATE_AFTER, bet_state, opened_state


class GamesProjection:
    name = "games.rounds"
    event_types = PROJECTED_TYPES

    def reset(self) -> None:
        GameTable.objects.all().delete()  # rounds and bets cascade

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            _apply(event)


def _apply(event: RecordedEvent) -> None:
    p = event.payload
    if event.type == TABLE_OPENED:
        GameTable.objects.create(
            id=p["table_id"], venue=p["venue"], game=p["game"], currency=p["currency"],
            rulebook=p["rulebook"], config=p["config"], stake_minor_min=p["stake_minor_min"],
            stake_minor_max=p["stake_minor_max"], opened_position=event.position)
        return
    if event.type == ROUND_OPENED:
        round_ = Round.objects.create(id=p["round_id"], table_id=p["table_id"],
                                      number=p["number"], last_position=event.position)
        GameTable.objects.filter(id=p["table_id"]).update(rounds_started=F("rounds_started") + 1)
        RoundSnapshot.objects.create(round=round_, version=event.version, state=opened_state())
        return
    if event.type == BET_PLACED:
        _place_bet(event)
        return
    round_ = Round.objects.get(id=p["round_id"])
    round_.last_position = event.position
    if event.type == BETTING_CLOSED:
        round_.close()
    elif event.type == OUTCOME_RECORDED:
        round_.record_outcome()
        round_.outcome = p["outcome"]
    elif event.type == PLAYER_SETTLED:
        _set_bets(p["bets"])
    elif event.type == ROUND_DISPUTED:
        round_.dispute()
        _set_bets(p["bets"], declared=p["declared"])
    elif event.type == ROUND_SETTLED:
        round_.settle()
        round_.returned_minor = p["returned_minor"]
        round_.commission_minor = p["commission_minor"]
        round_.contribution_minor = p.get("contribution_minor", 0)
        round_.house_minor = p["house_minor"]
    elif event.type == ROUND_VOIDED:
        round_.void()
        round_.void_reason = p["reason"]
        Bet.objects.filter(round=round_).update(returned_minor=F("stake_minor"), result="void",
                                                row="", pay_table="", cite=p["cite"])
    round_.save()
    if event.type in STATE_AFTER:
        _merge_snapshot(round_.id, event.version, {"state": STATE_AFTER[event.type], **(
            {"outcome": p["outcome"]} if event.type == OUTCOME_RECORDED else {})})


def _place_bet(event: RecordedEvent) -> None:
    """Insert the bet, add its stake to the round, append it to the snapshot: one statement."""
    p = event.payload
    bet, round_, snapshot = (Bet._meta.db_table, Round._meta.db_table,
                             RoundSnapshot._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH new_bet AS ("
            f" INSERT INTO {bet} (id, round_id, player_id, kind, spec, \"position\", bet_unit,"
            f"  stake_minor, void_minor, result, pay_table, \"row\", cite, commission_minor,"
            f"  detail, placed_position)"
            f" VALUES (%s, %s, %s, %s, %s::jsonb, %s, %s, %s, %s, '', '', '', '', 0,"
            f"  '{{}}'::jsonb, %s)),"
            f" staked AS ("
            f" UPDATE {round_} SET staked_minor = staked_minor + %s, last_position = %s"
            f" WHERE id = %s)"
            f" UPDATE {snapshot} SET version = %s,"
            f" state = jsonb_set(state, '{{bets}}', (state -> 'bets') || %s::jsonb)"
            f" WHERE round_id = %s",
            [p["bet_id"], p["round_id"], p["player_id"], p["kind"], json.dumps(p["spec"]),
             p["position"], p["bet_unit"], p["stake_minor"], p["void_minor"], event.position,
             p["stake_minor"], event.position, p["round_id"],
             event.version, json.dumps([bet_state(p)]), p["round_id"]])
        if cursor.rowcount != 1:
            raise InvariantViolation(f"round {p['round_id']} has no snapshot to add a bet to;"
                                     " run rebuild_projections")


def _merge_snapshot(round_id: str, version: int, changes: Mapping[str, Any]) -> None:
    """Set top-level keys of a round's snapshot state at a new version (one statement)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {RoundSnapshot._meta.db_table} SET version = %s, state = state || %s::jsonb"
            " WHERE round_id = %s", [version, json.dumps(dict(changes)), round_id])
        if cursor.rowcount != 1:
            raise InvariantViolation(f"round {round_id} has no snapshot; run"
                                     " rebuild_projections")


def _set_bets(bets, declared=None) -> None:
    for item in bets:
        Bet.objects.filter(id=item["bet_id"]).update(
            returned_minor=item["returned_minor"], result=item["result"],
            pay_table=item["table"] or "", row=item["row"] or "", cite=item["cite"],
            commission_minor=item["commission_minor"], detail=item["detail"],
            declared_minor=(declared or {}).get(item["bet_id"]))
