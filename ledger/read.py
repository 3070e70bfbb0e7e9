"""The ledger's public read side: what the casino apps may ask of it.

Thin, declared wrappers over `ledger.store`, so callers outside the ledger
depend on these names rather than on the store's internals. The log's
models are re-exported here for read-only querysets (reports, screens):
`Account`, `AccountType`, `Event`, `Stream` and `natural_sign`; nothing
outside the ledger may write them (the database refuses it anyway, L1/L4). Every read sees committed data only (or the caller's own
transaction); none of them takes the writer lock.
"""

from __future__ import annotations

from typing import Iterable

from . import store
from .models import Account, AccountType, Event, Stream, natural_sign
from .types import RecordedEvent

__all__ = [
    "Account", "AccountType", "Event", "Stream", "natural_sign", "STREAM_EVENTS_MAX",
    "stream_version", "stream_events", "events", "balances", "balances_after", "head",
    "recorded_result",
    "recorded_request", "placed_heads",
]

STREAM_EVENTS_MAX = store.CHUNK_EVENTS_MAX


def stream_version(stream: str) -> int:
    """Return the stream's current version: 0 before its first event.

    Pass it as `expected_versions={stream: version}` to append only if
    nothing was appended to the stream since it was read (L6).
    """
    return store.stream_version(stream)


def stream_events(stream: str, after_version: int = 0, *,
                  limit: int = STREAM_EVENTS_MAX) -> list[RecordedEvent]:
    """Return the stream's events after `after_version`, in version order.

    At most `limit` (at most STREAM_EVENTS_MAX) in one call: page on with
    the last event's version as `after_version` until a call returns fewer.
    """
    return store.load_stream_events(stream, after_version, limit)


def balances(codes: Iterable[str], at_position: int | None = None) -> dict[str, int]:
    """Return each account's balance in its natural direction, by code.

    Now, or just after the event at `at_position` (one statement, so a
    concurrent append cannot skew it). An account not open (then) has 0.
    """
    if at_position is None:
        return store.balances_now(codes)
    return store.balances_at(codes, at_position)


def balances_after(event: RecordedEvent, codes: Iterable[str]) -> dict[str, int]:
    """Return each account's balance (natural direction) just after `event`.

    Without a statement when the writer has just recorded the event and it
    posts to every account asked about (`RecordedEvent.balances_after`);
    otherwise (an event loaded from the log: a replay) one read.
    """
    codes = list(codes)
    known = event.balances_after
    if known is not None and all(code in known for code in codes):
        return {code: known[code] for code in codes}
    # An account of another book the request wrote is read at the request's
    # position there (`as_of`); of a book it did not write, as it is now.
    return store.balances_at(codes, event.position, others=event.as_of)


def recorded_result(idempotency_key: str | None) -> list[RecordedEvent] | None:
    """Return the events an earlier append under this key wrote, or None.

    Commands ask first, so that a retry returns the original outcome (an
    acceptance or a recorded refusal) even if the world has changed since.
    """
    return store.recorded_result(idempotency_key)


def recorded_request(idempotency_key: str) -> tuple[str, list[RecordedEvent]] | None:
    """Return the request fingerprint and the events of an earlier append under this key.

    The command runner compares the fingerprint with the request it is asked
    to run: the same request is answered from the events, another is refused.
    """
    return store.recorded_request(idempotency_key)


def events(first: int, last: int) -> list[RecordedEvent]:
    """Return the events at positions `first`..`last` inclusive, in order."""
    return store.load_events(first, last)


def head() -> tuple[int, str]:
    """Return the log's last position and its hash (0 and the genesis hash when empty)."""
    return store.head()


def head_of(account: str) -> tuple[int, str]:
    """Return the last position and hash of the book holding `account` (the main
    book's while it is not open): a position to read its balance "as of". One
    statement."""
    return store.head_of(account)


def placed_heads() -> list[tuple[int, str, int, str, str]]:
    """Every placed book's (id, key, last position, hash, database alias), in id order.

    Where the directory places it (`ledger.placement`): one statement in the
    directory database (its own books' heads, and which books live
    elsewhere), then one per other database holding books. A moved book's
    frozen old copy is not read. A book with no event has its base position
    and the genesis hash. Reads only committed rows (or the caller's own).
    """
    from django.db import DEFAULT_DB_ALIAS, connections

    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute(
            "SELECT h.id, h.key, h.position, h.hash, COALESCE(p.database, %s)"
            " FROM ledger_head h LEFT JOIN ledger_placement p ON p.book = h.id"
            " UNION ALL SELECT p.book, p.key, NULL, NULL, p.database FROM ledger_placement p"
            " WHERE NOT EXISTS (SELECT 1 FROM ledger_head h WHERE h.id = p.book)"
            " ORDER BY 1", [DEFAULT_DB_ALIAS])
        rows = cursor.fetchall()
    found = {row[0]: row for row in rows if row[4] == DEFAULT_DB_ALIAS and row[2] is not None}
    elsewhere: dict[str, list[int]] = {}
    for book, _key, _position, _hash, database in rows:
        if book not in found:
            elsewhere.setdefault(database, []).append(book)
    for database, books in sorted(elsewhere.items()):
        with connections[database].cursor() as cursor:
            cursor.execute("SELECT id, key, position, hash FROM ledger_head WHERE id = ANY(%s)",
                           [books])
            for book, key, position, hash_ in cursor.fetchall():
                found[book] = (book, key, position, hash_, database)
    return [found[book] for book in sorted(found)]
