"""Issue 22 over HTTP: each new game or option plays a round through the API and
the round reconciles to the ledger (tests/casino/games/http_rounds.py)."""

from __future__ import annotations

import pytest

from casino.cage.events import gaming_account
from casino.roles import Role
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
