"""Bank rotation by seat order in player-banked Pai Gow Poker (issue 22;
002:L2623 "kukin pelaaja voi halutessaan vuorollaan toimia pankkina": each
player may, if they wish, be the bank in turn). Decision
games.pai_gow.bank_rotation: after the box that held the last settled
round's bank, the next box takes the bank or passes it; a bank bet lists the
boxes that passed since (`spec.passed`).
"""

from __future__ import annotations

import pytest

from casino.games.engine.common import BetInvalid
from casino.games.engine.pai_gow import PaiGowPoker
from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for, post

from .conftest import funded_player, key
from .http_rounds import API, open_table, play, reconcile

PAI_GOW = PaiGowPoker()
PLAYER_BANK = {"bank": "player"}


def _previous(box):
    return {"round_id": "gt-x.1", "bets": [
        {"player_id": "b", "kind": "bank", "spec": {"box": box}, "stake_minor": 100,
         "returned_minor": 100, "result": "win"}]}


def _refusal(box, passed=None, previous=None):
    spec = {"box": box} if passed is None else {"box": box, "passed": passed}
    bet = PAI_GOW.bet_kind("bank", spec, {}, PLAYER_BANK)
    return PAI_GOW.rotation_refusal("bank", bet.spec, previous, PLAYER_BANK)


@pytest.mark.parametrize(("held", "box", "passed", "allowed"), [
    (1, 2, None, True),              # the next box takes it
    (1, 3, None, False),             # box 2 skipped without passing
    (1, 3, [2], True),               # box 2 passed
    (6, 1, [7], True),               # round the table: 7 passed, 1 takes it
    (6, 1, None, False),
    (3, 3, [1, 2, 4, 5, 6, 7], True),  # everyone else passed: it comes back
    (3, 3, None, False),
    (1, 2, [3], False),              # a box that passed after the taker
])
def test_the_bank_goes_round_in_seat_order(held, box, passed, allowed):
    refused = _refusal(box, passed, _previous(held))
    assert (refused is None) == allowed
    if refused is not None:
        assert (refused["cite"], refused["decision"]) == ("002:L2623",
                                                          "games.pai_gow.bank_rotation")


def test_the_first_bank_sits_anywhere_and_follows_no_one():
    assert _refusal(5) is None
    assert _refusal(5, [4]) is not None


def test_passed_lists_boxes_once():
    for passed in ([0], [8], [2, 2], "2", [1, 2, 3, 4, 5, 6, 7]):
        with pytest.raises(BetInvalid):
            _refusal(3, passed)


def test_the_bank_rotates_over_http(venues):
    """Round 1 Dave banks at box 1; round 2 box 2 passes and Carol takes it at box 3;
    a bank at box 3 that does not list box 2 as passed is refused (422
    games.bank_rule, recorded)."""
    controller = client_for(Role.TABLE_CONTROLLER)
    table = open_table(controller, "pai_gow_poker", {"bank": "player"})
    carol, dave = funded_player(), funded_player()
    first = play(controller, table["table_id"],
                 [(dave.id, "bank", {"box": 1}, "50.00"),
                  (carol.id, "bet", {"box": 3}, "20.00")],
                 {"dealer": "Th 6d 4c 2d 7s 3s Js",
                  "banker": {"front": "Qs Jd", "back": "9c 9d 5c 5d 2s"},
                  "boxes": {"3": {"front": "Ac Ad", "back": "Kh Kd Ks 3c 3d"}}})
    reconcile(first, game="pai_gow_poker")
    round_id = post(controller, f"{API}/tables/{table['table_id']}/rounds", {},
                    key=key("r")).json()["round_id"]
    skipped = post(controller, f"{API}/rounds/{round_id}/bets",
                   {"player_id": carol.id, "kind": "bank", "spec": {"box": 3},
                    "stake": "100.00"}, key=key("b"))
    assert (skipped.status_code, skipped.json()["code"]) == (422, "games.bank_rule")
    assert skipped.json()["details"]["passed_due"] == [2]
    assert Event.objects.filter(type="games.bet_rejected",
                                payload__round_id=round_id).count() == 1
    taken = post(controller, f"{API}/rounds/{round_id}/bets",
                 {"player_id": carol.id, "kind": "bank", "spec": {"box": 3, "passed": [2]},
                  "stake": "100.00"}, key=key("b"))
    assert taken.status_code == 201, taken.json()
    assert taken.json()["spec"] == {"box": 3, "passed": [2]}


# -- Baccara (002:L2817-2819), a table posting its seats -----------------------

from casino.games.engine.baccarat import Baccara  # noqa: E402

BACCARA = Baccara()
SIX = {"seats": 6}


def _baccara_previous(player, seat, result):
    return {"round_id": "gt-y.1", "bets": [
        {"player_id": player, "kind": "banco", "spec": {"seat": seat}, "stake_minor": 100,
         "returned_minor": 195 if result == "win" else 0, "result": result}]}


def _baccara(player, seat, passed=None, previous=None):
    spec = {"seat": seat} if passed is None else {"seat": seat, "passed": passed}
    bet = BACCARA.bet_kind("banco", spec, {"games.baccara.payouts": [
        {"id": "banco", "bet_unit": "coup", "cite": "002:L2811"},
        {"id": "punto", "bet_unit": "coup", "cite": "002:L2811"}]}, SIX)
    return BACCARA.rotation_refusal("banco", bet.spec, previous, SIX, player_id=player)


@pytest.mark.parametrize(("last", "player", "seat", "passed", "allowed"), [
    (("ann", 2, "win"), "ann", 2, None, True),       # the winner keeps it at her seat
    (("ann", 2, "win"), "ann", 3, None, False),      # ... not at another
    (("ann", 2, "win"), "ben", 3, None, True),       # she gave it up: the next seat
    (("ann", 2, "lose"), "ben", 3, None, True),      # punto won: the next seat
    (("ann", 2, "lose"), "cid", 4, None, False),     # seat 3 skipped
    (("ann", 2, "lose"), "cid", 4, [3], True),       # seat 3 passed
    (("ann", 6, "lose"), "ben", 1, None, True),      # round the table
])
def test_the_baccara_bank_goes_round_the_posted_seats(last, player, seat, passed, allowed):
    refused = _baccara(player, seat, passed, _baccara_previous(*last))
    assert (refused is None) == allowed
    if refused is not None:
        assert refused["decision"] == "games.baccara.bank_rotation"


def test_a_baccara_table_without_seats_keeps_no_seat_order():
    assert BACCARA.configure({}, {}) == {}
    bet = BACCARA.bet_kind("banco", {}, {"games.baccara.payouts": [
        {"id": "banco", "bet_unit": "coup", "cite": "002:L2811"}]}, {})
    assert BACCARA.rotation_refusal("banco", bet.spec, _baccara_previous("ann", 2, "lose"),
                                    {}, player_id="cid") is None
    for bad in ({"seats": 1}, {"seats": 13}, {"rotation": True}):
        with pytest.raises(BetInvalid):
            BACCARA.configure(bad, {})


def test_the_baccara_bank_passes_in_seat_order_over_http(venues):
    """Ann banks at seat 2 and loses to Cid's punto: the bank is seat 3's. Cid at
    seat 4 without seat 3 passing is refused (422 games.bank_rule); with it, taken."""
    controller = client_for(Role.TABLE_CONTROLLER)
    table = open_table(controller, "baccara", SIX)
    ann, cid = funded_player(), funded_player()
    first = play(controller, table["table_id"],
                 [(ann.id, "banco", {"seat": 2}, "100.00"),
                  (cid.id, "punto", {}, "100.00")],
                 {"punto": "9h Kd", "banco": "2c 3s"})
    reconcile(first, game="baccara")
    assert {b["kind"]: b["result"] for b in first["bets"]}["banco"] == "lose"
    round_id = post(controller, f"{API}/tables/{table['table_id']}/rounds", {},
                    key=key("r")).json()["round_id"]
    skipped = post(controller, f"{API}/rounds/{round_id}/bets",
                   {"player_id": cid.id, "kind": "banco", "spec": {"seat": 4},
                    "stake": "100.00"}, key=key("b"))
    assert (skipped.status_code, skipped.json()["code"]) == (422, "games.bank_rule")
    assert skipped.json()["details"]["passed_due"] == [3]
    taken = post(controller, f"{API}/rounds/{round_id}/bets",
                 {"player_id": cid.id, "kind": "banco", "spec": {"seat": 4, "passed": [3]},
                  "stake": "100.00"}, key=key("b"))
    assert taken.status_code == 201, taken.json()
