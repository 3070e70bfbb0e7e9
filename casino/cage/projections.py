"""Projection of cage events into CageDay (one row per venue and gaming day).

The same `apply` runs inline in the append and on `rebuild_projections`.
Events older than the cage's schema (events.SCHEMA_VERSION) name no venue and
are passed by.
"""

from __future__ import annotations

import datetime as dt
from typing import Sequence

from django.db.models import F

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
        for event in events:
            if event.schema_version < SCHEMA_VERSION:
                continue
            p = event.payload
            key = f"{p['venue']}/{p['gaming_day']}"
            CageDay.objects.get_or_create(
                key=key,
                defaults={"venue": p["venue"],
                          "gaming_day": dt.date.fromisoformat(p["gaming_day"]),
                          "currency": p["currency"], "last_position": event.position},
            )
            column = COLUMNS[(event.type, p["method"])]
            CageDay.objects.filter(key=key).update(
                **{column: F(column) + p["amount_minor"]},
                transactions=F("transactions") + 1,
                last_position=event.position,
            )
