"""The reports' chart: close lines, GL codes and venue attribution (pure)."""

from __future__ import annotations

import pytest

from casino.reports import chart

ENTITIES = {"poker_table": {"t1": "poker-helsinki"}, "game_table": {"g1": "casino-helsinki"},
            "tournament": {"m1": "poker-helsinki"}}


@pytest.mark.parametrize("code, event_type, line, kind, gl", [
    ("cage/poker-helsinki/cash", "cage.cash_deposited", "cage_cash", "balance", "1000"),
    ("bank/poker-helsinki/clearing", "cage.cash_deposited", "bank_clearing", "balance",
     "1100"),
    ("player/42/account", "cage.cash_deposited", "player_accounts", "balance", "2100"),
    ("cage/poker-helsinki/chips", "cage.chips_purchased", "chip_float", "balance", "2200"),
    ("table/t1/stacks", "poker.player_bought_in", "table_stacks", "balance", "2210"),
    ("games/g1/stakes", "games.bet_placed", "game_stakes", "balance", "2220"),
    ("tournament/m1/prize_pool", "tournaments.player_entered", "tournament_prize_pools",
     "balance", "2300"),
    ("tournament/m1/bounties", "tournaments.player_entered", "tournament_bounties",
     "balance", "2310"),
    ("jackpot/poker-helsinki/bad_beat/pending", "poker.hand_settled",
     "jackpot_pending/bad_beat", "balance", "2400"),
    ("jackpot/poker-helsinki/bad_beat/pool", "jackpots.hit_paid", "jackpot_pool/bad_beat",
     "balance", "2410"),
    ("house/poker-helsinki/rake", "poker.hand_settled", "rake", "flow", "4000"),
    ("house/poker-helsinki/rake", "poker.time_charged", "time_charges", "flow", "4000"),
    ("house/poker-helsinki/games/baccarat/commission", "games.player_settled",
     "commission/baccarat", "flow", "4110"),
    ("house/poker-helsinki/games/baccarat", "games.player_settled", "games/baccarat", "flow",
     "4100"),
    ("house/poker-helsinki/tournament_fees", "tournaments.player_entered", "tournament_fees",
     "flow", "4200"),
    ("house/poker-helsinki/jackpot_funding", "jackpots.base_topped_up", "jackpot_funding",
     "flow", "5100"),
    ("house/poker-helsinki/tournament_prizes", "tournaments.prize_pool_drawn",
     "tournament_prizes", "flow", "5200"),
    ("house/poker-helsinki/promotions", "promo.issued", "other", "flow", "9999"),
    ("charity/unclaimed", "poker.stake_voided", "other", "flow", "9999"),
    ("cage/casino-helsinki/cash", "cage.cash_deposited", "other", "flow", "1000"),
])
def test_each_account_pattern_has_one_line_and_one_gl_code(code, event_type, line, kind, gl):
    """Checked in the close of poker-helsinki: another venue's cash is `other`
    there, but keeps its GL code in a journal."""
    assert chart.close_line(code, "poker-helsinki", event_type) == (line, kind)
    assert chart.gl_account(code)[0] == gl


@pytest.mark.parametrize("stream, payload_venue, accounts, venue", [
    ("player/1", "ray-online", ("player/1/account", "bank/ray-online/clearing"), "ray-online"),
    ("hand/t1/3", None, ("table/t1/stacks", "house/poker-helsinki/rake"), "poker-helsinki"),
    ("table/t1", None, ("player/1/account", "table/t1/stacks"), "poker-helsinki"),
    ("round/g1/1", None, ("player/1/account", "games/g1/stakes"), "casino-helsinki"),
    ("tournament/m1", None, ("player/1/account", "tournament/m1/prize_pool"),
     "poker-helsinki"),
    ("hand/t1/4", None, ("player/1/account", "player/2/account"), "poker-helsinki"),
    ("correction/c1", None, ("player/1/account", "player/2/account"), None),
])
def test_an_event_belongs_to_one_venue(stream, payload_venue, accounts, venue):
    assert chart.event_venue(stream=stream, payload_venue=payload_venue, accounts=accounts,
                             entities=ENTITIES) == venue


def test_minor_units_are_written_as_decimal_text():
    assert [chart.minor_text(v) for v in (0, 5, 100, -1234, 10**12 + 7)] == [
        "0.00", "0.05", "1.00", "-12.34", "10000000000.07"]
