"""Inline projections: tables kept current by the append transaction.

A projection declares the event types it reads and applies a batch of
recorded events in position order. The writer calls every registered
projection inside the append transaction, so a read after a write is
consistent; `manage.py rebuild_projections` resets each one and feeds it the
whole log through `replay` (which is `apply` unless the projection says
otherwise), so live and rebuilt tables cannot drift apart by construction
(and `tests/ledger/test_rebuild.py` checks they don't). Apps register their
projections in `AppConfig.ready()`, never as signals.

The ledger's own two projections are the exception that proves the rule:
`ledger_account` and `ledger_stream` are what the writer decides with, so
nothing in Python writes them on the live path. The insert triggers of
migration 0004 maintain them in the insert statement itself and refuse
every other change (L4, L6); their `apply` does nothing and their `replay`,
allowed only inside a rebuild, recomputes them from the log. `verify_ledger`
compares the two paths.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Protocol, Sequence

from django.apps import apps
from django.db import connection

from .types import RecordedEvent, book_of

ACCOUNT_OPENED = "ledger.account_opened"

# The log itself: never a projection, never reset, never rebuilt.
LOG_TABLES = frozenset({"ledger_event", "ledger_posting", "ledger_idempotency", "ledger_head"})


class Projection(Protocol):
    name: str
    # None: every event; otherwise only events of these types are passed in.
    event_types: frozenset[str] | None
    # Optional `tables: tuple[str, ...]`: the tables it owns. Without it, the
    # tables of every model of the app the projection's class belongs to.
    # Optional `replay(events)`: what a rebuild calls instead of `apply`.

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
    _run(events, replaying=False)


def replay(events: Sequence[RecordedEvent]) -> None:
    """Run every registered projection over a batch of the log, in a rebuild."""
    _run(events, replaying=True)


def _run(events: Sequence[RecordedEvent], *, replaying: bool) -> None:
    for projection in _registry.values():
        handle = getattr(projection, "replay", projection.apply) if replaying else projection.apply
        if projection.event_types is None:
            selected = events
        else:
            selected = [event for event in events if event.type in projection.event_types]
            if not selected:
                continue
        try:
            handle(selected)
        except Exception as error:
            # Which projection, at which events: a rebuild that fails says so.
            error.add_note(f"projection {projection.name}, events at positions"
                           f" {selected[0].position} to {selected[-1].position}")
            raise


def projection_tables() -> list[str]:
    """Return the tables the registered projections own, in registration order.

    A projection names them in `tables`, or owns every model table of its
    app (the log's tables excepted). `verify_ledger` rebuilds these into a
    scratch schema and compares them with the live ones.
    """
    tables: dict[str, None] = {}
    for projection in _registry.values():
        owned = getattr(projection, "tables", None)
        if owned is None:
            app_config = apps.get_containing_app_config(type(projection).__module__)
            if app_config is None:
                raise ValueError(f"projection {projection.name} names no tables and no app")
            owned = [
                model._meta.db_table
                for model in app_config.get_models(include_auto_created=True)
                if model._meta.managed and not model._meta.proxy
            ]
        for table in owned:
            if table not in LOG_TABLES:
                tables[table] = None
    return list(tables)


class StreamProjection:
    """`ledger_stream`: each stream's version, for optimistic concurrency.

    Live, the event insert trigger moves the versions (migration 0004).
    """

    name = "ledger.streams"
    event_types = None
    tables = ("ledger_stream",)

    def reset(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM ledger_stream")

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        """Nothing to do: the insert of the events already moved the versions."""

    def replay(self, events: Sequence[RecordedEvent]) -> None:
        latest: dict[str, tuple[int, int]] = {}
        for event in events:
            latest[event.stream] = (event.version, event.position)
        names = list(latest)
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO ledger_stream (name, version, last_position, book)"
                " SELECT * FROM unnest(%b::text[], %b::int[], %b::bigint[], %b::smallint[])"
                " ON CONFLICT (name) DO UPDATE"
                " SET version = EXCLUDED.version, last_position = EXCLUDED.last_position",
                [names, [latest[n][0] for n in names], [latest[n][1] for n in names],
                 [book_of(latest[n][1]) for n in names]],
            )


class AccountProjection:
    """`ledger_account`: the chart of accounts and each account's balance.

    Live, the event insert trigger opens accounts and the posting insert
    trigger moves balances (migration 0004); the CHECK constraints hold L4.
    """

    name = "ledger.accounts"
    event_types = None  # any event may carry postings
    tables = ("ledger_account",)

    def reset(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM ledger_account")

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        """Nothing to do: the insert of the postings already moved the balances."""

    def replay(self, events: Sequence[RecordedEvent]) -> None:
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
                    " opened_position, last_position, book)"
                    " SELECT c, t, cur, n, nn, mx, 0, pos, pos, ((pos - 1) >> 40) + 1"
                    " FROM unnest(%b::text[],"
                    " %b::text[], %b::text[], %b::text[], %b::bool[], %b::bigint[],"
                    " %b::bigint[]) AS u(c, t, cur, n, nn, mx, pos)",
                    [
                        [e.payload["code"] for e in opened],
                        [e.payload["type"] for e in opened],
                        [e.payload["currency"] for e in opened],
                        [e.payload.get("name") or "" for e in opened],
                        [e.payload["must_not_go_negative"] for e in opened],
                        [e.payload["balance_max_minor"] for e in opened],
                        [e.position for e in opened],
                    ],
                )
            if deltas:
                codes = list(deltas)
                # Postings are debit-positive; balances are kept in each
                # account's natural direction (models.natural_sign), as the
                # posting insert trigger keeps them.
                cursor.execute(
                    "UPDATE ledger_account AS a SET"
                    " balance_minor = a.balance_minor + CASE WHEN a.type IN ('asset', 'expense')"
                    " THEN d.delta ELSE -d.delta END,"
                    " last_position = d.last_position"
                    " FROM unnest(%b::text[], %b::bigint[], %b::bigint[])"
                    " AS d(code, delta, last_position) WHERE a.code = d.code",
                    [codes, [deltas[c] for c in codes], [last_positions[c] for c in codes]],
                )
