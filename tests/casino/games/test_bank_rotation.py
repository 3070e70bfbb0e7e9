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
