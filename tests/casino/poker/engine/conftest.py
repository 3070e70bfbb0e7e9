"""Helpers for the betting engine's tests: rulebook figures and scripted hands.

The engine is pure, so these tests need no database; the figures are read
straight from the shipped rulebook files, as the rulebook data tests do.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from casino.poker.engine import Action, HandState, apply

RULEBOOK_DATA = Path(__file__).resolve().parents[4] / "casino" / "rules" / "data"


def rulebook_figures(rulebook_id: str) -> dict[str, Any]:
    """The `key -> value` figures of a shipped rulebook, version 1."""
    with open(RULEBOOK_DATA / f"{rulebook_id}.v1.toml", "rb") as f:
        data = tomllib.load(f)
    return {row["key"]: row["value"] for row in data["figures"]}


@pytest.fixture
def figures():
    """Load a rulebook's figures by id: `figures("veikkaus-poker-room")`."""
    return rulebook_figures


def play(state: HandState, *script: tuple) -> HandState:
    """Apply `(seat, kind)` or `(seat, kind, amount_minor)` actions in order."""
    for step in script:
        state = apply(state, Action(*step))
    return state


def call_down(state: HandState, street_index: int) -> HandState:
    """Check or call for whoever is to act until the hand reaches `street_index`."""
    while state.street_index < street_index and not state.is_over:
        p = state.player(state.to_act)
        kind = "call" if p.bet_minor < state.high_bet_minor else "check"
        state = apply(state, Action(p.seat, kind))
    return state
