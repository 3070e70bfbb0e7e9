"""Read side of the cage: a venue's float (balances via ledger.balances_at)."""

from __future__ import annotations

from dataclasses import dataclass

from casino.rules import queries as rules
from ledger.read import balances as balances_at, head_of

from casino.accounts import cage_cash, chips_outstanding


@dataclass(frozen=True, slots=True)
class VenueFloat:
    """A cage's cash and the chips it has outstanding, as of a position."""

    venue: str
    currency: str
    cage_cash_minor: int
    chips_outstanding_minor: int
    as_of_position: int


def venue_float(venue_code: str) -> VenueFloat:
    """Return the venue's cage cash and chip float as of the head of their book.

    Raises RulesError (404) for an unknown venue.
    """
    venue = rules.venue(venue_code)
    # Every event up to the head of the cage's book (the venue's) is
    # committed; balances are taken as of it.
    position, _ = head_of(cage_cash(venue.code))
    balances = balances_at([cage_cash(venue.code), chips_outstanding(venue.code)], position)
    return VenueFloat(
        venue=venue.code,
        currency=venue.currency,
        cage_cash_minor=balances[cage_cash(venue.code)],
        chips_outstanding_minor=balances[chips_outstanding(venue.code)],
        as_of_position=position,
    )
