"""Chinese Poker's other announced scorings (issue 22; 002:L1995-1997: "there
are many scorings ... the scoring used is announced in the room"). Decision
games.chinese_poker.scoring posts 2-4 (a point a line, one for the majority)
and 1-6 (a point a line, three more for all three) beside 1-3, each chosen by
the table (config `scoring`), settled from the arranged hands by native_eval.
"""

from __future__ import annotations

import pytest

from casino.accounts import gaming_account
from casino.games.engine.chinese import ChinesePoker
from casino.games.engine.common import BetIn, BetInvalid
from casino.roles import Role
from tests.casino.api.conftest import client_for

from .conftest import balance, funded_player
from .http_rounds import open_table, play, reconcile
from .rows import CASINO, tables

CHINESE = ChinesePoker()
# Seat 1 beats seat 2 on two lines (front QQ, middle trips; back flush < full
# house) and scoops seat 3; seat 2 scoops seat 3.
HANDS = {
    "1": {"front": "Qs Qh 2d", "middle": "9c 9d 9h 4s 3c", "back": "Ac Kc Jc 8c 5c"},
    "2": {"front": "As Ks Js", "middle": "Td Tc 6h 5d 4d", "back": "8s 8h 8d 7c 7s"},
    "3": {"front": "2c 3d 4h", "middle": "5s 6s 7h 9s Jh", "back": "Th Jd Qd Kd 2h"},
}
# Seat 3 again, its middle (aces) above its back (king high): fouled.
FOULED = {"front": "2c 3d 4h", "middle": "Ah Ad 7d 6d 5h", "back": "Th Jd Qd Kd 2h"}
# A fourth seat from the other 13 cards: front 4-high, middle K-high, back aces.
FOURTH = {"front": "2s 3s 4c", "middle": "Ts Kh 5h 7d 6c", "back": "Ah Ad 3h 6d Qc"}


def _points(scoring: str, hands=HANDS) -> dict[str, int]:
    config = CHINESE.configure({"point_value_minor": 50, "scoring": scoring}, tables(CASINO))
    stake = config["stake_minor"]
    bets = [BetIn(f"b{s}", "seat", {"seat": int(s)}, stake) for s in hands]
    outcome = CHINESE.check_outcome({"button": 1, "hands": hands}, config, bets,
                                    tables(CASINO))
    settled = CHINESE.settle(bets, outcome, tables(CASINO), config)
    assert sum(s.returned_minor for s in settled) == stake * len(bets)   # conserved
    return {s.bet_id: s.detail["points"] for s in settled}


@pytest.mark.parametrize(("scoring", "stake_points", "points"), [
    ("one_to_three", 9, {"b1": 1 + 3, "b2": -1 + 3, "b3": -3 - 3}),
    ("two_four", 12, {"b1": 2 + 4, "b2": -2 + 4, "b3": -4 - 4}),
    ("one_six", 18, {"b1": 1 + 6, "b2": -1 + 6, "b3": -6 - 6}),
])
def test_each_announced_scoring(scoring, stake_points, points):
    config = CHINESE.configure({"point_value_minor": 50, "scoring": scoring}, tables(CASINO))
    assert (config["scoring"], config["stake_minor"]) == (scoring, stake_points * 50)
    assert _points(scoring) == points


def test_a_fouled_hand_loses_every_line_and_the_bonuses():
    """Middle above back: seat 3 fouls, losing 4 (2-4) or 6 (1-6) to each legal hand."""
    hands = {**HANDS, "3": FOULED}
    assert _points("two_four", hands)["b3"] == -8
    assert _points("one_six", hands)["b3"] == -12


def test_four_players_lose_at_most_their_stakes():
    """Each seat stakes three opponents' worth: no seat loses more (zero sum)."""
    for scoring, stake_points in (("two_four", 12), ("one_six", 18)):
        points = _points(scoring, {**HANDS, "4": FOURTH})
        assert sum(points.values()) == 0
        assert min(points.values()) >= -stake_points


def test_an_unposted_scoring_is_refused():
    with pytest.raises(BetInvalid):
        CHINESE.configure({"point_value_minor": 50, "scoring": "one_to_five"}, tables(CASINO))


def test_a_one_six_hand_over_http(venues):
    """1-6 at EUR 0.50 a point: each seat stakes 18 points (EUR 9)."""
    controller = client_for(Role.TABLE_CONTROLLER)
    table = open_table(controller, "chinese_poker",
                       {"point_value_minor": 50, "scoring": "one_six"},
                       stake_min="9.00", stake_max="9.00")
    players = [funded_player() for _ in range(3)]
    bets = [(p.id, "seat", {"seat": n}, "9.00") for n, p in enumerate(players, start=1)]
    body = play(controller, table["table_id"], bets, {"button": 1, "hands": HANDS})
    reconcile(body, game="chinese_poker")
    assert [b["detail"]["points"] for b in sorted(body["bets"], key=lambda b: b["bet_id"])
            ] == [7, 5, -12]
    assert [balance(gaming_account(p.id)) for p in players] == [
        1_000_00 + 3_50, 1_000_00 + 2_50, 1_000_00 - 6_00]
