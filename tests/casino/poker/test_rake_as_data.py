"""Rake and jackpot drops are rulebook data, by kind: poker names no rulebook.

Each rulebook declares the rake options its tables offer
(`poker.rake_rule.<option>` = a kind) and its jackpot drop
(`poker.jackpot_drop.kind`); casino/poker/commands/tables.py builds a
table's rake from the kind and the rulebook's figures. These tests hold the
code to that: no rulebook id in poker's code, every declared kind known, an
undeclared option refused, and a drop only where the rulebook declares one.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

from casino.poker import commands
from casino.poker.commands import tables
from casino.poker.errors import PokerError
from casino.rules.loading import fragment_files, shipped_rulebook_files
from tests.casino.poker.conftest import key

POKER = Path(commands.__file__).resolve().parents[1]
RULEBOOKS = ("veikkaus-poker-room", "veikkaus-online-poker", "ray-gaming-hall",
             "ray-partner-premises", "ray-casino", "ray-online", "olympic-tallinn",
             "pslive-tournaments")


def _strings(path: Path) -> set[str]:
    """The string constants of a module that are not docstrings."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return {node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings}


def test_poker_code_names_no_rulebook():
    """No dispatch on rulebook ids: what a venue offers is its rulebook's data."""
    named = {(path.relative_to(POKER).as_posix(), text)
             for path in POKER.rglob("*.py") if "migrations" not in path.parts
             for text in _strings(path)
             if any(book in text for book in RULEBOOKS) or text in ("ray-", "veikkaus")}
    assert not named


def _declared() -> dict[str, dict[str, object]]:
    found: dict[str, dict[str, object]] = {}
    for path in shipped_rulebook_files():
        book = path.name.split(".v")[0]
        for part in [path, *fragment_files(path)]:
            for row in tomllib.loads(part.read_text()).get("figures", []):
                if row["key"].startswith(("poker.rake_rule.", "poker.jackpot_drop.kind")):
                    found.setdefault(book, {})[row["key"]] = row["value"]
    return found


def test_every_declared_kind_has_a_builder():
    declared = _declared()
    assert set(declared) == {"veikkaus-poker-room", "veikkaus-online-poker", "olympic-tallinn",
                             "ray-casino", "ray-gaming-hall", "ray-partner-premises",
                             "ray-online"}
    for book, rows in declared.items():
        for figure_key, kind in rows.items():
            known = tables.DROP_KINDS if figure_key.endswith(".kind") else tables.RAKE_KINDS
            assert kind in known, (book, figure_key, kind)


def test_a_rake_option_the_rulebook_does_not_declare_is_refused(venues):
    """The Veikkaus room declares no house fee (000:L430-465): the table does not open."""
    with pytest.raises(PokerError) as refused:
        commands.open_table(venue="poker-helsinki", variant="holdem", structure="no_limit",
                            small_blind_minor=100, big_blind_minor=200, seats_max=9,
                            buy_in_minor_min=10_000, buy_in_minor_max=40_000,
                            rake="house_fee", rake_percent_basis_points=500,
                            actor="floor", idempotency_key=key())
    assert refused.value.code == "poker.rake_rule_not_offered"


def test_the_bad_beat_drop_is_the_casinos_not_a_halls(venues):
    """RAY's bad-beat jackpot is collected at the casino's poker tables (002:L1804,
    Part II); a hall (Part I, 002:L283-289) declares house fees and no drop."""
    terms = dict(variant="holdem", structure="no_limit", small_blind_minor=100,
                 big_blind_minor=200, seats_max=9, buy_in_minor_min=10_000,
                 buy_in_minor_max=40_000, rake="house_fee", rake_percent_basis_points=500,
                 jackpot=True, jackpot_drop_minor=100, actor="floor")
    with pytest.raises(PokerError) as refused:
        commands.open_table(venue="hall-helsinki", idempotency_key=key(), **terms)
    assert refused.value.code == "poker.rake_rule_not_offered"
