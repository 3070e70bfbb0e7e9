"""Counts by denomination: `{denomination_minor: pieces}`, validated and totalled.

Cashier windows (casino.cashier) and gaming tables (casino.tablegames) count
cash and chips the same way: `{"5000": 10, "2000": 5}` is EUR 600.00 in
50s and 20s. Pure; each app raises its own coded error from `CountError`.
"""

from __future__ import annotations

from typing import Any, Mapping

DENOMINATIONS_MAX = 40
PIECES_MAX = 1_000_000


class CountError(ValueError):
    """A malformed count; the message says what is wrong."""


def count_total(count: Mapping[str, Any]) -> tuple[dict[str, int], int]:
    """Validate a count and return it normalised (largest first) and its total."""
    if not isinstance(count, Mapping) or len(count) > DENOMINATIONS_MAX:
        raise CountError("a count is a map of denomination (minor units) to pieces")
    normal: dict[str, int] = {}
    for denomination, pieces in count.items():
        text = str(denomination)
        if not text.isdigit() or int(text) <= 0:
            raise CountError(f"denomination {text!r} is not a positive amount in minor units")
        if type(pieces) is not int or not 0 <= pieces <= PIECES_MAX:
            raise CountError(f"pieces of {text} must be a whole number from 0 to {PIECES_MAX}")
        if pieces:
            key = str(int(text))
            normal[key] = normal.get(key, 0) + pieces
    ordered = dict(sorted(normal.items(), key=lambda item: -int(item[0])))
    return ordered, sum(int(d) * n for d, n in ordered.items())


def money(minor: int, currency: str) -> str:
    """`EUR 1,234.50` (for messages)."""
    sign = "-" if minor < 0 else ""
    return f"{currency} {sign}{abs(minor) // 100:,}.{abs(minor) % 100:02d}"
