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

Decision (tablegames.chips_unissued): chips received into the cage's chip
bank (a delivery, or the stock on the books' first day) post nothing; the
cage's own chips are tokens until they leave it. The chip bank account
carries the net face value issued to the tables, and the projection
ChipStock the pieces per denomination at the cage, each tray and with the
players (events.py).

Decision (a chip bank count): the cage counts its chips by denomination,
signed by two; the expected pieces are ChipStock's for the chip bank. Any
denomination off needs a reason (five characters or more), and the
difference in value posts chip bank +D against the cage's over/short, as a
cashier's count does; the stock becomes the count. A fill, credit or table
opening recorded while the chips are being counted is not fenced off (they
are on the tables' streams): the count is taken with the tables' slips
settled, as floor practice has it.

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
    CHIP_BANK,
    CHIP_BANK_COUNTED,
    CHIPS_RECEIVED,
    CREDIT_MADE,
    FILL_MADE,
    SCHEMA_VERSION,
    SOFT_COUNT_MADE,
    SOURCE,
    TABLE_CLOSED,
    TABLE_OPENED,
    chip_bank_stream,
    table_stream,
)
from .models import SessionState, TableSession
from .projections import stock_of

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


# --- the cage's chips by denomination -----------------------------------------------

REASON_CHARS_MIN = 5


@dataclass(frozen=True, slots=True)
class ChipBankContext:
    venue: Venue
    count: dict[str, int]
    total_minor: int
    expected: dict[str, int]
    expected_minor: int
    signed_by: tuple[str, str]
    arguments: Mapping[str, Any]
    version: int
    at: dt.datetime


def _venue(code: str) -> Venue:
    venue = Venue.objects.filter(code=code).first()
    if venue is None:
        raise TableGamesError(TableGamesErrorCode.UNKNOWN_VENUE, f"no venue {code!r}",
                              venue=code)
    return venue


class ChipBankCommand(BaseCommand[ChipBankContext, dict]):
    """Chips received into the cage's chip bank, or the chip bank counted."""

    source = SOURCE

    def __init__(self, counting_: bool) -> None:
        self.counting = counting_
        self.name = "tablegames.count_chip_bank" if counting_ else "tablegames.receive_chips"

    def load(self, arguments, call: Call) -> ChipBankContext:
        venue = _venue(arguments["venue"])
        what = "a chip count" if self.counting else "a chip receipt"
        signed = _signers(arguments.get("signed_by"), call.actor, what)
        count, total = _count(arguments["count"])
        if not self.counting and total <= 0:
            raise TableGamesError(TableGamesErrorCode.INVALID_REQUEST,
                                  "a receipt brings a positive amount of chips")
        expected = {str(d): n for d, n in sorted(stock_of(venue.code, CHIP_BANK).items(),
                                                 reverse=True)}
        expected_minor = sum(int(d) * n for d, n in expected.items())
        if self.counting:
            off = {d: count.get(d, 0) - expected.get(d, 0)
                   for d in set(count) | set(expected) if count.get(d, 0) != expected.get(d, 0)}
            reason = (arguments.get("reason") or "").strip()
            if off and len(reason) < REASON_CHARS_MIN:
                raise TableGamesError(
                    TableGamesErrorCode.INVALID_REQUEST,
                    f"the chip count is off the expected stock ({counting.money(total, venue.currency)}"
                    f" counted, {counting.money(expected_minor, venue.currency)} expected)"
                    ": give the reason", differences=off)
        return ChipBankContext(venue=venue, count=count, total_minor=total, expected=expected,
                               expected_minor=expected_minor, signed_by=signed,
                               arguments=arguments,
                               version=stream_version(chip_bank_stream(venue.code)),
                               at=call.moment())

    def decide(self, context: ChipBankContext) -> Decision:
        venue, currency = context.venue, context.venue.currency
        stream = chip_bank_stream(venue.code)
        bank = accounts.cage_chip_bank(venue.code)
        common = {"venue": venue.code, "signed_by": list(context.signed_by),
                  "currency": currency}
        postings: tuple[Posting, ...] = ()
        if self.counting:
            differences = {d: context.count.get(d, 0) - context.expected.get(d, 0)
                           for d in sorted(set(context.count) | set(context.expected),
                                           key=lambda d: -int(d))
                           if context.count.get(d, 0) != context.expected.get(d, 0)}
            over_short = context.total_minor - context.expected_minor
            payload = {**common, "count_id": context.arguments["count_id"],
                       "count": context.count, "counted_minor": context.total_minor,
                       "expected_count": context.expected,
                       "expected_minor": context.expected_minor, "differences": differences,
                       "over_short_minor": over_short,
                       "reason": (context.arguments.get("reason") or "").strip()}
            if over_short:
                postings = (Posting(bank, over_short, currency),
                            Posting(accounts.cage_over_short(venue.code), -over_short,
                                    currency))
            kind = CHIP_BANK_COUNTED
        else:
            payload = {**common, "receipt_id": context.arguments["receipt_id"],
                       "chips": context.count, "amount_minor": context.total_minor,
                       "note": (context.arguments.get("note") or "").strip()}
            kind = CHIPS_RECEIVED
        event = NewEvent(stream=stream, type=kind, payload=payload, postings=postings,
                         schema_version=SCHEMA_VERSION, occurred_at=context.at,
                         gaming_day=rules.venue_day(venue, context.at))
        return Decision([event], {stream: context.version}, accounts=[
            {"code": bank, "type": "asset", "currency": currency},
            {"code": accounts.cage_over_short(venue.code), "type": "expense",
             "currency": currency}])

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> dict:
        return {**events[0].payload, "event": events[0].type, "position": events[0].position,
                "replayed": replayed}


RECEIVE_CHIPS = ChipBankCommand(False)
COUNT_CHIP_BANK = ChipBankCommand(True)


def receive_chips(*, venue: str, chips: Mapping[str, int], signed_by: Sequence[str],
                  actor: str, note: str = "", idempotency_key: str | None = None,
                  at: dt.datetime | None = None) -> dict:
    """Record chips delivered into the cage's chip bank, by denomination, signed by two.

    Posts nothing (decision tablegames.chips_unissued). Raises TableGamesError
    signatures_required, invalid_request (400), unknown_venue (404).
    """
    return run(RECEIVE_CHIPS, {"venue": venue, "count": dict(chips),
                               "signed_by": list(signed_by), "note": note,
                               "receipt_id": _id("chips", idempotency_key)},
               Call(actor=actor, key=idempotency_key, at=at, source=SOURCE))


def count_chip_bank(*, venue: str, count: Mapping[str, int], signed_by: Sequence[str],
                    actor: str, reason: str = "", idempotency_key: str | None = None,
                    at: dt.datetime | None = None) -> dict:
    """Count the cage's chips by denomination against the expected stock.

    A denomination off needs a reason; the value off posts to the cage's
    over/short. Raises TableGamesError invalid_request (400, also for a
    missing reason), signatures_required (400), unknown_venue (404).
    """
    return run(COUNT_CHIP_BANK, {"venue": venue, "count": dict(count),
                                 "signed_by": list(signed_by), "reason": reason,
                                 "count_id": _id("chipcount", idempotency_key)},
               Call(actor=actor, key=idempotency_key, at=at, source=SOURCE))
