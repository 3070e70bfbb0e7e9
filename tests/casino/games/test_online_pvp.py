"""RAY online's games between players and hedge bets (issue 22 item 6;
002:L3205-3239): engines, and rounds over HTTP at the online venue that
reconcile to the ledger."""

from __future__ import annotations

import pytest

from casino.accounts import gaming_account
from casino.games.engine.common import BetIn, BetInvalid, OutcomeInvalid
from casino.games.engine.online import BankerCards, DicePvp, HedgeBet
from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for, post

from .conftest import balance, funded_player, key
from .http_rounds import API, open_table, play, reconcile

ONLINE = "ray-online"
HEDGE, BANKER, DICE = HedgeBet(), BankerCards(), DicePvp()
FIGURES = {
    "online.card_pvp_other.stakes_against_banker_max": [{"value": "banker_stake",
                                                          "cite": "002:L3219"}],
    "online.card_pvp_other.banker_raise.max_factor": [{"value": 2, "cite": "002:L3221"}],
    "online.dice_pvp.doubling_cube.factor": [{"value": 2, "cite": "002:L3235"}],
    "online.rake.card_pvp_other.basis": [{"value": "percent_of_banker_winnings",
                                          "cite": "002:L3223"}],
    "online.rake.dice_pvp.basis": [{"value": "percent_of_player_winnings",
                                    "cite": "002:L3237"}],
    "online.rake.cap_allowed": [{"value": True, "cite": "002:L3179"}],
}


@pytest.fixture
def controller(venues):
    return client_for(Role.TABLE_CONTROLLER)


def live_hand(player, seat=3):
    """A hold'em hand being dealt at poker-helsinki, `player` at `seat` (bought in
    for cash, so the gaming account is untouched) against another player."""
    from casino.poker import commands as poker

    table = poker.open_table(
        venue="poker-helsinki", variant="holdem", structure="no_limit",
        small_blind_minor=100, big_blind_minor=200, seats_max=9, buy_in_minor_min=10_000,
        buy_in_minor_max=40_000, rake="standard", jackpot=False, actor="floor",
        idempotency_key=key("poker-table")).table_id
    rival = funded_player()
    for number, who in ((seat, player), (seat + 1, rival)):
        poker.buy_in(table_id=table, seat=number, player_id=who.id, amount_minor=10_000,
                     paid_with="cash", actor="floor", idempotency_key=key("buy-in"))
    return poker.start_hand(table_id=table, button=seat, actor="dealer",
                            idempotency_key=key("hand")).hand_id


# -- engines -----------------------------------------------------------------


def test_banker_fee_is_a_share_of_what_the_banker_won_under_the_cap():
    """002:L3219-3223: seats 2 and 3 lose 30 and 20 to the bank, seat 4 wins 40 from it;
    the fee is 5 % of the 50 won, 2.50, capped at 2.00."""
    config = BANKER.configure({"rake_basis_points": 500, "rake_minor_max": 200}, FIGURES)
    bets = [BetIn("b", "bank", {"seat": 1}, 100_00), BetIn("s2", "bet", {"seat": 2}, 30_00),
            BetIn("s3", "bet", {"seat": 3}, 20_00), BetIn("s4", "bet", {"seat": 4}, 40_00)]
    outcome = BANKER.check_outcome({"results": {"2": "lose", "3": "lose", "4": "win"}},
                                   config, bets, FIGURES)
    result = {s.bet_id: s for s in BANKER.settle(bets, outcome, FIGURES, config)}
    assert result["b"].commission_minor == 200
    assert result["b"].returned_minor == 100_00 + 50_00 - 40_00 - 200
    assert result["s4"].returned_minor == 80_00
    staked = sum(b.stake_minor for b in bets)
    assert staked == sum(s.returned_minor + s.commission_minor for s in result.values())


def test_the_seats_stake_at_most_the_bank_and_a_staying_banker_at_most_doubles():
    """002:L3219, L3221."""
    config = BANKER.configure({"rake_basis_points": 500}, FIGURES)
    assert BANKER.stake_room("bet", "p2", [("p1", "bank", 100), ("p3", "bet", 70)]) == (
        30, "002:L3219")
    previous = {"round_id": "t.1", "bets": [{"player_id": "p1", "kind": "bank",
                                             "stake_minor": 100, "returned_minor": 150,
                                             "result": "win", "spec": {}}]}
    assert BANKER.bank_refusal("bank", "p1", 200, [], previous, config) is None
    refused = BANKER.bank_refusal("bank", "p1", 201, [], previous, config)
    assert (refused["cite"], refused["limit_minor"]) == ("002:L3221", 200)
    assert BANKER.bank_refusal("bank", "p2", 500, [], previous, config) is None
    assert BANKER.bank_refusal("bet", "p1", 10, [("p1", "bank", 100)], None, config)


def test_the_doubling_cube_doubles_the_rounds_stake():
    """002:L3235: cube_2 adds the stake, cube_4 twice it; the winner takes all, less
    the fee on the stakes won (002:L3233, L3237)."""
    config = DICE.configure({"rake_basis_points": 300}, FIGURES)
    cube_4 = DICE.bet_kind("cube_4", {"seat": 1}, FIGURES, config)
    assert (cube_4.raise_of, cube_4.multiples, cube_4.requires, cube_4.in_play) == (
        "stake:1", (2,), ("cube_2:1",), True)
    bets = [BetIn(f"{k}{s}", k, {"seat": s}, amount) for s in (1, 2)
            for k, amount in (("stake", 10_00), ("cube_2", 10_00), ("cube_4", 20_00))]
    outcome = DICE.check_outcome({"winner_seat": 2}, config, bets, FIGURES)
    assert outcome["cube"] == 4
    result = {s.bet_id: s for s in DICE.settle(bets, outcome, FIGURES, config)}
    assert sum(s.returned_minor for s in result.values()) == 40_00 + 40_00 - 1_20
    assert result["stake2"].commission_minor == 1_20
    with pytest.raises(OutcomeInvalid):       # one seat did not take the double
        DICE.check_outcome({"winner_seat": 1}, config, bets[:5], FIGURES)


def test_the_fee_cap_and_basis_come_from_the_rulebook():
    with pytest.raises(BetInvalid):
        DICE.configure({"rake_basis_points": 300, "rake_minor_max": 100},
                       {**FIGURES, "online.rake.cap_allowed": [{"value": False,
                                                               "cite": "002:L3179"}]})
    with pytest.raises(BetInvalid):
        DICE.configure({}, FIGURES)


def test_hedge_bets_pay_the_posted_odds_from_the_cards():
    """002:L3207: a pocket pair 15:1; a flush or better as the final hand by native_eval."""
    from .rows import DATA
    import tomllib

    with (DATA / "ray-online.v1.d" / "games.toml").open("rb") as fh:
        tables = {t["key"]: t["rows"] for t in tomllib.load(fh)["tables"]}
    bets = [BetIn("p", "hole_pair", {"seat": 1}, 10_00),
            BetIn("f", "flush_or_better", {"seat": 1}, 10_00),
            BetIn("s", "hole_suited", {"seat": 2}, 10_00)]
    outcome = HEDGE.check_outcome({"seats": {"1": "Ah Ad", "2": "Kc 9d"},
                                   "board": "2h 7h Jh Qh 3c"}, {}, bets, tables)
    result = {s.bet_id: s for s in HEDGE.settle(bets, outcome, tables, {})}
    assert result["p"].returned_minor == 160_00
    assert (result["f"].returned_minor, result["f"].detail["hand"]) == (150_00, "flush")
    assert result["s"].returned_minor == 0


# -- over HTTP ----------------------------------------------------------------


def test_hedge_bet_round_over_http(controller):
    table = open_table(controller, "hedge_bet", venue=ONLINE, stake_max="100.00")
    player = funded_player()
    hand_id = live_hand(player, seat=3)
    body = play(controller, table["table_id"],
                [(player.id, "hole_pair", {"seat": 3, "hand_id": hand_id}, "5.00")],
                {"seats": {"3": "8h 8d"}, "board": "2c 7s Jh", "hand_id": hand_id})
    reconcile(body, venue=ONLINE, game="hedge_bet")
    assert body["returned_minor"] == 80_00
    assert balance(gaming_account(player.id)) == 1_000_00 + 75_00
    outcome = Event.objects.get(type="games.outcome_recorded",
                                payload__round_id=body["round_id"])
    assert outcome.payload["outcome"]["hand_id"] == hand_id


def _hedge(controller, round_id, player, spec, stake="1.00"):
    return post(controller, f"{API}/rounds/{round_id}/bets",
                {"player_id": player.id, "kind": "hole_pair", "spec": spec, "stake": stake},
                key=key("b"))


def test_a_hedge_bets_hand_is_checked_against_poker(controller):
    """Decision games.hedge_bet.hand (002:L3207): the hand exists, is live, and the
    bettor is dealt in at the bet's seat; a round hedges one hand. Each refusal is a
    400 games.invalid_bet and writes nothing."""
    from casino.poker import commands as poker
    from casino.poker.models import Hand

    table = open_table(controller, "hedge_bet", venue=ONLINE, stake_max="100.00")
    player, other = funded_player(), funded_player()
    hand_id = live_hand(player, seat=3)
    round_id = post(controller, f"{API}/tables/{table['table_id']}/rounds", {},
                    key=key("r")).json()["round_id"]
    events = Event.objects.count()
    refusals = [
        _hedge(controller, round_id, player, {"seat": 3}),                    # no hand named
        _hedge(controller, round_id, player, {"seat": 3, "hand_id": "no-such-hand"}),
        _hedge(controller, round_id, player, {"seat": 4, "hand_id": hand_id}),  # the rival's
        _hedge(controller, round_id, other, {"seat": 3, "hand_id": hand_id}),   # not at it
    ]
    for refused in refusals:
        assert (refused.status_code, refused.json()["code"]) == (400, "games.invalid_bet")
    assert refusals[1].json()["details"]["cite"] == "002:L3207"
    assert Event.objects.count() == events
    assert _hedge(controller, round_id, player, {"seat": 3, "hand_id": hand_id}
                  ).status_code == 201
    second_hand = live_hand(other, seat=5)
    mixed = _hedge(controller, round_id, other, {"seat": 5, "hand_id": second_hand})
    assert (mixed.status_code, mixed.json()["code"]) == (400, "games.invalid_bet")
    # A hand no longer live: its last player in takes the pot, then no hedge.
    hand = Hand.objects.get(id=second_hand)
    poker.act(hand_id=second_hand, seat=hand.to_act, kind="fold", actor="dealer",
              idempotency_key=key("fold"))
    assert Hand.objects.get(id=second_hand).state == "settled"
    later = post(controller, f"{API}/tables/{table['table_id']}/rounds", {}, key=key("r"))
    later_round = later.json()["round_id"] if later.status_code == 201 else None
    if later_round is None:        # the first round is still running: use a new table
        spare = open_table(controller, "hedge_bet", venue=ONLINE, stake_max="100.00")
        later_round = post(controller, f"{API}/tables/{spare['table_id']}/rounds", {},
                           key=key("r")).json()["round_id"]
    ended = _hedge(controller, later_round, other, {"seat": 5, "hand_id": second_hand})
    assert (ended.status_code, ended.json()["code"]) == (400, "games.invalid_bet")
    assert ended.json()["details"]["state"] == "settled"


def test_the_outcome_is_of_the_hedged_hand(controller):
    table = open_table(controller, "hedge_bet", venue=ONLINE, stake_max="100.00")
    player = funded_player()
    hand_id = live_hand(player, seat=3)
    round_id = post(controller, f"{API}/tables/{table['table_id']}/rounds", {},
                    key=key("r")).json()["round_id"]
    assert _hedge(controller, round_id, player, {"seat": 3, "hand_id": hand_id}
                  ).status_code == 201
    post(controller, f"{API}/rounds/{round_id}/close", {}, key=key("c"))
    wrong = post(controller, f"{API}/rounds/{round_id}/outcome",
                 {"outcome": {"seats": {"3": "8h 8d"}, "board": "2c 7s Jh",
                              "hand_id": "another-hand"}}, key=key("o"))
    assert (wrong.status_code, wrong.json()["code"]) == (422, "games.invalid_outcome")


def test_banker_card_round_and_the_bankers_raise_over_http(controller):
    """002:L3219-3223 at EUR 5 % capped at EUR 3: the bank wins 60, pays 20; the banker
    stays on and may stake at most twice 100 (a 250 is refused, recorded)."""
    table = open_table(controller, "banker_cards",
                       {"rake_basis_points": 500, "rake_minor_max": 3_00}, venue=ONLINE,
                       stake_max="500.00")
    banker, ann, ben = (funded_player() for _ in range(3))
    body = play(controller, table["table_id"],
                [(banker.id, "bank", {"seat": 1}, "100.00"),
                 (ann.id, "bet", {"seat": 2}, "60.00"), (ben.id, "bet", {"seat": 3}, "20.00")],
                {"results": {"2": "lose", "3": "win"}})
    reconcile(body, venue=ONLINE, game="banker_cards")
    assert body["commission_minor"] == 3_00
    assert balance(gaming_account(banker.id)) == 1_000_00 + 60_00 - 20_00 - 3_00
    round_id = post(controller, f"{API}/tables/{table['table_id']}/rounds", {},
                    key=key("r")).json()["round_id"]
    refused = post(controller, f"{API}/rounds/{round_id}/bets",
                   {"player_id": banker.id, "kind": "bank", "spec": {"seat": 1},
                    "stake": "250.00"}, key=key("b"))
    assert refused.status_code == 422
    assert (refused.json()["code"], refused.json()["details"]["cite"]) == (
        "games.bank_rule", "002:L3221")


def test_dice_game_with_the_doubling_cube_over_http(controller):
    """002:L3229-3237: EUR 10 each, doubled twice (cube 4), seat 1 wins EUR 40 less 3 %."""
    table = open_table(controller, "dice_pvp", {"rake_basis_points": 300}, venue=ONLINE)
    one, two = funded_player(), funded_player()
    stakes = [(p.id, "stake", {"seat": s}, "10.00") for s, p in ((1, one), (2, two))]
    cube = [(p.id, kind, {"seat": s}, amount) for kind, amount in
            (("cube_2", "10.00"), ("cube_4", "20.00")) for s, p in ((1, one), (2, two))]
    body = play(controller, table["table_id"], stakes, {"winner_seat": 1}, in_play=cube)
    reconcile(body, venue=ONLINE, game="dice_pvp")
    assert body["commission_minor"] == 1_20
    assert balance(gaming_account(one.id)) == 1_000_00 + 40_00 - 1_20
    assert balance(gaming_account(two.id)) == 1_000_00 - 40_00


def test_games_between_players_are_outside_the_online_loss_cap(controller):
    """002:L3082: EUR 500 a day online for casino games against the house, none for games
    between players. A EUR 500 hedge bet lost reaches the cap: another hedge bet is
    refused (compliance.loss_cap), a dice game's stake is taken (category pvp)."""
    hedge = open_table(controller, "hedge_bet", venue=ONLINE, stake_max="500.00")
    dice = open_table(controller, "dice_pvp", {"rake_basis_points": 300}, venue=ONLINE)
    player, rival = funded_player(), funded_player()
    hand_id = live_hand(player, seat=1)
    lost = play(controller, hedge["table_id"],
                [(player.id, "hole_pair", {"seat": 1, "hand_id": hand_id}, "500.00")],
                {"seats": {"1": "8h 9d"}, "board": "2c 7s Jh"})
    assert lost["returned_minor"] == 0
    round_id = post(controller, f"{API}/tables/{hedge['table_id']}/rounds", {},
                    key=key("r")).json()["round_id"]
    refused = post(controller, f"{API}/rounds/{round_id}/bets",
                   {"player_id": player.id, "kind": "hole_pair",
                    "spec": {"seat": 1, "hand_id": hand_id}, "stake": "1.00"}, key=key("b"))
    assert (refused.status_code, refused.json()["code"]) == (422, "compliance.rejected")
    assert refused.json()["details"]["rule"] == "compliance.loss_cap"
    body = play(controller, dice["table_id"],
                [(player.id, "stake", {"seat": 1}, "10.00"),
                 (rival.id, "stake", {"seat": 2}, "10.00")], {"winner_seat": 2})
    reconcile(body, venue=ONLINE, game="dice_pvp")
    settled = Event.objects.filter(type="games.player_settled",
                                   payload__round_id=body["round_id"]).first()
    assert settled.payload["activity"]["category"] == "pvp"
