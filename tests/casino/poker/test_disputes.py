"""A compliance officer's decision on a disputed hand: settle as verified, or void."""

from __future__ import annotations

import pytest

from casino.poker import commands
from casino.poker.errors import PokerError
from casino.poker.events import house_rake, table_stacks
from casino.poker.models import Hand, HandStatus
from casino.roles import Role
from ledger.models import Event, Posting
from tests.casino.api.conftest import client_for, post
from tests.casino.poker.conftest import (
    assert_table_balanced,
    balance,
    check_down,
    key,
    officer,
    open_helsinki_table,
    play,
    seat_players,
    seat_stacks,
)

BOARD = "2c 7d 9h Js 4c"
CARDS = {1: "Ks Kd", 2: "Qs Qd", 3: "As Ad"}
VERIFIED = {3: 500, 1: 1800}


def _disputed_hand():
    """001:L80's side pot (A bets 1,000, B calls, C calls all-in for 100),
    shown down with a claim that gives everything to A: disputed."""
    table = commands.open_table(
        venue="poker-helsinki", variant="holdem", structure="no_limit",
        small_blind_minor=50, big_blind_minor=100, seats_max=9, buy_in_minor_min=200,
        buy_in_minor_max=10_000, jackpot=False, actor="floor", idempotency_key=key())
    seat_players(table.table_id, {1: 5000, 2: 5000, 3: 200})
    hand = commands.start_hand(table_id=table.table_id, button=3, actor="dealer",
                               idempotency_key=key())
    play(hand.hand_id, (3, "call"), (1, "call"), (2, "check"),
         (1, "bet", 1000), (2, "call"), (3, "call"))
    check_down(hand.hand_id)
    result = commands.showdown(hand_id=hand.hand_id, board=BOARD, hands=CARDS,
                               claimed_awards={1: 2300}, actor="dealer",
                               idempotency_key=key())
    assert result.state == "disputed"
    return table, hand


def _postings(position: int) -> dict[str, int]:
    return {p.account_id: p.amount_minor for p in Posting.objects.filter(event_id=position)}


def test_officer_settles_a_disputed_hand_with_exactly_the_verified_awards(venues):
    """settle_verified pays the verified 500 and 1,800, takes the rake of 100 to
    the house, and records who decided, why, and both results."""
    table, hand = _disputed_hand()
    name = officer()
    result = commands.decide_dispute(hand_id=hand.hand_id, decision="settle_verified",
                                     note="surveillance confirms the cards", actor=name,
                                     idempotency_key=key())
    assert result.state == "settled"
    assert result.awards_verified == VERIFIED
    assert result.awards_claimed == {1: 2300}
    assert result.rake_minor == 100
    assert result.stacks_minor == {1: 5700, 2: 3900, 3: 500}
    assert seat_stacks(table.table_id) == {1: 5700, 2: 3900, 3: 500}
    decided, settled = (Event.objects.get(position=p) for p in result.positions)
    assert decided.type == "poker.dispute_decided"
    assert decided.payload == {
        "hand_id": hand.hand_id, "table_id": table.table_id, "decision": "settle_verified",
        "note": "surveillance confirms the cards", "decided_by": name,
        "awards_verified": {"3": 500, "1": 1800}, "awards_claimed": {"1": 2300}}
    assert decided.metadata["actor"] == name
    assert not _postings(decided.position)
    assert settled.type == "poker.hand_settled"
    assert _postings(settled.position) == {table_stacks(table.table_id): 100,
                                           house_rake("poker-helsinki"): -100}
    assert balance(table_stacks(table.table_id)) == 10_100
    assert_table_balanced(table.table_id)
    assert Hand.objects.get(id=hand.hand_id).state == HandStatus.SETTLED


def test_officer_voids_a_disputed_hand(venues):
    table, hand = _disputed_hand()
    result = commands.decide_dispute(hand_id=hand.hand_id, decision="void",
                                     note="cards exposed in the deal", actor=officer(),
                                     idempotency_key=key())
    assert result.state == "voided"
    assert seat_stacks(table.table_id) == {1: 5000, 2: 5000, 3: 200}
    assert all(not _postings(p) for p in result.positions)
    assert balance(house_rake("poker-helsinki")) == 0
    assert Hand.objects.get(id=hand.hand_id).state == HandStatus.VOIDED


def test_only_a_compliance_officer_decides_and_refusals_write_nothing(venues):
    """A table controller (or an unknown actor) is refused with 403; the table
    controller's void of a disputed hand is refused too (409)."""
    table, hand = _disputed_hand()
    controller = client_for(Role.TABLE_CONTROLLER).username
    events = Event.objects.count()
    for actor in (controller, "nobody"):
        with pytest.raises(PokerError) as refused:
            commands.decide_dispute(hand_id=hand.hand_id, decision="settle_verified",
                                    note="mine", actor=actor, idempotency_key=key())
        assert (refused.value.code, refused.value.status) == (
            "poker.not_compliance_officer", 403)
    with pytest.raises(PokerError) as refused:
        commands.void_hand(hand_id=hand.hand_id, reason="misdeal", actor=controller,
                           idempotency_key=key())
    assert refused.value.code == "poker.hand_disputed"
    assert Event.objects.count() == events
    assert Hand.objects.get(id=hand.hand_id).state == HandStatus.DISPUTED


def test_deciding_twice_is_refused_and_a_retry_replays(venues):
    table, hand = _disputed_hand()
    name = officer()
    request = dict(hand_id=hand.hand_id, decision="settle_verified", note="checked",
                   actor=name)
    first_key = key()
    first = commands.decide_dispute(**request, idempotency_key=first_key)
    events = Event.objects.count()
    again = commands.decide_dispute(**request, idempotency_key=first_key)
    assert again.replayed and again.positions == first.positions
    assert again.state == "settled"
    for decision in ("settle_verified", "void"):
        with pytest.raises(PokerError) as refused:
            commands.decide_dispute(**{**request, "decision": decision},
                                    idempotency_key=key())
        assert refused.value.code == "poker.hand_finished"
    assert Event.objects.count() == events
    assert balance(house_rake("poker-helsinki")) == 100


def test_a_hand_that_is_not_disputed_takes_no_decision(venues):
    table = open_helsinki_table()
    seat_players(table.table_id, {1: 20_000, 2: 20_000})
    hand = commands.start_hand(table_id=table.table_id, button=1, actor="dealer",
                               idempotency_key=key())
    with pytest.raises(PokerError) as refused:
        commands.decide_dispute(hand_id=hand.hand_id, decision="void", note="why",
                                actor=officer(), idempotency_key=key())
    assert (refused.value.code, refused.value.status) == ("poker.hand_not_disputed", 409)


@pytest.mark.parametrize("decision, note, field", [
    ("approve", "ok", "decision"), ("void", " ", "note"),
], ids=["unknown_decision_case", "empty_note_case"])
def test_a_malformed_decision_is_refused(venues, decision, note, field):
    table, hand = _disputed_hand()
    with pytest.raises(PokerError) as refused:
        commands.decide_dispute(hand_id=hand.hand_id, decision=decision, note=note,
                                actor=officer(), idempotency_key=key())
    assert (refused.value.code, refused.value.details["field"]) == (
        "poker.invalid_request", field)


def test_api_decision_by_an_officer_settles_and_a_controller_gets_403(venues):
    """POST /hands/<id>/decision: 403 for a table controller (nothing written),
    201 for an officer, the same body replayed under the same key, 409 for a
    second decision."""
    table, hand = _disputed_hand()
    url = f"/api/v1/poker/hands/{hand.hand_id}/decision"
    body = {"decision": "settle_verified", "note": "surveillance checked"}
    events = Event.objects.count()
    response = post(client_for(Role.TABLE_CONTROLLER), url, body, key=key())
    assert response.status_code == 403
    assert Event.objects.count() == events

    client = client_for(Role.COMPLIANCE_OFFICER)
    decision_key = key()
    response = post(client, url, body, key=decision_key)
    assert response.status_code == 201, response.content
    assert response.json()["state"] == "settled"
    assert response.json()["awards_verified"] == {"3": 500, "1": 1800}
    assert seat_stacks(table.table_id) == {1: 5700, 2: 3900, 3: 500}
    replay = post(client, url, body, key=decision_key)
    assert replay.status_code == 201
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert replay.json() == response.json()
    again = post(client, url, {"decision": "void", "note": "second thoughts"}, key=key())
    assert again.status_code == 409
    assert again.json()["code"] == "poker.hand_finished"
    assert seat_stacks(table.table_id) == {1: 5700, 2: 3900, 3: 500}
