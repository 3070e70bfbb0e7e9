"""Read side of the cage: balances as of a position, and a venue's float.

A balance "as of position p" is the account's balance now less what postings
after p added, computed in one statement (one snapshot), so a concurrent
append between two reads cannot skew it. It lets a replayed request return
the balances its event left, not today's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from django.db.models import Q, Sum

from casino.rules import queries as rules
from ledger.models import Account, natural_sign
from ledger.store import head

from .events import cage_cash, chips_outstanding


def balances_at(codes: Iterable[str], position: int) -> dict[str, int]:
    """Return each account's balance (natural direction) just after `position`.

    An account not open by then, or not at all, has balance 0.
    """
    codes = list(codes)
    rows = (
        Account.objects.filter(code__in=codes)
        .annotate(later_minor=Sum("postings__amount_minor",
                                  filter=Q(postings__event_id__gt=position)))
        .values_list("code", "type", "balance_minor", "later_minor")
    )
    balances = dict.fromkeys(codes, 0)
    for code, account_type, balance_minor, later_minor in rows:
        balances[code] = balance_minor - natural_sign(account_type) * (later_minor or 0)
    return balances


@dataclass(frozen=True, slots=True)
class VenueFloat:
    """A cage's cash and the chips it has outstanding, as of a position."""

    venue: str
    currency: str
    cage_cash_minor: int
    chips_outstanding_minor: int
    as_of_position: int


def venue_float(venue_code: str) -> VenueFloat:
    """Return the venue's cage cash and chip float as of the ledger's head.

    Raises RulesError (404) for an unknown venue.
    """
    venue = rules.venue(venue_code)
    # Every event up to the head is committed; balances are taken as of it.
    position, _ = head()
    balances = balances_at([cage_cash(venue.code), chips_outstanding(venue.code)], position)
    return VenueFloat(
        venue=venue.code,
        currency=venue.currency,
        cage_cash_minor=balances[cage_cash(venue.code)],
        chips_outstanding_minor=balances[chips_outstanding(venue.code)],
        as_of_position=position,
    )
