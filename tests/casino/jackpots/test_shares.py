"""The category 1 and 2 payout tables: closed forms against the printed tables.

The rows are the rulebook's `[[tables]]` (veikkaus-poker-room.v1.d/
jackpots.toml), transcribed from the digest (000:L2939-3182); the closed
forms are casino.jackpots.engine.shares (decision jackpot.payout_formula).
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from pathlib import Path
import tomllib

import pytest
from hypothesis import given, strategies as st

from casino.jackpots.engine import ShareRule, amounts, percent_text, shares

DATA = Path(__file__).resolve().parents[3] / "casino/rules/data"
CAT1 = ShareRule(1, 4000, 2000, others_total_bp=2000)   # 000:L2825-2829, L2946
CAT2 = ShareRule(2, 1000, 500, other_each_bp=100)       # 000:L3227, L3232


def _tables() -> dict[str, list[dict]]:
    with (DATA / "veikkaus-poker-room.v1.d/jackpots.toml").open("rb") as fh:
        return {t["key"]: t["rows"] for t in tomllib.load(fh)["tables"]}


TABLES = _tables()


def _printed(fraction: Fraction, text: str) -> bool:
    """Whether a share prints as the table's text at the text's precision."""
    decimals = len(text.partition(".")[2])
    return percent_text(fraction, decimals) == text


def _feasible():
    for n in range(5, 11):
        for losers in range(1, 5):
            for winners in range(1, 5):
                if losers + winners <= n:
                    yield n, losers, winners


def test_category_1_closed_form_reproduces_every_printed_cell_000_L2939_3174():
    """For n = 5..10 and every feasible L and W: each loser's, winner's and
    other's share prints as the table's cell, and the shares total 80 %."""
    per_loser = {(r["n"], r["losers"]): r["percent"]
                 for r in TABLES["jackpots.bad_beat.cat1.per_loser"]}
    per_winner = {(r["n"], r["winners"]): r["percent"]
                  for r in TABLES["jackpots.bad_beat.cat1.per_winner"]}
    per_other = {r["n"]: r["percent"] for r in TABLES["jackpots.bad_beat.cat1.per_other"]}
    checked = 0
    for n, losers, winners in _feasible():
        exact = shares(CAT1, players=n, losers=losers, winners=winners)
        assert _printed(exact.loser_each, per_loser[n, losers]), (n, losers)
        assert _printed(exact.winner_each, per_winner[n, winners]), (n, winners)
        assert _printed(exact.other_each, per_other[n]), n
        assert exact.total == Fraction(80, 100)
        checked += 1
    # L + W > n rules out 6 pairs at five players, 3 at six and (4, 4) at seven.
    assert checked == 6 * 16 - 10
    assert len(per_loser) == len(per_winner) == 24


def test_nine_players_two_winners_is_11_429_not_the_sources_11_439_000_L2980():
    """The source's 11.439 would make the row total 80.02 %; the formula gives
    11.429 (decision jackpots.cat1.typo_11_439)."""
    exact = shares(CAT1, players=9, losers=1, winners=2)
    assert percent_text(exact.winner_each, 3) == "11.429"
    assert exact.winner_each == (Fraction(20, 100) + Fraction(20, 100) / 7) / 2
    typo_total = (Decimal("40") + 2 * Decimal("11.439") + 6 * (Decimal(20) / 7)).quantize(
        Decimal("0.01"))
    assert typo_total == Decimal("80.02")
    row = next(r for r in TABLES["jackpots.bad_beat.cat1.per_winner"]
               if (r["n"], r["winners"]) == (9, 2))
    assert row == {"n": 9, "winners": 2, "percent": "11.429", "cite": "000:L2980"}


def test_category_2_closed_form_reproduces_the_table_and_totals_13_plus_n_000_L3175_3236():
    """Each loser (10 + L - 1)/L %, each winner (5 + W - 1)/W %, each other 1 %:
    the printed row values, and 18 % at five players up to 23 % at ten."""
    rows = {(r["role"], r["count"]): r["percent"]
            for r in TABLES["jackpots.bad_beat.cat2.per_player"]}
    totals = {r["n"]: r["percent"] for r in TABLES["jackpots.bad_beat.cat2.total"]}
    for n, losers, winners in _feasible():
        exact = shares(CAT2, players=n, losers=losers, winners=winners)
        assert _printed(exact.loser_each, rows["loser", losers])
        assert _printed(exact.winner_each, rows["winner", winners])
        assert _printed(exact.other_each, rows["other", 1])
        assert exact.total == Fraction(13 + n, 100)
        assert percent_text(exact.total, 0) == totals[n]


def test_source_example_ten_players_one_loser_two_winners_pays_23_percent_000_L3181():
    """10 % + 2 x 3 % + 7 x 1 % = 23 % of a EUR 10,000 pool: 1,000 + 600 + 700."""
    roles = {1: "loser", 2: "winner", 3: "winner"} | {s: "other" for s in range(4, 11)}
    paid = amounts(CAT2, balance_minor=1_000_000, roles=roles)
    assert paid[1] == 100_000 and paid[2] == paid[3] == 30_000
    assert all(paid[s] == 10_000 for s in range(4, 11))
    assert sum(paid.values()) == 230_000


def test_shares_are_rounded_down_to_the_cent_and_the_rest_stays_in_the_pool():
    """A pool of EUR 1,000.01 at five players, category 1: S = 6.667 % is
    6,666.7333 cents, paid 6,666 each; paid total 80,000 of the exact 80,000.8."""
    roles = {1: "loser", 2: "winner", 3: "other", 4: "other", 5: "other"}
    paid = amounts(CAT1, balance_minor=100_001, roles=roles)
    assert paid == {1: 40_000, 2: 20_000, 3: 6_666, 4: 6_666, 5: 6_666}
    assert 100_001 * Fraction(80, 100) - sum(paid.values()) == Fraction(4, 5) + 2


@given(balance=st.integers(0, 10**11), n=st.integers(5, 10), losers=st.integers(1, 4),
       winners=st.integers(1, 4), category=st.sampled_from([CAT1, CAT2]))
def test_amounts_sum_to_the_paid_total_and_never_exceed_the_exact_share(
        balance, n, losers, winners, category):
    """Shares are whole cents; their sum is the amount paid, at most the exact
    percentage of the pool and less than a cent per player below it."""
    if losers + winners > n:
        with pytest.raises(ValueError):
            shares(category, players=n, losers=losers, winners=winners)
        return
    roles = ({i: "loser" for i in range(losers)}
             | {losers + i: "winner" for i in range(winners)}
             | {losers + winners + i: "other" for i in range(n - losers - winners)})
    paid = amounts(category, balance_minor=balance, roles=roles)
    exact = shares(category, players=n, losers=losers, winners=winners).total * balance
    assert all(type(v) is int and v >= 0 for v in paid.values())
    assert sum(paid.values()) <= exact < sum(paid.values()) + n
