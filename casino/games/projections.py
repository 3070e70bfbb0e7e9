"""Projection of the games' events into GameTable, Round and Bet.

The same `apply` runs inline in the append and on `rebuild_projections`; one
projection reads both streams so that a rebuild applies them in position
order.
"""

from __future__ import annotations

from typing import Sequence

from django.db.models import F

from ledger import RecordedEvent

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
from .models import Bet, GameTable, Round


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
        Round.objects.create(id=p["round_id"], table_id=p["table_id"], number=p["number"],
                             last_position=event.position)
        GameTable.objects.filter(id=p["table_id"]).update(rounds_started=F("rounds_started") + 1)
        return
    round_ = Round.objects.get(id=p["round_id"])
    round_.last_position = event.position
    if event.type == BET_PLACED:
        Bet.objects.create(
            id=p["bet_id"], round=round_, player_id=p["player_id"], kind=p["kind"],
            spec=p["spec"], position=p["position"], bet_unit=p["bet_unit"],
            stake_minor=p["stake_minor"], void_minor=p["void_minor"],
            placed_position=event.position)
        round_.staked_minor += p["stake_minor"]
    elif event.type == BETTING_CLOSED:
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


def _set_bets(bets, declared=None) -> None:
    for item in bets:
        Bet.objects.filter(id=item["bet_id"]).update(
            returned_minor=item["returned_minor"], result=item["result"],
            pay_table=item["table"] or "", row=item["row"] or "", cite=item["cite"],
            commission_minor=item["commission_minor"], detail=item["detail"],
            declared_minor=(declared or {}).get(item["bet_id"]))
