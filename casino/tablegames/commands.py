"""Write side of table-games accounting: open, fill, credit, close, soft count.

Every write goes through the command runner (casino.runner.run): load the
table's stream version and session, check, decide the events and postings
(casino/tablegames/events.py), append expecting that version.

Decision (two signatures): a fill or credit slip is signed by the cage and
the table (two different people, the recorder one of them); a table's
opening and closing inventory by the dealer and the pit supervisor; a soft
count by two counters, each counting the drop box on their own. Reason: the
issue's floor practice (cage and table sign every slip); the seeds say
nothing of the cage's procedure.

Decision (soft count): the drop is the second, verifying count; the
variance (second - first) is recorded with both counts, and a variance
needs no reason here: it is shown on the session for the officer.

Decision (count-based win beside per-bet results): a table accounted here
has its win from drop and counts (house/<venue>/table_win), as a land
casino's table games do; the games app's per-bet settlement is the other
way to account a table, and a table is accounted one way, not both.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from casino import accounts, counting
from casino.rules import queries as rules
from casino.rules.models import Venue
from casino.runner import BaseCommand, Call, Decision, run
from ledger import NewEvent, Posting, RecordedEvent
from ledger.read import balances, stream_version

from .errors import TableGamesError, TableGamesErrorCode
from .events import (
    CREDIT_MADE,
    FILL_MADE,
    SCHEMA_VERSION,
    SOFT_COUNT_MADE,
    SOURCE,
    TABLE_CLOSED,
    TABLE_OPENED,
    table_stream,
)
from .models import SessionState, TableSession

OPEN, FILL, CREDIT, CLOSE, SOFT_COUNT = "open", "fill", "credit", "close", "soft_count"


def _count(count: Mapping[str, Any]) -> tuple[dict[str, int], int]:
    try:
        return counting.count_total(count)
    except counting.CountError as error:
        raise TableGamesError(TableGamesErrorCode.INVALID_REQUEST, str(error)) from None


def _signers(names: Sequence[str] | None, actor: str, what: str) -> tuple[str, str]:
    signed = tuple((name or "").strip() for name in names or ())
    if len(signed) != 2 or not all(signed) or signed[0] == signed[1]:
        raise TableGamesError(TableGamesErrorCode.SIGNATURES_REQUIRED,
                              f"{what} is signed by two different people",
                              signed_by=list(signed))
    if actor not in signed:
        raise TableGamesError(TableGamesErrorCode.SIGNATURES_REQUIRED,
                              f"{actor} records {what} and must be one of its signers",
                              signed_by=list(signed))
    return signed[0], signed[1]


@dataclass(frozen=True, slots=True)
class TableContext:
    operation: str
    venue: Venue
    table: str
    session: TableSession | None
    arguments: Mapping[str, Any]
    signed_by: tuple[str, str]
    count: dict[str, int]
    total_minor: int
    second_count: dict[str, int]
    second_minor: int
    tray_minor: int
    version: int
    at: dt.datetime


class TableCommand(BaseCommand[TableContext, dict]):
    """One command for the five operations: they share load and accounts."""

    source = SOURCE

    def __init__(self, operation: str) -> None:
        self.operation = operation
        self.name = f"tablegames.{operation}"

    def load(self, arguments, call: Call) -> TableContext:
        venue = Venue.objects.filter(code=arguments["venue"]).first()
        if venue is None:
            raise TableGamesError(TableGamesErrorCode.UNKNOWN_VENUE,
                                  f"no venue {arguments['venue']!r}", venue=arguments["venue"])
        table = str(arguments["table"]).strip()
        if not table or "/" in table or len(table) > 40:
            raise TableGamesError(TableGamesErrorCode.INVALID_REQUEST,
                                  "a table id is 1-40 characters without '/'")
        operation = self.operation
        sessions = TableSession.objects.filter(venue=venue.code, table=table)
        if operation == SOFT_COUNT:
            session = sessions.filter(state=SessionState.CLOSED).order_by(
                "-last_position").first()
            if session is None:
                raise TableGamesError(TableGamesErrorCode.NOTHING_TO_COUNT,
                                      f"table {table} has no closed session to count")
        else:
            session = sessions.filter(state=SessionState.OPEN).first()
            if operation == OPEN and session is not None:
                raise TableGamesError(TableGamesErrorCode.TABLE_OPEN,
                                      f"table {table} is open already", session_id=session.id)
            if operation != OPEN and session is None:
                raise TableGamesError(TableGamesErrorCode.TABLE_NOT_OPEN,
                                      f"table {table} is not open")
        what = {OPEN: "the opening inventory", FILL: "a fill slip", CREDIT: "a credit slip",
                CLOSE: "the closing inventory", SOFT_COUNT: "a soft count"}[operation]
        signed = _signers(arguments.get("signed_by"), call.actor, what)
        count, total = _count(arguments["count"])
        second, second_total = ({}, 0)
        if operation == SOFT_COUNT:
            second, second_total = _count(arguments["second_count"])
        if operation in (FILL, CREDIT) and total <= 0:
            raise TableGamesError(TableGamesErrorCode.INVALID_REQUEST,
                                  "a slip moves a positive amount of chips")
        tray = accounts.table_tray(venue.code, table)
        return TableContext(
            operation=operation, venue=venue, table=table, session=session,
            arguments=arguments, signed_by=signed, count=count, total_minor=total,
            second_count=second, second_minor=second_total,
            tray_minor=balances([tray]).get(tray, 0),
            version=stream_version(table_stream(venue.code, table)), at=call.moment())

    def decide(self, context: TableContext) -> Decision:
        venue, currency = context.venue, context.venue.currency
        tray = accounts.table_tray(venue.code, context.table)
        bank = accounts.cage_chip_bank(venue.code)
        win = accounts.table_win(venue.code)
        operation = context.operation
        common = {"venue": venue.code, "table": context.table, "currency": currency}
        postings: list[Posting] = []
        if operation in (OPEN, CLOSE):
            change = context.total_minor - context.tray_minor
            payload = {**common, "session_id": (context.arguments["session_id"]
                                                if operation == OPEN else context.session.id),
                       "inventory": context.count, "inventory_minor": context.total_minor,
                       "tray_before_minor": context.tray_minor,
                       "signed_by": list(context.signed_by)}
            if change:
                other = bank if operation == OPEN else win
                postings = [Posting(tray, change, currency), Posting(other, -change, currency)]
            kind = TABLE_OPENED if operation == OPEN else TABLE_CLOSED
        elif operation in (FILL, CREDIT):
            amount = context.total_minor
            payload = {**common, "session_id": context.session.id,
                       "slip_id": context.arguments["slip_id"], "chips": context.count,
                       "amount_minor": amount, "signed_by": list(context.signed_by)}
            sign = 1 if operation == FILL else -1
            postings = [Posting(tray, sign * amount, currency),
                        Posting(bank, -sign * amount, currency)]
            kind = FILL_MADE if operation == FILL else CREDIT_MADE
        else:
            drop = context.second_minor
            payload = {**common, "session_id": context.session.id,
                       "counted_by": list(context.signed_by), "first_count": context.count,
                       "second_count": context.second_count,
                       "first_minor": context.total_minor, "second_minor": drop,
                       "variance_minor": drop - context.total_minor, "drop_minor": drop}
            if drop:
                postings = [Posting(accounts.cage_cash(venue.code), drop, currency),
                            Posting(win, -drop, currency)]
            kind = SOFT_COUNT_MADE
        stream = table_stream(venue.code, context.table)
        event = NewEvent(stream=stream, type=kind, payload=payload, postings=tuple(postings),
                         schema_version=SCHEMA_VERSION, occurred_at=context.at,
                         gaming_day=(context.session.gaming_day if context.session is not None
                                     else rules.venue_day(venue, context.at)))
        terms = [{"code": tray, "type": "asset", "currency": currency},
                 {"code": bank, "type": "asset", "currency": currency},
                 {"code": win, "type": "revenue", "currency": currency}]
        if operation == SOFT_COUNT:
            terms.append({"code": accounts.cage_cash(venue.code), "type": "asset",
                          "currency": currency})
        return Decision([event], {stream: context.version}, accounts=terms)

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> dict:
        session = TableSession.objects.get(id=events[0].payload["session_id"])
        return {"event": events[0].type, "position": events[0].position,
                "session": session, "replayed": replayed}


COMMANDS = {name: TableCommand(name) for name in (OPEN, FILL, CREDIT, CLOSE, SOFT_COUNT)}


def _id(prefix: str, key: str | None) -> str:
    if key:
        return f"{prefix}-{uuid.uuid5(uuid.NAMESPACE_URL, key).hex[:12]}"
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def _run(operation: str, arguments: dict, *, actor: str, idempotency_key: str | None,
         at: dt.datetime | None) -> dict:
    return run(COMMANDS[operation], arguments,
               Call(actor=actor, key=idempotency_key, at=at, source=SOURCE))


def open_table(*, venue: str, table: str, inventory: Mapping[str, int],
               signed_by: Sequence[str], actor: str, idempotency_key: str | None = None,
               at: dt.datetime | None = None) -> dict:
    """Open a table's session with its chip inventory counted by denomination.

    The difference from the tray's balance comes from (or goes to) the cage's
    chip bank. Raises TableGamesError table_open (409), signatures_required,
    invalid_request (400).
    """
    return _run(OPEN, {"venue": venue, "table": table, "count": dict(inventory),
                       "signed_by": list(signed_by),
                       "session_id": _id("session", idempotency_key)},
                actor=actor, idempotency_key=idempotency_key, at=at)


def fill(*, venue: str, table: str, chips: Mapping[str, int], signed_by: Sequence[str],
         actor: str, idempotency_key: str | None = None, at: dt.datetime | None = None
         ) -> dict:
    """Fill an open table with chips from the cage, on a slip signed [cage, table]."""
    return _run(FILL, {"venue": venue, "table": table, "count": dict(chips),
                       "signed_by": list(signed_by), "slip_id": _id("fill", idempotency_key)},
                actor=actor, idempotency_key=idempotency_key, at=at)


def credit(*, venue: str, table: str, chips: Mapping[str, int], signed_by: Sequence[str],
           actor: str, idempotency_key: str | None = None, at: dt.datetime | None = None
           ) -> dict:
    """Send chips from an open table back to the cage, on a slip signed [cage, table]."""
    return _run(CREDIT, {"venue": venue, "table": table, "count": dict(chips),
                         "signed_by": list(signed_by),
                         "slip_id": _id("credit", idempotency_key)},
                actor=actor, idempotency_key=idempotency_key, at=at)


def close_table(*, venue: str, table: str, inventory: Mapping[str, int],
                signed_by: Sequence[str], actor: str, idempotency_key: str | None = None,
                at: dt.datetime | None = None) -> dict:
    """Close a table's session with its chip inventory counted by denomination."""
    return _run(CLOSE, {"venue": venue, "table": table, "count": dict(inventory),
                        "signed_by": list(signed_by)},
                actor=actor, idempotency_key=idempotency_key, at=at)


def soft_count(*, venue: str, table: str, first_count: Mapping[str, int],
               second_count: Mapping[str, int], counted_by: Sequence[str], actor: str,
               idempotency_key: str | None = None, at: dt.datetime | None = None) -> dict:
    """Count the drop box of the table's last closed session, by two counters.

    The drop is the second count; the variance (second - first) is recorded.
    Raises TableGamesError nothing_to_count (409), signatures_required (400).
    """
    return _run(SOFT_COUNT, {"venue": venue, "table": table, "count": dict(first_count),
                             "second_count": dict(second_count),
                             "signed_by": list(counted_by)},
                actor=actor, idempotency_key=idempotency_key, at=at)
