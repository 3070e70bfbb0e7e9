"""Dead money through the hand-history API: antes are no part of a bet (issue 21).

The ante and the big-blind ante go straight into the pot and are no part of
the player's bet (000:L932-933, L939-941); a small blind posted with a
missed big blind is dead the same way (000:L1152-1155). So none of it comes
back as an uncalled bet, and all of it lies in the main pot: a big blind
all-in with an ante contests his live bet from each player, no more.
"""

from __future__ import annotations

from casino.poker import commands, engine
from casino.poker.events import house_rake, table_stacks
from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for, post
from tests.casino.poker.conftest import (
    assert_table_balanced,
    balance,
    key,
    seat_players,
    seat_stacks,
)

BOARD = "2c 7d 9h Js 4c"
VENUE = "poker-helsinki"


def _table(*, small_blind_minor, big_blind_minor, big_blind_ante_minor=0, ante_minor=0,
           buy_in_minor_min, buy_in_minor_max):
    return commands.open_table(
        venue=VENUE, variant="holdem", structure="no_limit",
        small_blind_minor=small_blind_minor, big_blind_minor=big_blind_minor,
        big_blind_ante_minor=big_blind_ante_minor, ante_minor=ante_minor, seats_max=9,
        buy_in_minor_min=buy_in_minor_min, buy_in_minor_max=buy_in_minor_max,
        rake="standard", jackpot=False, actor="floor", idempotency_key=key("table")).table_id


def _history(table_id, body):
    client = client_for(Role.TABLE_CONTROLLER)
    return post(client, f"/api/v1/poker/tables/{table_id}/hand-histories", body, key=key())


def _settled(table_id, number=1):
    return Event.objects.get(stream=f"hand/{table_id}/{number}",
                             type="poker.hand_settled").payload


def test_a_big_blind_ante_is_not_returned_when_the_big_blind_is_called_all_in(venues):
    """Issue 21, first hand: blinds 0.75/1.50 and a 2.25 big-blind ante; the big
    blind is all-in to 33.50 and the button calls and wins. Pot 33.50 + 33.50 +
    0.75 + 2.25 = 70.00, nothing returned; the big blind loses all 35.75; rake
    EUR 1 per full EUR 20 is 3.00 (000:L430-437), so the button's claim of 67.00
    settles. Returning the ante made the pot 67.75 and disputed this claim."""
    table_id = _table(small_blind_minor=75, big_blind_minor=150, big_blind_ante_minor=225,
                      buy_in_minor_min=2_000, buy_in_minor_max=20_000)
    seat_players(table_id, {1: 10_000, 2: 10_000, 3: 3_575})
    rake_before = balance(house_rake(VENUE))
    response = _history(table_id, {
        "button": 1,
        "actions": [{"seat": 1, "kind": "call"}, {"seat": 2, "kind": "fold"},
                    {"seat": 3, "kind": "all_in"}, {"seat": 1, "kind": "call"}],
        "showdown": {"board": BOARD, "hands": {"1": "As Ah", "3": "Kd Kc"},
                     "claimed_awards": [{"seat": 1, "amount": "67.00"}]}})
    assert response.status_code == 201, response.content
    hand = response.json()
    assert (hand["state"], hand["rake_minor"], hand["drop_minor"]) == ("settled", 300, 0)
    assert hand["awards_verified"] == hand["awards_claimed"] == {"1": 6_700}
    settled = _settled(table_id)
    assert settled["returned"] == []
    assert settled["pots"] == [{"amount_minor": 7_000, "eligible_seats": [1, 3]}]
    # The big blind loses his whole 35.75; the button wins 70.00 less 3.00 rake
    # for his 33.50.
    assert seat_stacks(table_id) == {1: 10_000 - 3_350 + 6_700, 2: 10_000 - 75, 3: 0}
    assert hand["stacks_minor"] == {"1": 13_350, "2": 9_925, "3": 0}
    assert balance(house_rake(VENUE)) - rake_before == 300
    assert_table_balanced(table_id)


def test_a_twelve_euro_big_blind_ante_stays_in_a_263_pot_raked_13(venues):
    """Issue 21, second hand: blinds 2/4 and a 12.00 big-blind ante at six seats.
    Seat 4 raises to 15, the button calls, the big blind calls; on the flop the
    big blind bets 40 and the button calls, seat 4 folds; on the turn the button
    bets 62 and the big blind calls. Live bets 2 + 15 + 117 + 117 and the dead
    12: a pot of 263.00, nothing returned. The table's rule, EUR 1 per full
    EUR 20 (000:L430-437; rulebook rake.block 20.00, rake.per_block 1.00),
    rakes 13 full blocks: 13.00, where the returned ante left 251 and 12."""
    table_id = _table(small_blind_minor=200, big_blind_minor=400,
                      big_blind_ante_minor=1_200, buy_in_minor_min=10_000,
                      buy_in_minor_max=40_000)
    seat_players(table_id, {seat: 30_000 for seat in range(1, 7)})
    rake_before = balance(house_rake(VENUE))
    response = _history(table_id, {
        "button": 1,
        "actions": [
            {"seat": 4, "kind": "raise", "amount": "15.00"}, {"seat": 5, "kind": "fold"},
            {"seat": 6, "kind": "fold"}, {"seat": 1, "kind": "call"},
            {"seat": 2, "kind": "fold"}, {"seat": 3, "kind": "call"},
            {"seat": 3, "kind": "bet", "amount": "40.00"}, {"seat": 4, "kind": "fold"},
            {"seat": 1, "kind": "call"},
            {"seat": 3, "kind": "check"}, {"seat": 1, "kind": "bet", "amount": "62.00"},
            {"seat": 3, "kind": "call"},
            {"seat": 3, "kind": "check"}, {"seat": 1, "kind": "check"}],
        "showdown": {"board": BOARD, "hands": {"1": "As Ah", "3": "Kd Kc"},
                     "claimed_awards": [{"seat": 1, "amount": "250.00"}]}})
    assert response.status_code == 201, response.content
    hand = response.json()
    assert (hand["state"], hand["rake_minor"]) == ("settled", 1_300)
    settled = _settled(table_id)
    assert settled["returned"] == []
    assert settled["pots"] == [{"amount_minor": 26_300, "eligible_seats": [1, 3]}]
    # The rake is the table's own rule applied to that pot.
    table_rule = commands._rule_from(commands.Table.objects.get(id=table_id).rake)
    assert (table_rule.block_minor, table_rule.per_block_minor) == (2_000, 100)
    assert engine.rake_for(table_rule, (engine.Pot(26_300, (1, 3)),), reached_flop=True,
                           players_dealt=6).total_minor == 1_300
    assert balance(house_rake(VENUE)) - rake_before == 1_300
    assert seat_stacks(table_id) == {1: 30_000 - 11_700 + 25_000, 2: 29_800,
                                     3: 30_000 - 11_700 - 1_200, 4: 28_500,
                                     5: 30_000, 6: 30_000}
    assert_table_balanced(table_id)


def test_side_pots_over_a_short_all_in_big_blind_with_an_ante(venues):
    """The big blind has 1.50: the 1.00 blind live, then 0.50 of the 1.00
    big-blind ante, dead, and he is all-in. Seat 4 raises to 3.00, the button
    calls; on the flop seat 4 bets 5.00 and the button calls. Main pot: 1.00
    from each of seats 1, 3, 4, the small blind's 0.50 and the dead 0.50 =
    4.00 (1, 3, 4); side pot 14.00 (1, 4). The big blind, best, wins 4.00, not
    the 5.00 his 1.50 as a bet would have reached. 18.00 is under a full EUR 20
    block: no rake (000:L430-437)."""
    table_id = _table(small_blind_minor=50, big_blind_minor=100, big_blind_ante_minor=100,
                      buy_in_minor_min=150, buy_in_minor_max=10_000)
    seat_players(table_id, {1: 5_000, 2: 5_000, 3: 150, 4: 5_000})
    response = _history(table_id, {
        "button": 1,
        "actions": [
            {"seat": 4, "kind": "raise", "amount": "3.00"}, {"seat": 1, "kind": "call"},
            {"seat": 2, "kind": "fold"},
            {"seat": 4, "kind": "bet", "amount": "5.00"}, {"seat": 1, "kind": "call"},
            {"seat": 4, "kind": "check"}, {"seat": 1, "kind": "check"},
            {"seat": 4, "kind": "check"}, {"seat": 1, "kind": "check"}],
        "showdown": {"board": BOARD, "hands": {"1": "Qd Qc", "3": "As Ah", "4": "Kd Kc"},
                     "claimed_awards": [{"seat": 3, "amount": "4.00"},
                                        {"seat": 4, "amount": "14.00"}]}})
    assert response.status_code == 201, response.content
    hand = response.json()
    assert (hand["state"], hand["rake_minor"]) == ("settled", 0)
    assert hand["awards_verified"] == {"3": 400, "4": 1_400}
    assert _settled(table_id)["pots"] == [
        {"amount_minor": 400, "eligible_seats": [1, 3, 4]},
        {"amount_minor": 1_400, "eligible_seats": [1, 4]}]
    assert seat_stacks(table_id) == {1: 4_200, 2: 4_950, 3: 400, 4: 5_600}
    assert_table_balanced(table_id)


def test_a_dead_small_blind_of_a_returning_player_stays_in_the_pot(venues):
    """Seat 4 missed the big blind and posts both to play at once: the big blind
    live, the small blind straight into the pot (000:L1152-1155). Everyone folds
    to his raise to 8.00: the 6.00 nobody called comes back, the dead 1.00 does
    not. Pot 1.00 + 2.00 blinds + his called 2.00 + the dead 1.00 = 6.00, raked
    the flat EUR 1 of a hand without a flop (000:L459-461)."""
    table_id = _table(small_blind_minor=100, big_blind_minor=200,
                      buy_in_minor_min=10_000, buy_in_minor_max=40_000)
    seat_players(table_id, {1: 20_000, 2: 20_000, 3: 20_000, 4: 20_000})
    response = _history(table_id, {
        "button": 1, "missed_blinds": [{"seat": 4, "missed": "big"}],
        "actions": [{"seat": 4, "kind": "raise", "amount": "8.00"},
                    {"seat": 1, "kind": "fold"}, {"seat": 2, "kind": "fold"},
                    {"seat": 3, "kind": "fold"}]})
    assert response.status_code == 201, response.content
    started = Event.objects.get(stream=f"hand/{table_id}/1", type="poker.hand_started")
    assert started.payload["missed_blinds"] == {"4": "big"}
    settled = _settled(table_id)
    assert settled["returned"] == [[4, 600]]
    assert settled["pots"] == [{"amount_minor": 600, "eligible_seats": [4]}]
    assert (settled["rake"]["total_minor"], settled["awards_verified"]) == (100, {"4": 500})
    assert seat_stacks(table_id) == {1: 20_000, 2: 19_900, 3: 19_800, 4: 20_200}
    assert_table_balanced(table_id)
    # Replayed from its events, the hand is the same hand.
    assert commands.load_hand(f"{table_id}.1").state.dead_minor[4] == 100
    assert balance(table_stacks(table_id)) == 79_900
