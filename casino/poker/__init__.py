"""Poker cash games (tables, hands, pots, rake, verified showdowns)."""
