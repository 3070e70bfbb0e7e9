"""Reading postings for the reports: chunked, by gaming day, up to a head.

Every report is computed at a head position: the ledger's last position
when it started (or one the caller names). Positions up to the head are
committed and, by the ledger's L1 and L2, can never change or gain a
neighbour, so a report can read them in many short queries (keyset pages on
(position, posting index)) and still see one consistent snapshot without
holding a transaction open: a concurrent append lands after the head and is
filtered out. Each page is at most `PAGE_ROWS_MAX` rows, which bounds memory
however long the range is.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Iterator

from django.db import connection

from ledger.read import Event
from ledger.read import head

from .errors import ReportsError, ReportsErrorCode

PAGE_ROWS_MAX = 5_000


@dataclass(frozen=True, slots=True)
class Head:
    """The ledger position a report is computed at, and its hash."""

    position: int
    hash: str


def head_at(position: int | None = None) -> Head:
    """Return the current head, or the named position (which must exist)."""
    current_position, current_hash = head()
    if position is None or position == current_position:
        return Head(current_position, current_hash)
    if position < 0 or position > current_position:
        raise ReportsError(ReportsErrorCode.HEAD_AHEAD,
                           f"the ledger's head is at {current_position}; position {position}"
                           " is not in the log", head_position=current_position,
                           position=position)
    if position == 0:
        from ledger import GENESIS_HASH

        return Head(0, GENESIS_HASH)
    return Head(position, Event.objects.values_list("hash", flat=True).get(position=position))


def iter_pages(select: str, where: str, params: list, *, head: Head,
               page_rows: int = PAGE_ROWS_MAX,
               positions: tuple[int, int] | None = None) -> Iterator[list[tuple]]:
    """Yield pages of `select` rows, in (position, posting index) order.

    `select` must start with `e.position, p.index`; `where` filters events
    `e` and postings `p` (the head bound is added here). `positions`, the
    first and last position the rows can be at, lets the first page start
    there instead of scanning the postings before the range.
    """
    assert 0 < page_rows <= PAGE_ROWS_MAX, "page size out of range"
    first, last = positions or (1, head.position)
    last = min(last, head.position)
    if first > last:
        return
    sql = (f"SELECT {select} FROM ledger_posting p JOIN ledger_event e"
           " ON e.position = p.event_id"
           f" WHERE ({where}) AND p.event_id <= %s AND (p.event_id, p.index) > (%s, %s)"
           " ORDER BY p.event_id, p.index LIMIT %s")
    after = (first - 1, 2**15)
    while True:
        with connection.cursor() as cursor:
            cursor.execute(sql, [*params, last, after[0], after[1], page_rows])
            rows = cursor.fetchall()
        if not rows:
            return
        yield rows
        if len(rows) < page_rows:
            return
        after = (rows[-1][0], rows[-1][1])


def day_range_where(first: dt.date, last: dt.date) -> tuple[str, list]:
    return "e.gaming_day BETWEEN %s AND %s", [first, last]


def day_range_positions(first: dt.date, last: dt.date, head: Head) -> tuple[int, int] | None:
    """The first and last position of an event of these gaming days, or None.

    One probe of the (gaming_day, position) index, so that reading a day at
    the end of a long log does not walk the postings before it.
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT min(position), max(position) FROM ledger_event"
                       " WHERE gaming_day BETWEEN %s AND %s AND position <= %s",
                       [first, last, head.position])
        low, high = cursor.fetchone()
    return None if low is None else (low, high)


def entity_venues(head: Head) -> dict[str, dict[str, str]]:
    """Map poker tables, house-game tables, tournaments and machines to their venues.

    Read from the log (the events that opened them), not from the apps'
    projections, so a report at an old head sees what the log said then.
    """
    kinds = {"poker.table_opened": ("poker_table", "table_id"),
             "games.table_opened": ("game_table", "table_id"),
             "tournaments.tournament_announced": ("tournament", "tournament_id"),
             "machines.machine_registered": ("machine", "machine_id")}
    entities: dict[str, dict[str, str]] = {kind: {} for kind, _ in kinds.values()}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT type, payload->>'table_id', payload->>'tournament_id',"
            " payload->>'machine_id', payload->>'venue'"
            " FROM ledger_event WHERE type = ANY(%s) AND position <= %s",
            [list(kinds), head.position])
        for event_type, table_id, tournament_id, machine_id, venue in cursor.fetchall():
            kind, field = kinds[event_type]
            entity = {"table_id": table_id, "tournament_id": tournament_id,
                      "machine_id": machine_id}[field]
            if entity and venue:
                entities[kind][entity] = venue
    return entities
