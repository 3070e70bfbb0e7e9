"""Inline projections: tables kept current by the append transaction.

A projection declares the event types it reads and applies a batch of
recorded events in position order. The writer calls every registered
projection inside the append transaction, so a read after a write is
consistent; `manage.py rebuild_projections` resets each one and feeds it the
whole log through the same `apply`, so live and rebuilt tables cannot drift
apart by construction (and `tests/ledger/test_rebuild.py` checks they don't).
Apps register their projections in `AppConfig.ready()`, never as signals.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Protocol, Sequence

from django.db import connection

from .types import RecordedEvent

ACCOUNT_OPENED = "ledger.account_opened"


class Projection(Protocol):
    name: str
    # None: every event; otherwise only events of these types are passed in.
    event_types: frozenset[str] | None

    def reset(self) -> None:
        """Delete every row this projection owns."""

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        """Bring the tables up to date with these events (position order)."""


_registry: dict[str, Projection] = {}


def register(projection: Projection) -> None:
    if projection.name in _registry:
        raise ValueError(f"projection {projection.name} is already registered")
    _registry[projection.name] = projection


def registered() -> list[Projection]:
    return list(_registry.values())


def apply(events: Sequence[RecordedEvent]) -> None:
    """Run every registered projection over a batch of new events."""
    for projection in _registry.values():
        if projection.event_types is None:
            projection.apply(events)
        else:
            selected = [event for event in events if event.type in projection.event_types]
            if selected:
                projection.apply(selected)


class StreamProjection:
    """`ledger_stream`: each stream's version, for optimistic concurrency."""

    name = "ledger.streams"
    event_types = None

    def reset(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM ledger_stream")

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        latest: dict[str, tuple[int, int]] = {}
        for event in events:
            latest[event.stream] = (event.version, event.position)
        names = list(latest)
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO ledger_stream (name, version, last_position)"
                " SELECT * FROM unnest(%b::text[], %b::int[], %b::bigint[])"
                " ON CONFLICT (name) DO UPDATE"
                " SET version = EXCLUDED.version, last_position = EXCLUDED.last_position",
                [names, [latest[n][0] for n in names], [latest[n][1] for n in names]],
            )


class AccountProjection:
    """`ledger_account`: the chart of accounts and each account's balance."""

    name = "ledger.accounts"
    event_types = None  # any event may carry postings

    def reset(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM ledger_account")

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        opened = [event for event in events if event.type == ACCOUNT_OPENED]
        deltas: dict[str, int] = defaultdict(int)
        last_positions: dict[str, int] = {}
        for event in events:
            for posting in event.postings:
                deltas[posting.account] += posting.amount_minor
                last_positions[posting.account] = event.position
        with connection.cursor() as cursor:
            if opened:
                cursor.execute(
                    "INSERT INTO ledger_account (code, type, currency, name,"
                    " must_not_go_negative, balance_max_minor, balance_minor,"
                    " opened_position, last_position)"
                    " SELECT c, t, cur, n, nn, mx, 0, pos, pos FROM unnest(%b::text[],"
                    " %b::text[], %b::text[], %b::text[], %b::bool[], %b::bigint[],"
                    " %b::bigint[]) AS u(c, t, cur, n, nn, mx, pos)",
                    [
                        [e.payload["code"] for e in opened],
                        [e.payload["type"] for e in opened],
                        [e.payload["currency"] for e in opened],
                        [e.payload.get("name", "") for e in opened],
                        [e.payload["must_not_go_negative"] for e in opened],
                        [e.payload["balance_max_minor"] for e in opened],
                        [e.position for e in opened],
                    ],
                )
            if deltas:
                codes = list(deltas)
                # Postings are debit-positive; balances are kept in each
                # account's natural direction (models.natural_sign).
                cursor.execute(
                    "UPDATE ledger_account AS a SET"
                    " balance_minor = a.balance_minor + CASE WHEN a.type IN ('asset', 'expense')"
                    " THEN d.delta ELSE -d.delta END,"
                    " last_position = d.last_position"
                    " FROM unnest(%b::text[], %b::bigint[], %b::bigint[])"
                    " AS d(code, delta, last_position) WHERE a.code = d.code",
                    [codes, [deltas[c] for c in codes], [last_positions[c] for c in codes]],
                )
