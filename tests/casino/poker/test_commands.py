"""Poker cash games through the commands: money, rake, drop and showdowns."""

from __future__ import annotations

import pytest
from django_fsm import TransitionNotAllowed

from casino.accounts import gaming_account
from casino.compliance.models import Alert
from casino.poker import commands
from casino.poker.errors import PokerError
from casino.poker.events import house_rake, jackpot_pending, table_stacks
from casino.poker.models import Hand, HandStatus, Seat, SeatMove, Table
from ledger import rebuild_projections
from ledger.models import Event, Posting
from tests.casino.poker.conftest import (
    assert_table_balanced,
    balance,
    check_down,
    funded_player,
    key,
    open_helsinki_table,
    play,
    seat_players,
    seat_stacks,
)


def _postings(position: int) -> dict[str, int]:
    return {p.account_id: p.amount_minor for p in Posting.objects.filter(event_id=position)}


def test_full_holdem_hand_rakes_by_the_veikkaus_rule_and_drops_to_the_jackpot(venues):
    """Five players reach the flop; the pot of 6,000 pays EUR 1 per full EUR 20
    (300, 000:L430-448) and the bad-beat drop EUR 1 (000:L2869-2872); the last
    player in wins without showdown and gets the uncalled bet back."""
    table = open_helsinki_table()
    players = seat_players(table.table_id, {s: 20_000 for s in (1, 2, 3, 4, 5)})
    assert balance(table_stacks(table.table_id)) == 100_000
    assert balance(gaming_account(players[1])) == 1_000_00 - 20_000
    assert_table_balanced(table.table_id)

    hand = commands.start_hand(table_id=table.table_id, button=1, actor="dealer",
                               idempotency_key=key())
    assert (hand.state, hand.to_act, hand.pot_minor) == ("betting", 4, 300)
    play(hand.hand_id, (4, "raise", 600), (5, "call"), (1, "call"), (2, "call"), (3, "call"),
         (2, "check"), (3, "check"), (4, "bet", 1500), (5, "call"), (1, "fold"),
         (2, "fold"), (3, "fold"), (4, "bet", 2000))
    result = play(hand.hand_id, (5, "fold"))

    assert result.state == "settled"
    assert (result.rake_minor, result.drop_minor) == (300, 100)
    assert result.awards_verified == {4: 5600}
    assert result.stacks_minor == {1: 19_400, 2: 19_400, 3: 19_400, 4: 23_500, 5: 17_900}
    assert seat_stacks(table.table_id) == result.stacks_minor
    assert _postings(result.positions[-1]) == {
        table_stacks(table.table_id): 400, house_rake("poker-helsinki"): -300,
        jackpot_pending("poker-helsinki"): -100}
    assert balance(house_rake("poker-helsinki")) == 300
    assert balance(jackpot_pending("poker-helsinki")) == 100
    assert balance(table_stacks(table.table_id)) == 99_600
    assert_table_balanced(table.table_id)
    assert Hand.objects.get(id=hand.hand_id).state == HandStatus.SETTLED


def _side_pot_hand():
    """001:L80: A bets 1,000, B calls, C calls all-in for 100 on the flop."""
    table = open_helsinki_table(small_blind_minor=50, big_blind_minor=100,
                                buy_in_minor_min=200, buy_in_minor_max=10_000, jackpot=False)
    seat_players(table.table_id, {1: 5000, 2: 5000, 3: 200})
    hand = commands.start_hand(table_id=table.table_id, button=3, actor="dealer",
                               idempotency_key=key())
    play(hand.hand_id, (3, "call"), (1, "call"), (2, "check"),
         (1, "bet", 1000), (2, "call"), (3, "call"))
    ctx = check_down(hand.hand_id)
    assert ctx.state.phase == "showdown"
    return table, hand


BOARD = "2c 7d 9h Js 4c"
CARDS = {1: "Ks Kd", 2: "Qs Qd", 3: "As Ad"}


def test_side_pot_example_settles_with_a_verified_showdown(venues):
    """Main pot 600 (less the rake of 100) to C's aces, side pot 1,800 to A's kings."""
    table, hand = _side_pot_hand()
    result = commands.showdown(hand_id=hand.hand_id, board=BOARD, hands=CARDS,
                               claimed_awards={3: 500, 1: 1800}, actor="dealer",
                               idempotency_key=key())
    assert result.state == "settled"
    assert result.rake_minor == 100 and result.drop_minor == 0
    assert result.awards_verified == {3: 500, 1: 1800}
    assert result.stacks_minor == {1: 5700, 2: 3900, 3: 500}
    settled = Event.objects.get(position=result.positions[-1])
    assert settled.payload["pots"] == [{"amount_minor": 600, "eligible_seats": [1, 2, 3]},
                                       {"amount_minor": 1800, "eligible_seats": [1, 2]}]
    assert settled.payload["awards_claimed"] == {"3": 500, "1": 1800}
    assert settled.payload["awards_verified"] == {"3": 500, "1": 1800}
    assert balance(table_stacks(table.table_id)) == 10_100
    assert_table_balanced(table.table_id)


def test_claimed_result_that_differs_is_disputed_and_moves_no_money(venues):
    """The claim gives everything to A: the hand is disputed, an alert holds both
    results, nothing is posted, and it cannot settle later without a decision."""
    table, hand = _side_pot_hand()
    stacks_before = balance(table_stacks(table.table_id))
    seats_before = seat_stacks(table.table_id)
    rake_before = balance(house_rake("poker-helsinki"))
    result = commands.showdown(hand_id=hand.hand_id, board=BOARD, hands=CARDS,
                               claimed_awards={1: 2300}, actor="dealer",
                               idempotency_key=key())
    assert result.state == "disputed"
    assert result.awards_claimed == {1: 2300}
    assert result.awards_verified == {3: 500, 1: 1800}
    assert all(not _postings(p) for p in result.positions)
    alert = Alert.objects.get(kind="showdown_mismatch")
    assert alert.details["awards_claimed"] == {"1": 2300}
    assert alert.details["awards_verified"] == {"3": 500, "1": 1800}
    assert Hand.objects.get(id=hand.hand_id).state == HandStatus.DISPUTED
    assert balance(table_stacks(table.table_id)) == stacks_before
    assert balance(house_rake("poker-helsinki")) == rake_before
    assert seat_stacks(table.table_id) == seats_before

    with pytest.raises(PokerError) as refused:
        commands.showdown(hand_id=hand.hand_id, board=BOARD, hands=CARDS,
                          claimed_awards={3: 500, 1: 1800}, actor="dealer",
                          idempotency_key=key())
    assert refused.value.code == "poker.hand_disputed"
    assert balance(table_stacks(table.table_id)) == stacks_before
    with pytest.raises(PokerError) as refused:
        commands.buy_in(table_id=table.table_id, seat=4, player_id="p", amount_minor=500,
                        actor="floor", idempotency_key=key())
    assert refused.value.code == "poker.hand_in_progress"


def test_no_hand_settles_twice(venues):
    """A second showdown is refused; the same request replays; the projection's
    state machine has no transition out of settled."""
    table, hand = _side_pot_hand()
    request = dict(hand_id=hand.hand_id, board=BOARD, hands=CARDS,
                   claimed_awards={3: 500, 1: 1800}, actor="dealer")
    first_key = key()
    first = commands.showdown(**request, idempotency_key=first_key)
    events = Event.objects.count()
    again = commands.showdown(**request, idempotency_key=first_key)
    assert again.replayed and again.positions == first.positions
    with pytest.raises(PokerError) as refused:
        commands.showdown(**request, idempotency_key=key())
    assert refused.value.code == "poker.hand_finished"
    with pytest.raises(PokerError) as refused:
        commands.void_hand(hand_id=hand.hand_id, reason="late", actor="floor",
                           idempotency_key=key())
    assert refused.value.code == "poker.hand_finished"
    assert Event.objects.count() == events
    assert balance(house_rake("poker-helsinki")) == 100
    projected = Hand.objects.get(id=hand.hand_id)
    with pytest.raises(TransitionNotAllowed):
        projected.settle()


def test_illegal_action_is_recorded_as_rejected_and_changes_nothing(venues):
    """Seat 1 acting out of turn: 422 with the engine's code, one
    `poker.action_rejected`, and the hand's state as it was."""
    table = open_helsinki_table()
    seat_players(table.table_id, {1: 20_000, 2: 20_000, 3: 20_000})
    hand = commands.start_hand(table_id=table.table_id, button=1, actor="dealer",
                               idempotency_key=key())
    before = commands.load_hand(hand.hand_id).state
    events = Event.objects.count()
    with pytest.raises(PokerError) as refused:
        commands.act(hand_id=hand.hand_id, seat=2, kind="raise", amount_minor=300,
                     actor="dealer", idempotency_key=key())
    assert refused.value.code == "poker.not_your_turn"
    assert refused.value.status == 422
    assert Event.objects.count() == events + 1
    rejected = Event.objects.order_by("-position").first()
    assert rejected.type == "poker.action_rejected"
    assert rejected.payload["code"] == "poker.not_your_turn"
    assert not _postings(rejected.position)
    assert commands.load_hand(hand.hand_id).state == before
    with pytest.raises(PokerError) as refused:
        commands.act(hand_id=hand.hand_id, seat=1, kind="raise", amount_minor=300,
                     actor="dealer", idempotency_key=key())
    assert refused.value.code == "poker.raise_below_minimum"
    assert commands.load_hand(hand.hand_id).state == before


@pytest.mark.parametrize("stacks, seat, amount, code", [
    ({}, 1, 9_999, "poker.buy_in_below_minimum"),
    ({}, 1, 40_001, "poker.buy_in_above_maximum"),
    ({1: 30_000}, 1, 10_001, "poker.buy_in_above_maximum"),
], ids=["below_minimum_case", "above_maximum_case", "top_up_over_maximum_case"])
def test_buy_in_limits(venues, stacks, seat, amount, code):
    """The table's minimum and maximum buy-in, top-ups included (000:L535-546)."""
    table = open_helsinki_table()
    players = seat_players(table.table_id, stacks)
    player_id = players.get(seat) or funded_player().id
    before = balance(table_stacks(table.table_id))
    with pytest.raises(PokerError) as refused:
        commands.buy_in(table_id=table.table_id, seat=seat, player_id=player_id,
                        amount_minor=amount, actor="floor", idempotency_key=key())
    assert refused.value.code == code
    assert Event.objects.order_by("-position").first().type == "poker.buy_in_rejected"
    assert balance(table_stacks(table.table_id)) == before


def test_top_up_between_hands_up_to_the_maximum(venues):
    table = open_helsinki_table()
    players = seat_players(table.table_id, {1: 30_000})
    result = commands.buy_in(table_id=table.table_id, seat=1, player_id=players[1],
                             amount_minor=10_000, actor="floor", idempotency_key=key())
    assert result.stack_minor == 40_000
    assert_table_balanced(table.table_id)


def test_no_buy_in_or_cash_out_while_a_hand_runs(venues):
    """000:L281: the chips on the table at the start are the only ones that play."""
    table = open_helsinki_table()
    players = seat_players(table.table_id, {1: 20_000, 2: 20_000})
    commands.start_hand(table_id=table.table_id, button=1, actor="dealer",
                        idempotency_key=key())
    with pytest.raises(PokerError) as refused:
        commands.buy_in(table_id=table.table_id, seat=1, player_id=players[1],
                        amount_minor=1_000, actor="floor", idempotency_key=key())
    assert refused.value.code == "poker.hand_in_progress"
    with pytest.raises(PokerError) as refused:
        commands.cash_out(table_id=table.table_id, seat=2, player_id=players[2],
                          actor="floor", idempotency_key=key())
    assert refused.value.code == "poker.hand_in_progress"
    assert balance(table_stacks(table.table_id)) == 40_000


def test_void_returns_every_bet_and_restores_the_stacks(venues):
    table = open_helsinki_table()
    seat_players(table.table_id, {1: 20_000, 2: 15_000, 3: 20_000})
    hand = commands.start_hand(table_id=table.table_id, button=1, actor="dealer",
                               idempotency_key=key())
    play(hand.hand_id, (1, "raise", 600), (2, "call"), (3, "call"), (2, "bet", 1000))
    result = commands.void_hand(hand_id=hand.hand_id, reason="misdeal", actor="floor",
                                idempotency_key=key())
    assert result.state == "voided"
    assert result.stacks_minor == {1: 20_000, 2: 15_000, 3: 20_000}
    assert seat_stacks(table.table_id) == {1: 20_000, 2: 15_000, 3: 20_000}
    assert not _postings(result.positions[0])
    assert Hand.objects.get(id=hand.hand_id).state == HandStatus.VOIDED
    assert_table_balanced(table.table_id)


def test_cash_out_returns_the_stack_to_the_gaming_account(venues):
    table = open_helsinki_table()
    players = seat_players(table.table_id, {1: 20_000, 2: 20_000})
    result = commands.cash_out(table_id=table.table_id, seat=1, player_id=players[1],
                               actor="floor", idempotency_key=key())
    assert result.amount_minor == 20_000
    assert balance(gaming_account(players[1])) == 1_000_00
    assert seat_stacks(table.table_id) == {2: 20_000}
    assert_table_balanced(table.table_id)


def _projected():
    return (sorted(Table.objects.values_list("id", "hands_started", "seats_max")),
            sorted(Seat.objects.values_list("key", "player_id", "stack_minor")),
            sorted(Hand.objects.values_list("id", "state", "to_act", "pot_minor",
                                            "stacks_minor", "rake_minor", "drop_minor")),
            list(SeatMove.objects.values_list("position", "kind", "player_id", "venue",
                                              "gaming_day", "occurred_at", "table_id",
                                              "amount_minor", "stack_minor", "short")))


def test_rebuild_reproduces_the_poker_projections(venues):
    """Live and rebuilt tables, seats and hands agree (L9), with a top-up and a
    cash-out after a settled hand, and a voided hand, in the log."""
    table, hand = _side_pot_hand()
    commands.showdown(hand_id=hand.hand_id, board=BOARD, hands=CARDS,
                      claimed_awards={3: 500, 1: 1800}, actor="dealer", idempotency_key=key())
    seats = {s.number: s.player_id for s in Seat.objects.filter(table_id=table.table_id)}
    commands.buy_in(table_id=table.table_id, seat=3, player_id=seats[3], amount_minor=1000,
                    actor="floor", idempotency_key=key())
    commands.cash_out(table_id=table.table_id, seat=2, player_id=seats[2], actor="floor",
                      idempotency_key=key())
    second = commands.start_hand(table_id=table.table_id, button=1, actor="dealer",
                                 idempotency_key=key())
    commands.void_hand(hand_id=second.hand_id, reason="misdeal", actor="floor",
                       idempotency_key=key())
    live = _projected()
    assert len(live[3]) >= 5  # the buy-ins, the top-up and the cash-out
    rebuild_projections()
    assert _projected() == live
    assert_table_balanced(table.table_id)
