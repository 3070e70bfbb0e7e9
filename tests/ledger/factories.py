"""Factories for ledger tests: transfers in a few words."""

from __future__ import annotations

import datetime as dt
import itertools

from ledger import NewEvent, Posting, append

# Money carries its gaming day (the ledger refuses it without one); the
# ledger's own tests have no venue, so one fixed business day serves.
GAMING_DAY = dt.date(2026, 6, 16)

_counter = itertools.count(1)


def transfer_event(source: str, destination: str, amount_minor: int, currency: str = "EUR",
                   stream: str | None = None, gaming_day: dt.date = GAMING_DAY) -> NewEvent:
    """Return an event moving money: debit `destination`, credit `source`.

    A credit raises a credit-normal (liability) account, so paying a player
    from the cage is `transfer_event("player/x", "cage/cash", n)`: the cage
    gains cash, the casino owes the player n more.
    """
    return NewEvent(
        stream=stream or f"transfer/{next(_counter)}",
        type="test.transferred",
        payload={"from": source, "to": destination, "amount_minor": amount_minor},
        postings=(
            Posting(destination, amount_minor, currency),
            Posting(source, -amount_minor, currency),
        ),
        gaming_day=gaming_day,
    )


def transfer(source: str, destination: str, amount_minor: int, currency: str = "EUR",
             stream: str | None = None, **append_kwargs):
    return append([transfer_event(source, destination, amount_minor, currency, stream)],
                  **append_kwargs)
