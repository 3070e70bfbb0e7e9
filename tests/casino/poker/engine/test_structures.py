"""Each variant's betting rounds, the stakes' units, and the engine's isolation."""

from __future__ import annotations

import ast
from pathlib import Path

import native_eval
import pytest

import casino.poker.engine as engine
from casino.poker.engine import VARIANTS, BettingStructure, Stakes, start_hand, streets_for


@pytest.mark.parametrize(
    "variant, streets",
    [
        ("holdem", "preflop flop turn+ river+"),
        ("omaha5", "preflop flop turn+ river+"),
        ("courchevel", "preflop flop turn+ river+"),
        ("sviten", "preflop flop turn+ river+"),
        ("stud", "third_street fourth_street fifth_street+ sixth_street+ seventh_street+"),
        ("razz", "third_street fourth_street fifth_street+ sixth_street+ seventh_street+"),
        ("soko", "second_card third_card fourth_card+ fifth_card+"),
        ("five_card_draw", "before_draw after_draw+"),
    ],
    ids=["holdem_case", "omaha5_case", "courchevel_case", "sviten_case", "stud_case", "razz_case",
         "soko_case", "five_card_draw_case"],
)
def test_each_variant_bets_in_its_rounds_with_the_big_unit_marked(variant, streets):
    """Board games bet four rounds, the big unit from the turn (000:L1250-1253,
    L1791-1822); stud five, from fifth street (000:L2133-2149, L2406-2417); Sökö four
    (000:L2051-2067).
    """
    assert " ".join(s.name + ("+" if s.big_bet else "") for s in streets_for(variant)) == streets


def test_the_engine_plays_every_player_versus_player_variant_of_native_eval():
    """Every variant native_eval shows down, except the house-banked three-card game."""
    assert set(VARIANTS) == set(native_eval.VARIANTS) - {"three_card"}


def test_in_limit_games_the_big_blind_is_the_small_unit_and_the_big_unit_twice_it():
    """In limit games the big blind is the small betting unit (000:L921-923); 100/200
    (000:L1250-1253).
    """
    stakes = Stakes(small_blind_minor=50, big_blind_minor=100)
    assert (stakes.small_unit_minor, stakes.big_unit_minor, stakes.opening_bet_minor) == (100, 200, 100)


@pytest.mark.parametrize(
    "kwargs",
    [dict(small_blind_minor=200, big_blind_minor=100), dict(big_blind_minor=-1),
     dict(big_blind_minor=100, bring_in_minor=50), dict(big_blind_ante_minor=10)],
    ids=["small_over_big_case", "negative_case", "blinds_and_bring_in_case", "ante_without_blind_case"],
)
def test_malformed_stakes_are_refused(kwargs):
    """Stakes are checked once, when they are built."""
    with pytest.raises(ValueError):
        Stakes(**kwargs)


@pytest.mark.parametrize(
    "seats",
    [{1: 1000}, {1: 1000, 2: 0}, {s: 1000 for s in range(13)}],
    ids=["one_player_case", "empty_stack_case", "thirteen_players_case"],
)
def test_a_hand_needs_two_to_twelve_players_with_chips(seats):
    """Two to twelve players per table (000:L495); only players with chips are dealt in.
    """
    with pytest.raises(ValueError):
        start_hand("holdem", BettingStructure.NO_LIMIT, Stakes(small_blind_minor=1, big_blind_minor=2),
                   seats, 0)


def test_the_engine_imports_nothing_outside_itself_and_the_standard_library():
    """The engine is pure: no Django, no ledger, no other casino app (issue 5)."""
    package = Path(engine.__file__).parent
    for path in sorted(package.glob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert node.level == 1 or node.module in {"__future__", "collections.abc",
                                                          "dataclasses", "enum", "typing"}, (
                    path.name, node.module)
            elif isinstance(node, ast.Import):
                raise AssertionError(f"{path.name} imports {[a.name for a in node.names]}")
