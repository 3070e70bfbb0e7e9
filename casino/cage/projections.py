"""Projection of cage events into CageDay (one row per venue and gaming day).

The same `apply` runs inline in the append and on `rebuild_projections`.
Events older than the cage's schema (events.SCHEMA_VERSION) name no venue and
are passed by.
"""

from __future__ import annotations

from typing import Sequence

from django.db import connection

from ledger import RecordedEvent

from .events import (
    CAGE_EVENT_TYPES,
    CASH_DEPOSITED,
    CASH_WITHDRAWN,
    CHIPS_PURCHASED,
    CHIPS_REDEEMED,
    SCHEMA_VERSION,
)
from .models import CageDay

# (event type, method) -> the CageDay column the amount adds to.
COLUMNS = {
    (CASH_DEPOSITED, "cash"): "deposits_cash_minor",
    (CASH_DEPOSITED, "bank"): "deposits_bank_minor",
    (CASH_WITHDRAWN, "cash"): "withdrawals_cash_minor",
    (CASH_WITHDRAWN, "bank"): "withdrawals_bank_minor",
    (CHIPS_PURCHASED, "cash"): "chips_sold_cash_minor",
    (CHIPS_PURCHASED, "account"): "chips_sold_account_minor",
    (CHIPS_REDEEMED, "cash"): "chips_redeemed_cash_minor",
    (CHIPS_REDEEMED, "account"): "chips_redeemed_account_minor",
}


class CageDayProjection:
    name = "cage.days"
    event_types = CAGE_EVENT_TYPES

    def reset(self) -> None:
        CageDay.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        """Add each cage event to its venue day: one upsert per event."""
        with connection.cursor() as cursor:
            for event in events:
                if event.schema_version < SCHEMA_VERSION:
                    continue
                p = event.payload
                column = COLUMNS[(event.type, p["method"])]
                amounts = [p["amount_minor"] if name == column else 0 for name in AMOUNT_COLUMNS]
                cursor.execute(UPSERT.format(column=column),
                               [f"{p['venue']}/{p['gaming_day']}", p["venue"], p["gaming_day"],
                                p["currency"], *amounts, event.position])


AMOUNT_COLUMNS = tuple(dict.fromkeys(COLUMNS.values()))
# One statement per event (a get_or_create and an update cost four with
# their savepoints). `column` comes from COLUMNS, never from a payload.
UPSERT = (
    "INSERT INTO cage_cageday (key, venue, gaming_day, currency, "
    + ", ".join(AMOUNT_COLUMNS) + ", transactions, last_position)"
    " VALUES (%s, %s, %s::date, %s, " + ", ".join(["%s"] * len(AMOUNT_COLUMNS))
    + ", 1, %s)"
    " ON CONFLICT (key) DO UPDATE SET {column} = cage_cageday.{column} + EXCLUDED.{column},"
    " transactions = cage_cageday.transactions + 1,"
    " last_position = EXCLUDED.last_position"
)
