"""Issue 22 over HTTP: each new game or option plays a round through the API and
the round reconciles to the ledger (tests/casino/games/http_rounds.py)."""

from __future__ import annotations

import pytest

from casino.accounts import gaming_account
from casino.games.commands import _part_iv_game
from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for, post

from .conftest import balance, funded_player, key
from .http_rounds import API, open_table, play, reconcile


@pytest.fixture
def controller(venues):
    return client_for(Role.TABLE_CONTROLLER)


def test_punto_banco_minimum_commission_over_http(controller):
    """002:L2799: a EUR 10 banco win at a table posting a EUR 1 minimum pays EUR 9."""
    table = open_table(controller, "punto_banco", {"commission_minor_min": 1_00})
    assert table["config"] == {"banco": "commission", "commission_minor_min": 1_00}
    player = funded_player()
    body = play(controller, table["table_id"], [(player.id, "banco", {}, "10.00")],
                {"punto": "2h 3d", "banco": "9h Kd"})
    sums = reconcile(body, game="punto_banco")
    assert body["commission_minor"] == 1_00
    assert body["bets"][0]["detail"]["commission_min_cite"] == "002:L2799"
    assert sums["house/casino-helsinki/games/punto_banco/commission"] == -1_00
    assert balance(gaming_account(player.id)) == 1_000_00 + 9_00


def test_oasis_version_b_round_over_http(controller):
    """002:L2104-2114: trips against a dealer's pair of eights: ante 1:1, bet 2x; the
    exchange fee is kept."""
    table = open_table(controller, "oasis_stud_poker", {"version": "b"})
    player = funded_player()
    body = play(controller, table["table_id"], [(player.id, "ante", {"box": 1}, "10.00")],
                {"dealer": "8d 8c 6d 4h 2h", "boxes": {"1": "Jc Jd Jh Ks 3c"}},
                in_play=[(player.id, "bet", {"box": 1}, "20.00"),
                         (player.id, "swap", {"box": 1}, "10.00")])
    reconcile(body, game="oasis_stud_poker")
    assert body["returned_minor"] == 20_00 + 20_00 * 3
    assert balance(gaming_account(player.id)) == 1_000_00 - 40_00 + 80_00


def test_oasis_version_c_round_over_http(controller):
    """002:L2116-2128: deuces wild, five of a kind pays 30x the bet."""
    table = open_table(controller, "oasis_stud_poker", {"version": "c"})
    player = funded_player()
    body = play(controller, table["table_id"], [(player.id, "ante", {"box": 2}, "5.00")],
                {"dealer": "8d 8c 6h 5d 3s", "boxes": {"2": "9c 9d 9h 2s 2c"}},
                in_play=[(player.id, "bet", {"box": 2}, "10.00")])
    reconcile(body, game="oasis_stud_poker")
    assert body["returned_minor"] == 10_00 + 10_00 * 31


def test_oasis_version_d_round_with_the_tables_win_cap_over_http(controller):
    """002:L2130-2140 and 002:L2039: three bets on a flush (8x) at a table posting a
    EUR 100 win cap: 3 x 80 = 240 cut to 100."""
    table = open_table(controller, "oasis_stud_poker",
                       {"version": "d", "win_minor_max": 100_00})
    player = funded_player()
    bets = [(player.id, kind, {"box": 1}, "10.00") for kind in ("bet_1", "bet_2", "bet_3")]
    body = play(controller, table["table_id"], bets,
                {"community": "Ah 9h", "boxes": {"1": "7h 4h 3h"}})
    reconcile(body, game="oasis_stud_poker")
    assert body["returned_minor"] == 30_00 + 100_00
    cut = sum(b["detail"].get("win_cap", {}).get("cut_minor", 0) for b in body["bets"])
    assert cut == 140_00


def test_oasis_progressive_bonus_over_http(controller):
    """002:L2041: the progressive bonus stake's pool share goes to the pool account."""
    table = open_table(controller, "oasis_stud_poker", {"bonus": "progressive"})
    player = funded_player()
    body = play(controller, table["table_id"],
                [(player.id, "ante", {"box": 1}, "10.00"),
                 (player.id, "bonus", {"box": 1}, "10.00")],
                {"dealer": "As Kc 8d 4h 3c", "boxes": {"1": "7c 7d Kh 5s 2c"}},
                in_play=[(player.id, "bet", {"box": 1}, "20.00")])
    sums = reconcile(body, game="oasis_stud_poker")
    assert body["contribution_minor"] == 1_50
    assert sums["jackpot/casino-helsinki/oasis_progressive/pending"] == -1_50


def test_an_unposted_oasis_version_is_a_400_and_writes_nothing(controller):
    response = post(controller, f"{API}/tables",
                    {"venue": "casino-helsinki", "game": "oasis_stud_poker",
                     "config": {"version": "e"}, "stake_min": "1.00",
                     "stake_max": "10.00"}, key=key("t"))
    assert response.status_code == 400


def test_player_banked_pai_gow_over_http(controller):
    """002:L2623 over two rounds: in round 1 (house bank) Carol stakes EUR 20 on a box;
    in round 2 Carol banks EUR 100, Dave's box loses EUR 30 to her and the dealer plays
    her with EUR 20, the cap from round 1, and loses: her net win 50 pays the house 2.50."""
    table = open_table(controller, "pai_gow_poker", {"bank": "player"})
    carol, dave = funded_player(), funded_player()
    # Round 1: Carol on a box against Dave's bank (no dealer stake: no round before).
    first = play(controller, table["table_id"],
                 [(dave.id, "bank", {"box": 1}, "50.00"),
                  (carol.id, "bet", {"box": 2}, "20.00")],
                 {"dealer": "Th 6d 4c 2d 7s 3s Js",
                  "banker": {"front": "Qs Jd", "back": "9c 9d 5c 5d 2s"},
                  "boxes": {"2": {"front": "Ac Ad", "back": "Kh Kd Ks 3c 3d"}}})
    reconcile(first, game="pai_gow_poker")
    assert first["commission_minor"] == 1_00             # Carol's win, 5 % (002:L2488)
    second = play(controller, table["table_id"],
                  [(carol.id, "bank", {"box": 2}, "100.00"),
                   (dave.id, "bet", {"box": 3}, "30.00")],
                  {"dealer": "Th 6d 4c 2d 7s 3s Js",
                   "banker": {"front": "Qs Jd", "back": "9c 9d 5c 5d 2s"},
                   "dealer_stake_minor": 20_00,
                   "boxes": {"3": {"front": "4h 3h", "back": "8h 8c 6s 7h 2c"}}})
    sums = reconcile(second, game="pai_gow_poker")
    bank = next(b for b in second["bets"] if b["kind"] == "bank")
    assert bank["detail"]["dealer_cap_minor"] == 20_00
    assert bank["detail"]["dealer_cap_round"] == first["round_id"]
    assert (bank["commission_minor"], bank["returned_minor"]) == (2_50, 100_00 + 50_00 - 2_50)
    assert second["house_minor"] == -20_00              # the dealer's stake, lost
    assert sums["house/casino-helsinki/games/pai_gow_poker/commission"] == -2_50


def test_player_banked_pai_gow_dealer_above_the_cap_is_refused_over_http(controller):
    """002:L2623: without a previous round the dealer may not play: a 422, recorded."""
    table = open_table(controller, "pai_gow_poker", {"bank": "player"})
    carol = funded_player()
    response = post(controller, f"{API}/tables/{table['table_id']}/rounds", {}, key=key("r"))
    round_id = response.json()["round_id"]
    assert post(controller, f"{API}/rounds/{round_id}/bets",
                {"player_id": carol.id, "kind": "bank", "spec": {"box": 1},
                 "stake": "100.00"}, key=key("b")).status_code == 201
    post(controller, f"{API}/rounds/{round_id}/close", {}, key=key("c"))
    refused = post(controller, f"{API}/rounds/{round_id}/outcome", {"outcome": {
        "dealer": "Th 6d 4c 2d 7s 3s Js",
        "banker": {"front": "Qs Jd", "back": "9c 9d 5c 5d 2s"},
        "dealer_stake_minor": 1_00, "boxes": {}}}, key=key("o"))
    assert refused.status_code == 422
    assert refused.json()["code"] == "games.invalid_outcome"


def test_baccara_bank_continues_passes_and_plays_avec_over_http(controller):
    """002:L2817-2827: Ann banks 100 with Ben avec 50 and wins Cid's 150 (less 7.50);
    Ann must continue at 197.50 (a 100 is refused, recorded); she does, Cid wins, and
    the bank passes: Ann's next bank is refused."""
    table = open_table(controller, "baccara")
    ann, ben, cid = funded_player(), funded_player(), funded_player()
    first = play(controller, table["table_id"],
                 [(ann.id, "banco", {}, "100.00"), (ben.id, "banco_avec", {}, "50.00"),
                  (cid.id, "punto", {}, "150.00")],
                 {"punto": "2c 3s", "banco": "9h Kd"})
    reconcile(first, game="baccara")
    returned = {b["kind"]: b["returned_minor"] for b in first["bets"]}
    assert returned == {"banco": 195_00, "banco_avec": 97_50, "punto": 0}
    assert first["commission_minor"] == 7_50

    rounds = f"{API}/tables/{table['table_id']}/rounds"
    round_id = post(controller, rounds, {}, key=key("r")).json()["round_id"]
    wrong = post(controller, f"{API}/rounds/{round_id}/bets",
                 {"player_id": ann.id, "kind": "banco", "spec": {}, "stake": "100.00"},
                 key=key("b"))
    assert wrong.status_code == 422 and wrong.json()["code"] == "games.bank_rule"
    assert wrong.json()["details"]["cite"] == "002:L2817"
    for player, kind, stake in ((ann.id, "banco", "195.00"), (cid.id, "punto", "100.00")):
        assert post(controller, f"{API}/rounds/{round_id}/bets",
                    {"player_id": player, "kind": kind, "spec": {}, "stake": stake},
                    key=key("b")).status_code == 201
    post(controller, f"{API}/rounds/{round_id}/close", {}, key=key("c"))
    post(controller, f"{API}/rounds/{round_id}/outcome",
         {"outcome": {"punto": "9h Kd", "banco": "2c 3s"}}, key=key("o"))
    post(controller, f"{API}/rounds/{round_id}/settle", {}, key=key("s"))
    second = controller.get(f"{API}/rounds/{round_id}").json()
    reconcile(second, game="baccara")
    assert second["returned_minor"] == 95_00 + 200_00

    third = post(controller, rounds, {}, key=key("r")).json()["round_id"]
    passed = post(controller, f"{API}/rounds/{third}/bets",
                  {"player_id": ann.id, "kind": "banco", "spec": {}, "stake": "95.00"},
                  key=key("b"))
    assert passed.status_code == 422 and passed.json()["details"]["cite"] == "002:L2819"
    assert post(controller, f"{API}/rounds/{third}/bets",
                {"player_id": ben.id, "kind": "banco", "spec": {}, "stake": "80.00"},
                key=key("b")).status_code == 201
    assert post(controller, f"{API}/rounds/{third}/bets",
                {"player_id": cid.id, "kind": "banco_solo", "spec": {}, "stake": "80.00"},
                key=key("b")).status_code == 201
    post(controller, f"{API}/rounds/{third}/close", {}, key=key("c"))
    # Banco solo: punto stands on 5 against banco's 3 (002:L2869), banco draws.
    post(controller, f"{API}/rounds/{third}/outcome",
         {"outcome": {"punto": "2h 3d", "banco": "Ac 2s 9c"}}, key=key("o"))
    post(controller, f"{API}/rounds/{third}/settle", {}, key=key("s"))
    solo_round = controller.get(f"{API}/rounds/{third}").json()
    reconcile(solo_round, game="baccara")
    assert {b["kind"]: b["returned_minor"] for b in solo_round["bets"]} == {
        "banco": 0, "banco_solo": 160_00}


OFC_HANDS = {
    "1": {"front": "Qs Qh 2d", "middle": "9c 9d 9h 4s 3c", "back": "Ac Kc Jc 8c 5c"},
    "2": {"front": "As Ks Js", "middle": "Td Tc 6h 5d 4d", "back": "8s 8h 8d 7c 7s"},
    "3": {"front": "2c 3d 4h", "middle": "5s 6s 7h 9s Jh", "back": "Th Jd Qd Kd 2h"},
}


def test_open_faced_chinese_poker_cash_hand_over_http(controller):
    """000:L2633-2692 at the Veikkaus room, EUR 1 a point: each seat stakes 50 points;
    seat 1 wins 27, seat 2 wins 4, seat 3 loses 31; the house keeps nothing."""
    table = open_table(controller, "open_faced_chinese_poker", {"point_value_minor": 1_00},
                       venue="poker-helsinki", stake_min="50.00", stake_max="50.00")
    assert table["config"]["stake_minor"] == 50_00
    players = [funded_player(venue="poker-helsinki") for _ in range(3)]
    bets = [(p.id, "seat", {"seat": n}, "50.00") for n, p in enumerate(players, start=1)]
    body = play(controller, table["table_id"], bets, {"button": 3, "hands": OFC_HANDS})
    reconcile(body, venue="poker-helsinki", game="open_faced_chinese_poker")
    assert body["house_minor"] == 0 and body["commission_minor"] == 0
    assert [balance(gaming_account(p.id)) for p in players] == [
        1_000_00 + 27_00, 1_000_00 + 4_00, 1_000_00 - 31_00]


def test_chinese_poker_at_the_casino_over_http(controller):
    """002:L1995 at RAY's casino, 1-3 scoring at EUR 0.50 a point (9 points at stake)."""
    table = open_table(controller, "chinese_poker", {"point_value_minor": 50},
                       stake_min="4.50", stake_max="4.50")
    players = [funded_player() for _ in range(3)]
    bets = [(p.id, "seat", {"seat": n}, "4.50") for n, p in enumerate(players, start=1)]
    body = play(controller, table["table_id"], bets, {"button": 1, "hands": OFC_HANDS})
    reconcile(body, game="chinese_poker")
    assert [b["detail"]["points"] for b in sorted(body["bets"], key=lambda b: b["bet_id"])
            ] == [4, 2, -6]
    assert body["house_minor"] == 0


def test_chinese_poker_stakes_meet_the_part_iv_poker_opening_stake_cap(controller):
    """002:L3405 (decision games.chinese.escrow): a seat's stake at the casino is
    checked as the opening stake of poker between players (EUR 20,000); without that
    row the pipeline would refuse a game Part IV does not list."""
    table = open_table(controller, "chinese_poker", {"point_value_minor": 1_00},
                       stake_min="9.00", stake_max="9.00")
    player = funded_player()
    round_id = post(controller, f"{API}/tables/{table['table_id']}/rounds", {},
                    key=key("r")).json()["round_id"]
    bet = post(controller, f"{API}/rounds/{round_id}/bets",
               {"player_id": player.id, "kind": "seat", "spec": {"seat": 1},
                "stake": "9.00"}, key=key("b"))
    assert bet.status_code == 201, bet.json()
    assert _part_iv_game("chinese_poker") == "poker_pvp"
    placed = Event.objects.get(type="games.bet_placed", payload__bet_id=bet.json()["bet_id"])
    assert {"compliance.game_not_offered", "compliance.max_stake"} <= set(
        placed.payload["verdict"]["checks_passed"])


def test_an_oasis_progressive_royal_flush_is_a_jackpot_hit(controller,
                                                           django_capture_on_commit_callbacks):
    """002:L2041 (decision games.oasis_stud_poker.progressive): the royal flush on the
    progressive bonus is recorded by the jackpots app as a hit on the venue's Oasis
    pool (jackpots.progressive.pools row oasis_progressive), awaiting approval."""
    from casino.jackpots.models import JackpotHit

    table = open_table(controller, "oasis_stud_poker", {"bonus": "progressive"})
    player = funded_player()
    with django_capture_on_commit_callbacks(execute=True):
        body = play(controller, table["table_id"],
                    [(player.id, "ante", {"box": 1}, "10.00"),
                     (player.id, "bonus", {"box": 1}, "10.00")],
                    {"dealer": "As Kc 8d 4h 3c", "boxes": {"1": "Ah Kh Qh Jh Th"}},
                    in_play=[(player.id, "bet", {"box": 1}, "20.00")])
    reconcile(body, game="oasis_stud_poker")
    bonus = next(b for b in body["bets"] if b["kind"] == "bonus")
    hit = JackpotHit.objects.get(id=bonus["bet_id"])
    assert (hit.row, hit.pool_basis_points, hit.state) == ("royal_flush", 10000, "hit")
    assert hit.players == {"1": player.id}


def test_a_38_pocket_roulette_round_over_http(controller):
    """002:L1573, L1604: a table posting the 38-pocket wheel takes the five-number bet
    (checked against the EUR 3,000 five-number cap, 002:L3395) and pays it 6:1 on 00."""
    table = open_table(controller, "roulette", {"wheel": "double_zero"})
    player = funded_player()
    body = play(controller, table["table_id"],
                [(player.id, "five_number", {"numbers": [0, "00", 1, 2, 3]}, "10.00"),
                 (player.id, "red", {}, "10.00")], {"number": "00"})
    reconcile(body, game="roulette")
    returned = {b["kind"]: b["returned_minor"] for b in body["bets"]}
    assert returned == {"five_number": 70_00, "red": 5_00}        # 002:L1602: half
    placed = Event.objects.filter(type="games.bet_placed",
                                  payload__round_id=body["round_id"],
                                  payload__kind="five_number").get()
    assert placed.payload["bet_unit"] == "numbers_5"
