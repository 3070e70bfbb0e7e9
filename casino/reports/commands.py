"""Write side of the reports: record a close, an export, a seal.

Reports post no money; each command records what it computed, with the
ledger head it was computed at, so the record can be checked later against
the log (events.py lists the payloads).

- `close_day` (one per venue and gaming day, key reports/close/<venue>/<day>):
  computes close.compute_close and appends `reports.day_closed`. A second
  call, by anyone, returns the recorded close unchanged. Decision: a day is
  closed only once it has ended in the venue's zone (its gaming-day start
  has passed), as a close of a running day would be out of date at once;
  `compute_close` (the API's preview) computes any day at any time.
- `record_export`: appends `reports.journal_exported` for one export.
- `record_threshold_export`: appends `reports.threshold_report_exported` for
  one threshold or exception report sent as a file (issue 17 item 3): who,
  which report and days, the format, the rows, the bytes' digest and the
  ledger head the rows were read at (thresholds.export_report).
- `seal_day` (one per gaming day, key reports/seal/<day>): verifies the whole
  hash chain, every book where it is placed
  (casino.compliance.verification.verify_every_book), then appends
  `reports.day_sealed` with the verified head (the main book's position and
  hash; every book's under `heads`) and the last position of an event
  of that gaming day or earlier. Decision: the seal holds both. The head is
  what the chain proves (every event up to it, whatever its day); the
  day's last position tells an auditor where the day's events end, which
  the head alone cannot, since a late event of the day (a roll-up written
  after midnight carries the day it rolled up) may come after events of the
  next day. A day is sealed once it has ended at every registered venue.
  If the chain does not verify, `reports.seal_refused` records the first
  bad position and the command raises `reports.chain_broken` (409); the day stays
  unsealed, so the next run tries again.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from django.db import connection, connections
from django.utils import timezone

from casino import clock
from casino.compliance.pipeline import venue_day
from casino.compliance.verification import verify_every_book
from casino.rules import queries as rules
from casino.rules.models import Venue
from casino.clock import operator_day
from casino.runner import BaseCommand, Call, Decision, run
from ledger import NewEvent, RecordedEvent
from ledger.read import Event
from ledger.read import stream_events
from ledger.read import stream_version

from .close import compute_close
from .errors import ReportsError, ReportsErrorCode
from .events import (
    DAY_CLOSED,
    DAY_SEALED,
    EXPORTS_STREAM,
    JOURNAL_EXPORTED,
    SCHEMA_VERSION,
    SEAL_REFUSED,
    SEAL_STREAM,
    SOURCE,
    THRESHOLD_REPORT_EXPORTED,
    close_key,
    close_stream,
    seal_key,
)
from .reading import Head

SEAL_CATCH_UP_DAYS_MAX = 31


@dataclass(frozen=True, slots=True)
class Recorded:
    """A recorded report event: where it is and what it says."""

    position: int
    payload: Mapping[str, Any]
    replayed: bool = False
    # False when the event was already on the record under another request
    # (a day another client closed): this request created nothing.
    created: bool = True


class _Recording(BaseCommand[dict, Recorded]):
    """A report command: `load` computes the payload, `decide` records it."""

    source = SOURCE

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> Recorded:
        return Recorded(events[0].position, events[0].payload, replayed=replayed)

    def answer_existing(self, events: Sequence[RecordedEvent]) -> Recorded:
        return Recorded(events[0].position, events[0].payload, replayed=True, created=False)


class CloseDay(_Recording):
    name = "reports.close_day"

    def load(self, arguments: Mapping[str, Any], call: Call) -> dict:
        venue, gaming_day = arguments["venue"], dt.date.fromisoformat(arguments["gaming_day"])
        stream = close_stream(venue, gaming_day)
        version = stream_version(stream)
        place = rules.venue(venue)
        now = call.moment()
        today = venue_day(place, now)
        if gaming_day >= today:
            raise ReportsError(ReportsErrorCode.DAY_NOT_ENDED,
                               f"gaming day {gaming_day.isoformat()} has not ended at {venue}",
                               venue=venue, gaming_day=gaming_day.isoformat(),
                               current_gaming_day=today.isoformat())
        if version:
            # Closed already, under another request: the close is one per
            # venue and day, whoever asks.
            return {"existing": stream_events(stream)[:1]}
        return {"stream": stream, "version": version, "now": now, "today": today,
                "payload": compute_close(venue, gaming_day).payload()}

    def decide(self, context: dict) -> Decision:
        if "existing" in context:
            return Decision((), existing=context["existing"])
        event = NewEvent(stream=context["stream"], type=DAY_CLOSED, payload=context["payload"],
                         schema_version=SCHEMA_VERSION, occurred_at=context["now"],
                         gaming_day=context["today"])
        # A close stream holds one event: a concurrent close under the same
        # key is tried again and answered as the recorded one.
        return Decision([event], {context["stream"]: context["version"]})


class RecordExport(_Recording):
    name = "reports.record_export"

    def load(self, arguments: Mapping[str, Any], call: Call) -> dict:
        return {"payload": arguments, "at": call.moment()}

    def decide(self, context: dict) -> Decision:
        return Decision([NewEvent(stream=EXPORTS_STREAM, type=JOURNAL_EXPORTED,
                                  payload=dict(context["payload"]),
                                  schema_version=SCHEMA_VERSION, occurred_at=context["at"],
                                  gaming_day=operator_day(context["at"]))])


class _ChainBroken(Exception):
    def __init__(self, payload: dict[str, Any]) -> None:
        super().__init__(payload["problem"])
        self.payload = payload


class SealDay(_Recording):
    name = "reports.seal_day"

    def load(self, arguments: Mapping[str, Any], call: Call) -> dict:
        gaming_day = dt.date.fromisoformat(arguments["gaming_day"])
        now = call.moment()
        running = sorted(v.code for v in Venue.objects.all() if venue_day(v, now) <= gaming_day)
        if running:
            raise ReportsError(ReportsErrorCode.DAY_NOT_ENDED,
                               f"gaming day {gaming_day.isoformat()} has not ended everywhere",
                               gaming_day=gaming_day.isoformat(), venues=running)
        verified, heads = verify_every_book()
        if not verified.ok:
            # Recorded apart from the key (SealRefused): the day stays
            # unsealed and the next run under the same key tries again.
            raise _ChainBroken({"gaming_day": gaming_day.isoformat(),
                                "bad_position": verified.bad_position,
                                "problem": verified.problem,
                                "verified_events": verified.events})
        # The main book's head (with several books the events counted are
        # every book's), and every book's head, read before the walk.
        head_position = verified.head_position
        payload = {
            "gaming_day": gaming_day.isoformat(), "head_position": head_position,
            "head_hash": _hash_at(head_position), "heads": heads,
            **_day_end(gaming_day, head_position), "verified_events": verified.events}
        if set(heads) - {"main"}:
            payload["day_ends"] = _day_ends(gaming_day, heads)
        return {"now": now, "payload": payload}

    def decide(self, context: dict) -> Decision:
        # A seal belongs to the gaming day it seals.
        return Decision([NewEvent(stream=SEAL_STREAM, type=DAY_SEALED, payload=context["payload"],
                                  schema_version=SCHEMA_VERSION, occurred_at=context["now"],
                                  gaming_day=dt.date.fromisoformat(
                                      context["payload"]["gaming_day"]))])


class SealRefused(_Recording):
    name = "reports.seal_refused"

    def load(self, arguments: Mapping[str, Any], call: Call) -> dict:
        return {"payload": arguments, "at": call.moment()}

    def decide(self, context: dict) -> Decision:
        return Decision([NewEvent(stream=SEAL_STREAM, type=SEAL_REFUSED,
                                  payload=dict(context["payload"]),
                                  schema_version=SCHEMA_VERSION, occurred_at=context["at"],
                                  gaming_day=dt.date.fromisoformat(
                                      context["payload"]["gaming_day"]))])


class RecordThresholdExport(_Recording):
    name = "reports.record_threshold_export"

    def load(self, arguments: Mapping[str, Any], call: Call) -> dict:
        return {"payload": arguments, "at": call.moment()}

    def decide(self, context: dict) -> Decision:
        return Decision([NewEvent(stream=EXPORTS_STREAM, type=THRESHOLD_REPORT_EXPORTED,
                                  payload=dict(context["payload"]),
                                  schema_version=SCHEMA_VERSION, occurred_at=context["at"],
                                  gaming_day=operator_day(context["at"]))])


COMMANDS = {command.name: command for command in (
    CloseDay(), RecordExport(), SealDay(), SealRefused(), RecordThresholdExport())}


def close_day(*, venue: str, gaming_day: dt.date, actor: str,
              at: dt.datetime | None = None, idempotency_key: str | None = None
              ) -> Recorded:
    """Compute and record the close of one venue and gaming day (once).

    A client's key (the API's) identifies its request; without one the
    close is keyed by venue and day (the Celery task, the command). A day
    closed already answers the recorded close with `created` false.

    Raises RulesError (unknown venue: 404), ReportsError day_not_ended (409).
    """
    return run(COMMANDS["reports.close_day"],
               {"venue": venue, "gaming_day": gaming_day.isoformat()},
               Call(actor=actor, key=idempotency_key or close_key(venue, gaming_day), at=at,
                    source=SOURCE))


def record_export(*, actor: str, first: dt.date, last: dt.date, format: str, part: str,
                  head: Head, files: list[dict[str, Any]], at: dt.datetime | None = None
                  ) -> Recorded:
    """Record one journal export: who, what, the bytes' digest and the head.

    `files` holds, per file sent, {part, rows, sha256, bytes, totals}; the
    event's top-level rows, totals, sha256 and bytes are the first file's
    (an XLSX export is one file holding both parts).
    """
    assert files, "an export sends at least one file"
    main = files[0]
    payload = {
        "actor": actor, "from": first.isoformat(), "to": last.isoformat(), "format": format,
        "part": part, "rows": main["rows"], "totals": main["totals"], "sha256": main["sha256"],
        "bytes": main["bytes"], "head_position": head.position, "head_hash": head.hash,
        "heads": head.heads(), "files": files,
    }
    return run(COMMANDS["reports.record_export"], payload,
               Call(actor=actor, at=at, source=SOURCE))


def record_threshold_export(*, actor: str, report: str, first: dt.date, last: dt.date,
                            format: str, rows: int, sha256: str, size_bytes: int,
                            head: Head, at: dt.datetime | None = None) -> Recorded:
    """Record one threshold or exception report sent as a file (who, what, when)."""
    payload = {
        "actor": actor, "report": report, "from": first.isoformat(), "to": last.isoformat(),
        "format": format, "rows": rows, "sha256": sha256, "bytes": size_bytes,
        "head_position": head.position, "head_hash": head.hash, "heads": head.heads(),
    }
    return run(COMMANDS["reports.record_threshold_export"], payload,
               Call(actor=actor, at=at, source=SOURCE))


def seal_day(*, gaming_day: dt.date, actor: str = "celery",
             at: dt.datetime | None = None) -> Recorded:
    """Verify the chain and seal one gaming day (once).

    Raises ReportsError day_not_ended (409) before the day has ended at
    every venue, chain_broken (409, after recording seal_refused).
    """
    now = at or clock.now()
    try:
        sealed = run(COMMANDS["reports.seal_day"], {"gaming_day": gaming_day.isoformat()},
                     Call(actor=actor, key=seal_key(gaming_day), at=now, source=SOURCE))
        _anchor_outside_the_database()
        return sealed
    except _ChainBroken as broken:
        run(COMMANDS["reports.seal_refused"], broken.payload,
            Call(actor=actor, at=now, source=SOURCE))
        payload = broken.payload
        raise ReportsError(ReportsErrorCode.CHAIN_BROKEN,
                           f"the hash chain does not verify: {payload['problem']}",
                           bad_position=payload["bad_position"],
                           problem=payload["problem"]) from None


def _anchor_outside_the_database() -> None:
    """With settings.LEDGER_SEAL_DAILY (on in production), the daily seal is also a
    signed Merkle tree head per book in the external seal files (ledger.seals, issue 16)."""
    from django.conf import settings

    if getattr(settings, "LEDGER_SEAL_DAILY", False):
        from ledger.seals import anchor_books

        anchor_books()  # every book, each in its own seal file (issue 19)


def seal_ended_days(*, actor: str = "celery", at: dt.datetime | None = None
                    ) -> list[Recorded]:
    """Seal, oldest first, every ended gaming day after the last one sealed.

    "Ended" is ended at every registered venue. With no seal yet, it starts
    from the first gaming day in the log, at most SEAL_CATCH_UP_DAYS_MAX
    days back, so a beat that was down catches up and a first run on an old
    log does not verify the chain hundreds of times.
    """
    now = at or clock.now()
    venues = list(Venue.objects.all())
    if venues:
        last_ended = min(venue_day(v, now) for v in venues) - dt.timedelta(days=1)
    else:
        last_ended = timezone.localdate(now) - dt.timedelta(days=1)
    from .models import DaySeal

    last_sealed = DaySeal.objects.order_by("-gaming_day").values_list(
        "gaming_day", flat=True).first()
    if last_sealed is not None:
        first = last_sealed + dt.timedelta(days=1)
    else:
        first = Event.objects.order_by("gaming_day").values_list(
            "gaming_day", flat=True).first() or last_ended
    first = max(first, last_ended - dt.timedelta(days=SEAL_CATCH_UP_DAYS_MAX - 1))
    sealed = []
    day = first
    while day <= last_ended:
        sealed.append(seal_day(gaming_day=day, actor=actor, at=now))
        day += dt.timedelta(days=1)
    return sealed


def _hash_at(position: int) -> str:
    from ledger import GENESIS_HASH

    if position == 0:
        return GENESIS_HASH
    return Event.objects.values_list("hash", flat=True).get(position=position)


def _day_end(day: dt.date, head_position: int) -> dict[str, Any]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT max(position) FILTER (WHERE gaming_day <= %s),"
            " count(*) FILTER (WHERE gaming_day = %s)"
            " FROM ledger_event WHERE position <= %s",
            [day, day, head_position])
        last_position, day_events = cursor.fetchone()
    last_position = last_position or 0
    return {"day_last_position": last_position, "day_last_hash": _hash_at(last_position),
            "day_events": day_events}


def _day_ends(day: dt.date, heads: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """Where the day's events end in each book, up to the book's sealed head:
    {key: {day_last_position, day_last_hash, day_events}} (books other than
    main; the main book's are the payload's own keys). Two statements per
    database holding books."""
    from .reading import head_at

    head = head_at(books={key: int(value["position"]) for key, value in heads.items()})
    ends: dict[str, dict[str, Any]] = {}
    for database in head.databases():
        books = [book for book in head.book_heads()
                 if book.database == database and book.book != 1]
        if not books:
            continue
        bound, params = head.bound("position", database)
        with connections[database].cursor() as cursor:
            cursor.execute(
                "SELECT book, max(position) FILTER (WHERE gaming_day <= %s),"
                " count(*) FILTER (WHERE gaming_day = %s)"
                f" FROM ledger_event WHERE {bound} GROUP BY book", [day, day, *params])
            found = {book: (last or 0, events) for book, last, events in cursor.fetchall()}
            lasts = [last for last, _ in found.values() if last]
            cursor.execute("SELECT position, hash FROM ledger_event WHERE position = ANY(%s)",
                           [lasts])
            hashes = dict(cursor.fetchall())
        for book in books:
            last, events = found.get(book.book, (0, 0))
            ends[book.key] = {"day_last_position": last or book.base,
                              "day_last_hash": hashes.get(last) or _genesis(),
                              "day_events": events}
    return ends


def _genesis() -> str:
    from ledger import GENESIS_HASH

    return GENESIS_HASH
