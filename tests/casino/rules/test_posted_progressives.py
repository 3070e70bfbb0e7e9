"""The THB and UTH progressive figures are venue-posted, not seed facts (issue 14 item 12).

002:L2297 (THB) and 002:L2478 (UTH) say that a fixed percentage of every
progressive stake feeds the pot and that the wins are paid by the odds the
game guide announces; they give no figure. The pay tables and the 15 %
share the games read are therefore the casino's posted guide: each table
cites only the line that says the guide announces it, carries the decision
games.progressive.posted_table (a value chosen, "Not in the seed"), and says
in its note that it is posted configuration. Pure Python, no Django.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[3] / "casino/rules/data/ray-casino.v1.d"
NOT_IN_SEED = "Not in the seed: chosen because"
POSTED = "Venue-posted configuration"
ANNOUNCED_IN_THE_GUIDE = {
    "games.texas_holdem_bonus_progressive.progressive": "002:L2297",
    "games.texas_holdem_bonus_progressive.progressive_funding": "002:L2297",
    "games.ultimate_texas_holdem_progressive.progressive": "002:L2478",
    "games.ultimate_texas_holdem_progressive.progressive_funding": "002:L2478",
}


def _games() -> dict:
    with (DATA / "games.toml").open("rb") as fh:
        return tomllib.load(fh)


GAMES = _games()
TABLES = {table["key"]: table for table in GAMES["tables"]}
DECISIONS = {row["topic"]: row for row in GAMES["decisions"]}


@pytest.mark.parametrize("key", sorted(ANNOUNCED_IN_THE_GUIDE))
def test_a_progressive_table_is_marked_posted_and_cites_the_announcing_line(key):
    """002:L2297, L2478: the table and every row cite the line that says the
    guide announces the figures, and the table is marked posted."""
    table = TABLES[key]
    line = ANNOUNCED_IN_THE_GUIDE[key]
    assert table["cite"] == line
    assert {row["cite"] for row in table["rows"]} == {line}
    assert table["decision"] == "games.progressive.posted_table"
    assert table["note"].startswith(POSTED)


def test_the_posted_table_decision_says_the_figures_are_not_in_the_seed_002_L2297():
    """002:L2297: the figures are the venue's posting; the decision names them."""
    decision = DECISIONS["games.progressive.posted_table"]
    assert decision["reason"].startswith(NOT_IN_SEED)
    assert decision["cite"] == "002:L2297"
    assert "venue-posted configuration, not seed figures" in decision["decision"]
    for figure in ("100 %", "10 %", "300", "50", "40", "15 %"):
        assert figure in decision["decision"], figure


def test_the_posted_figures_are_the_ones_the_decision_records():
    """The rows hold exactly the posted guide the decision states."""
    for game in ("texas_holdem_bonus_progressive", "ultimate_texas_holdem_progressive"):
        rows = {row["id"]: row for row in TABLES[f"games.{game}.progressive"]["rows"]}
        assert {row_id: row.get("pool_basis_points", row.get("pays"))
                for row_id, row in rows.items()} == {
            "royal_flush": 10_000, "straight_flush": 1_000, "four_of_a_kind": 300,
            "full_house": 50, "flush": 40}
        funding, = TABLES[f"games.{game}.progressive_funding"]["rows"]
        assert funding["basis_points"] == 1_500
