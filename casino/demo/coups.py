"""Outcomes for the demo's house games, drawn from a seeded RNG (pure).

The dealing follows the rules as the digest gives them, typed here and not
taken from the games engine, so the engine's own check of the outcome
(`record_outcome`) is a real check: a coup dealt against the rules would be
refused and recorded.
"""

from __future__ import annotations

import random

SHOE_DECKS = 6


def shoe(rng: random.Random, decks: int = SHOE_DECKS) -> list[str]:
    cards = [rank + suit for rank in "23456789TJQKA" for suit in "shdc"] * decks
    rng.shuffle(cards)
    return cards


def baccarat_points(cards: list[str]) -> int:
    """Tens and faces count 0, aces 1; the total is taken modulo 10."""
    return sum(0 if c[0] in "TJQK" else 1 if c[0] == "A" else int(c[0]) for c in cards) % 10


def banco_draws(banco: int, third: int | None) -> bool:
    """Banco's drawing rule, by its total and punto's third card (002:L2787-2797)."""
    if third is None:  # punto stood: banco draws on 0-5 (002:L2797)
        return banco <= 5
    return {0: True, 1: True, 2: True, 3: third != 8, 4: 2 <= third <= 7,
            5: 4 <= third <= 7, 6: third in (6, 7), 7: False}[banco]


def punto_banco_coup(cards: list[str]) -> dict[str, list[str]]:
    """Deal one coup from the shoe (002:L2775-2797): two cards each; a natural
    8 or 9 stands; punto draws on 0-5; banco by its table."""
    punto = [cards.pop(), cards.pop()]
    banco = [cards.pop(), cards.pop()]
    p, b = baccarat_points(punto), baccarat_points(banco)
    if p >= 8 or b >= 8:
        return {"punto": punto, "banco": banco}
    third = None
    if p <= 5:
        punto.append(cards.pop())
        third = baccarat_points(punto[2:])
    if banco_draws(b, third):
        banco.append(cards.pop())
    return {"punto": punto, "banco": banco}
