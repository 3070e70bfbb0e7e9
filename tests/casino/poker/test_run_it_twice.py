"""Running the board twice at Tallinn's cash tables (003:L132-136).

After an all-in with board cards still to come, the players may agree to
deal the rest of the board twice (003:L132-133): each run wins half of every
pot. Every player in the hand to the end must agree (003:L135); it is
offered from blinds of EUR 2/2 (003:L136); at 5 Card Omaha and Courchevel the
whole board runs twice only with 7 players or fewer (003:L134). Decisions
(olympic-tallinn): the first run's half takes an odd chip
(poker.run_it_twice.odd_chip); such a hand hits no jackpot
(poker.run_it_twice.jackpot).
"""

from __future__ import annotations

import pytest

from casino.poker import commands
from casino.poker.commands.settlement import _decide_settlement
from casino.poker.errors import PokerError
from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for, post
from tests.casino.poker.conftest import key, open_helsinki_table, play, seat_players

TALLINN = "olympic-tallinn"
ACES = {1: "Ah Ad", 2: "Kh Kd"}
# Run one misses the kings, run two gives them a set.
RUNS = ["2c 7d 9s Jh 3c", "Kc 4d 8s Qh 5c"]


def _table(big_blind_minor=200, variant="holdem", venue=TALLINN, seats_max=9):
    if venue != TALLINN:
        return open_helsinki_table().table_id
    return commands.open_table(
        venue=venue, variant=variant, structure="no_limit",
        small_blind_minor=big_blind_minor // 2, big_blind_minor=big_blind_minor,
        seats_max=seats_max,
        buy_in_minor_min=5_000, buy_in_minor_max=40_000, actor="floor",
        idempotency_key=key("table")).table_id


def _all_in_preflop(table_id, stack=10_000):
    seat_players(table_id, {1: stack, 2: stack})
    hand = commands.start_hand(table_id=table_id, button=1, actor="dealer",
                               idempotency_key=key("hand"))
    play(hand.hand_id, (1, "raise", stack), (2, "call"))
    return hand.hand_id


def _halves(hand_id):
    """Each run's half of the one contested pot, the first taking an odd chip."""
    ctx = commands.load_hand(hand_id)
    (pot,) = _decide_settlement(ctx, ctx.state).pots_net
    return pot.amount_minor - pot.amount_minor // 2, pot.amount_minor // 2


def _run_twice(hand_id, claimed, runs=RUNS, agreed_by=(1, 2)):
    return commands.showdown(hand_id=hand_id, hands=ACES, claimed_awards=claimed, runs=runs,
                             agreed_by=agreed_by, actor="dealer", idempotency_key=key("sd"))


def test_each_run_wins_half_the_pot(venues):
    """003:L132-133: the rest of the board is dealt twice; each run takes half."""
    hand_id = _all_in_preflop(_table())
    first, second = _halves(hand_id)
    result = _run_twice(hand_id, {1: first, 2: second})
    assert result.state == "settled"
    settled = Event.objects.get(stream=f"hand/{hand_id.replace('.', '/')}",
                                type="poker.hand_settled")
    assert settled.payload["board"] == RUNS
    assert settled.payload["run_twice"] == {"agreed_by": [1, 2]}
    assert settled.payload["awards_verified"] == {"1": first, "2": second}


def test_an_odd_pot_gives_the_odd_chip_to_the_first_run(venues):
    """Decision poker.run_it_twice.odd_chip: an odd pot's extra chip goes with run one.

    Three players all-in, the short stack's main pot odd: run one gives the
    main pot to the aces, run two to the kings, and both halves of the side
    pot to the kings (the queens never win).
    """
    table_id = _table()
    seat_players(table_id, {1: 5_001, 2: 10_000, 3: 10_000})
    hand = commands.start_hand(table_id=table_id, button=1, actor="dealer",
                               idempotency_key=key("hand"))
    play(hand.hand_id, (1, "raise", 5_001), (2, "raise", 10_000), (3, "call"))
    ctx = commands.load_hand(hand.hand_id)
    main, side = (pot.amount_minor for pot in _decide_settlement(ctx, ctx.state).pots_net)
    assert main % 2 == 1, "the stacks must leave an odd main pot"
    first_half = main - main // 2
    assert first_half == main // 2 + 1
    result = commands.showdown(
        hand_id=hand.hand_id, hands={**ACES, 3: "Qh Qd"},
        claimed_awards={1: first_half, 2: main // 2 + side}, runs=["2c 7d 9s Jh 3c",
                                                                 "Kc 4d 8s Qs 5c"],
        agreed_by=(1, 2, 3), actor="dealer", idempotency_key=key("sd"))
    assert result.state == "settled"
    assert dict(result.awards_verified) == {1: first_half, 2: main // 2 + side}


@pytest.mark.parametrize(("agreed_by", "cite"), [((1,), "003:L135"), ((1, 2, 3), "003:L135")])
def test_every_player_in_the_hand_agrees(venues, agreed_by, cite):
    """003:L135: all players in the hand to the end must agree; nothing is written."""
    hand_id = _all_in_preflop(_table())
    first, second = _halves(hand_id)
    before = Event.objects.count()
    with pytest.raises(PokerError) as refused:
        _run_twice(hand_id, {1: first, 2: second}, agreed_by=agreed_by)
    assert refused.value.details["cite"] == cite
    assert Event.objects.count() == before


def test_it_is_offered_from_blinds_of_two_euros(venues):
    """003:L136: offered in cash games from EUR 2/2 blinds (no special offer posted)."""
    hand_id = _all_in_preflop(_table(big_blind_minor=100))
    first, second = _halves(hand_id)
    with pytest.raises(PokerError) as refused:
        _run_twice(hand_id, {1: first, 2: second})
    assert refused.value.details["cite"] == "003:L136"
    assert refused.value.details["min_big_blind_minor"] == 200


def test_a_room_without_the_terms_runs_the_board_once(venues):
    """Helsinki's rulebook posts no running it twice: the showdown is refused."""
    hand_id = _all_in_preflop(_table(venue="poker-helsinki"))
    with pytest.raises(PokerError) as refused:
        _run_twice(hand_id, {1: 1, 2: 1})
    assert refused.value.code == "poker.invalid_showdown"
    assert "does not run the board twice" in refused.value.message


def test_an_all_in_on_the_flop_shares_the_flop(venues):
    """003:L133: all-in before the turn, the turn and river are dealt twice."""
    table_id = _table()
    seat_players(table_id, {1: 10_000, 2: 10_000})
    hand = commands.start_hand(table_id=table_id, button=1, actor="dealer",
                               idempotency_key=key("hand"))
    play(hand.hand_id, (1, "call"), (2, "check"), (2, "bet", 9_800), (1, "call"))
    first, second = _halves(hand.hand_id)
    with pytest.raises(PokerError) as refused:  # the second run redeals the flop
        _run_twice(hand.hand_id, {1: first, 2: second})
    assert refused.value.details == {**refused.value.details, "shared_cards": 3,
                                     "cite": "003:L133"}
    runs = ["2c 7d 9s Jh 3c", "2c 7d 9s Kc 5c"]
    result = _run_twice(hand.hand_id, {1: first, 2: second}, runs=runs)
    assert result.state == "settled"


def test_over_the_api(venues):
    """The table controller sends the runs and who agreed to the showdown endpoint."""
    hand_id = _all_in_preflop(_table())
    first, second = _halves(hand_id)
    controller = client_for(Role.TABLE_CONTROLLER)
    response = post(controller, f"/api/v1/poker/hands/{hand_id}/showdown", {
        "runs": RUNS, "agreed_by": [1, 2], "hands": {"1": ACES[1], "2": ACES[2]},
        "claimed_awards": [{"seat": 1, "amount": f"{first / 100:.2f}"},
                           {"seat": 2, "amount": f"{second / 100:.2f}"}]}, key=key("api"))
    assert response.status_code == 201, response.json()
    refused = post(controller, f"/api/v1/poker/hands/{hand_id}/showdown", {
        "runs": RUNS, "board": RUNS[0], "agreed_by": [1, 2], "hands": {"1": ACES[1]},
        "claimed_awards": []}, key=key("api"))
    assert refused.status_code == 400


def test_five_card_omaha_runs_the_whole_board_twice_with_seven_players_at_most(venues):
    """003:L134: at 5 Card Omaha with 8 players only the turn and river run twice."""
    table_id = _table(variant="omaha5", seats_max=8)
    seat_players(table_id, {seat: 10_000 for seat in range(1, 9)})
    hand = commands.start_hand(table_id=table_id, button=1, actor="dealer",
                               idempotency_key=key("hand"))
    play(hand.hand_id, (4, "raise", 10_000), *((seat, "call") for seat in (5, 6, 7, 8, 1, 2, 3)))
    deck = [f"{rank}{suit}" for suit in "cdhs" for rank in "23456789TJQKA"]
    hands = {seat: " ".join(deck[5 * (seat - 1):5 * seat]) for seat in range(1, 9)}
    with pytest.raises(PokerError) as refused:
        commands.showdown(hand_id=hand.hand_id, hands=hands, claimed_awards={1: 1},
                          runs=[" ".join(deck[40:45]), " ".join(deck[45:50])],
                          agreed_by=range(1, 9), actor="dealer", idempotency_key=key("sd"))
    assert refused.value.details["cite"] == "003:L134"
    assert refused.value.details["full_board_max_players"] == 7


def test_a_complete_hand_history_runs_the_board_twice(venues):
    """An electronic table's history carries the runs too, checked and settled alike."""
    first, second = _halves(_all_in_preflop(_table()))  # the same hand, action by action
    table_id = _table()
    seat_players(table_id, {1: 10_000, 2: 10_000})
    steps = [commands.Step(1, "raise", 10_000), commands.Step(2, "call")]
    refused_before = Event.objects.count()
    with pytest.raises(PokerError) as refused:
        commands.record_hand(
            table_id=table_id, deal=commands.Deal(button=1), steps=steps,
            showdown=commands.Showdown(None, ACES, {1: first, 2: second}, RUNS, (1,)),
            actor="table", idempotency_key=key("history"))
    assert refused.value.details["cite"] == "003:L135"
    assert Event.objects.count() == refused_before
    result = commands.record_hand(
        table_id=table_id, deal=commands.Deal(button=1), steps=steps,
        showdown=commands.Showdown(None, ACES, {1: first, 2: second}, RUNS, (1, 2)),
        actor="table", idempotency_key=key("history"))
    assert result.state == "settled"
    assert dict(result.awards_verified) == {1: first, 2: second}
