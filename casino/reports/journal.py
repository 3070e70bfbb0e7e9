"""Journal export: the postings of a range of gaming days, for a general ledger.

Two parts, each computed at one head position (reading.py says why that is
one consistent snapshot):

- the journal, one row per posting, in log order:
  gaming_day, position, posting, event_type, stream, account, gl_account,
  gl_name, debit, credit, currency, memo
- the trial balance, one row per account and currency with activity or a
  balance: account, gl_account, gl_name, currency, opening, debit, credit,
  closing (opening: every posting of an earlier gaming day; closing =
  opening + debit - credit; debit-positive, so the closings net to zero per
  currency, as the ledger does, L3).

Amounts are decimal strings in major units with two decimals ("1234.05");
dates are ISO text (the same in both formats, so a CSV row and an XLSX row
compare equal). GL codes come from chart.CHART.

Formats. CSV is streamed: a generator yields one chunk per page of
postings (reading.PAGE_ROWS_MAX rows), so a year of postings never sits in
memory; the trial balance is read through a server-side cursor. CSV has one
part per file (`part=journal|trial_balance`). XLSX holds both parts as two
sheets, written by XlsxWriter in constant_memory mode (each row is flushed to
a temporary file as the next starts) and then streamed from that file.

Every export records `reports.journal_exported` (commands.record_export)
with the sha256 of the exact bytes sent, the row count and totals and the
head it was read at; re-exporting the same range at the same head gives the
same bytes (CSV and XLSX: the workbook's creation time is the head event's
recorded time, and XlsxWriter fixes the zip entries' times), so an auditor
can prove a file matches the log. A CSV export is recorded after its last
chunk has been produced: a download broken off midway records nothing.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import heapq
import io
import os
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Iterator

from django.db import connections

from . import chart, ledger_entries
from .errors import ReportsError, ReportsErrorCode
from .reading import (
    PAGE_ROWS_MAX,
    Head,
    day_range_positions,
    day_range_where,
    head_at,
    iter_pages,
)

JOURNAL = "journal"
TRIAL_BALANCE = "trial_balance"
# Issue 17 item 5: summarised entries per venue, day and GL account, and the
# trial balance by GL account (casino/reports/ledger_entries.py).
PARTS = (JOURNAL, TRIAL_BALANCE, ledger_entries.SUMMARY, ledger_entries.GL_TRIAL_BALANCE)
FORMATS = ("csv", "xlsx")
RANGE_DAYS_MAX = 3_660
TRIAL_BALANCE_FETCH_ROWS = 2_000
FILE_READ_BYTES = 1 << 20

JOURNAL_COLUMNS = ("gaming_day", "position", "posting", "event_type", "stream", "account",
                   "gl_account", "gl_name", "debit", "credit", "currency", "memo")
TRIAL_BALANCE_COLUMNS = ("account", "gl_account", "gl_name", "currency", "opening",
                         "debit", "credit", "closing")
_JOURNAL_SELECT = ("e.position, p.index, e.gaming_day, e.type, e.stream, p.account_id,"
                   " p.amount_minor, p.currency, e.metadata->>'actor'")


@dataclass(slots=True)
class Tally:
    """What an export produced: rows, totals per currency, digest, size."""

    part: str
    rows: int = 0
    debit_minor: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    credit_minor: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    digest: "hashlib._Hash" = field(default_factory=hashlib.sha256)
    bytes: int = 0

    def totals(self) -> dict[str, dict[str, int]]:
        currencies = sorted(set(self.debit_minor) | set(self.credit_minor))
        return {c: {"debit_minor": self.debit_minor.get(c, 0),
                    "credit_minor": self.credit_minor.get(c, 0)} for c in currencies}

    def feed(self, chunk: bytes) -> bytes:
        self.digest.update(chunk)
        self.bytes += len(chunk)
        return chunk


def check_range(first: dt.date, last: dt.date) -> None:
    """Refuse an inverted or too long range (400)."""
    if first > last:
        raise ReportsError(ReportsErrorCode.INVALID_REQUEST,
                           "the range's first gaming day is after its last",
                           first=first.isoformat(), last=last.isoformat())
    if (last - first).days + 1 > RANGE_DAYS_MAX:
        raise ReportsError(ReportsErrorCode.RANGE_TOO_LONG,
                           f"a journal export covers at most {RANGE_DAYS_MAX} gaming days",
                           days_max=RANGE_DAYS_MAX)


# ---------------------------------------------------------------------------
# Rows
# ---------------------------------------------------------------------------


def journal_pages(first: dt.date, last: dt.date, head: Head,
                  page_rows: int = PAGE_ROWS_MAX) -> Iterator[list[tuple]]:
    """Yield pages of journal rows (tuples of JOURNAL_COLUMNS' values).

    Amounts are minor units here; the writers format them.
    """
    positions = day_range_positions(first, last, head)
    if positions is None:
        return
    where, params = day_range_where(first, last)
    labels: dict[tuple[str, str], str] = {}
    for page in iter_pages(_JOURNAL_SELECT, where, params, head=head, page_rows=page_rows,
                           positions=positions):
        rows = []
        for position, index, day, event_type, stream, code, amount, currency, actor in page:
            gl_code, gl_name = chart.gl_account(code, day)
            label = labels.get((code, event_type))
            if label is None:
                line, _ = chart.close_line(code, None, event_type)
                label = labels[(code, event_type)] = chart.line_label(line)
                if len(labels) > 10_000:
                    labels.clear()
            memo = f"{label}; by {actor}" if actor else label
            rows.append((day.isoformat(), position, index, event_type, stream, code, gl_code,
                         gl_name, amount if amount > 0 else 0,
                         -amount if amount < 0 else 0, currency, memo))
        yield rows


def trial_balance_rows(first: dt.date, last: dt.date, head: Head) -> Iterator[tuple]:
    """Yield trial balance rows (TRIAL_BALANCE_COLUMNS; amounts in minor units).

    One aggregate query per database holding books, each read through a
    server-side cursor by account code; with several, merged by code.
    """
    streams = [_trial_balance_in(database, first, last, head)
               for database in head.databases()]
    rows = streams[0] if len(streams) == 1 else heapq.merge(
        *streams, key=lambda row: (row[0], row[1]))
    for code, currency, opening, debit, credit in rows:
        if not (opening or debit or credit):
            continue
        gl_code, gl_name = chart.gl_account(code, last)
        yield (code, gl_code, gl_name, currency, opening, debit, credit,
               opening + debit - credit)


def _trial_balance_in(database: str, first: dt.date, last: dt.date, head: Head
                      ) -> Iterator[tuple]:
    bound, params = head.bound("e.position", database)
    sql = (
        "SELECT p.account_id, p.currency,"
        " COALESCE(sum(p.amount_minor) FILTER (WHERE e.gaming_day < %s), 0),"
        " COALESCE(sum(p.amount_minor) FILTER"
        "   (WHERE e.gaming_day >= %s AND p.amount_minor > 0), 0),"
        " COALESCE(-sum(p.amount_minor) FILTER"
        "   (WHERE e.gaming_day >= %s AND p.amount_minor < 0), 0)"
        " FROM ledger_posting p JOIN ledger_event e ON e.position = p.event_id"
        f" WHERE e.gaming_day <= %s AND {bound}"
        " GROUP BY p.account_id, p.currency ORDER BY p.account_id, p.currency"
    )
    connection = connections[database]
    connection.ensure_connection()
    cursor = connection.chunked_cursor()
    try:
        cursor.execute(sql, [first, first, first, last, *params])
        while True:
            rows = cursor.fetchmany(TRIAL_BALANCE_FETCH_ROWS)
            if not rows:
                return
            for code, currency, opening, debit, credit in rows:
                yield code, currency, int(opening), int(debit), int(credit)
    finally:
        cursor.close()


# ---------------------------------------------------------------------------
# CSV
# ---------------------------------------------------------------------------


class CsvExport:
    """A CSV export, iterated for its bytes; recorded when iteration ends.

    `head` is fixed at construction (the moment the request came in).
    After the last chunk, `record` (if given) is called with the tally and
    its result kept in `recorded`.
    """

    def __init__(self, first: dt.date, last: dt.date, *, part: str = JOURNAL,
                 head: Head | None = None, record=None,
                 page_rows: int = PAGE_ROWS_MAX) -> None:
        check_range(first, last)
        if part not in PARTS:
            raise ReportsError(ReportsErrorCode.INVALID_REQUEST,
                               f"part must be one of {', '.join(PARTS)}",
                               part=part)
        self.first, self.last, self.part = first, last, part
        self.head = head or head_at()
        self.tally = Tally(part)
        self.page_rows = page_rows
        self._record = record
        self.recorded = None

    def __iter__(self) -> Iterator[bytes]:
        tally = self.tally
        if self.part in (ledger_entries.SUMMARY, ledger_entries.GL_TRIAL_BALANCE):
            yield from self._ledger_entries()
            if self._record is not None:
                self.recorded = self._record(self)
            return
        yield tally.feed(_csv_bytes([JOURNAL_COLUMNS if self.part == JOURNAL
                                     else TRIAL_BALANCE_COLUMNS]))
        if self.part == JOURNAL:
            for page in journal_pages(self.first, self.last, self.head, self.page_rows):
                yield tally.feed(_csv_bytes(_journal_text(row, tally) for row in page))
        else:
            batch: list[tuple] = []
            for row in trial_balance_rows(self.first, self.last, self.head):
                batch.append(_trial_balance_text(row, tally))
                if len(batch) >= TRIAL_BALANCE_FETCH_ROWS:
                    yield tally.feed(_csv_bytes(batch))
                    batch = []
            if batch:
                yield tally.feed(_csv_bytes(batch))
        if self._record is not None:
            self.recorded = self._record(self)


    def _ledger_entries(self) -> Iterator[bytes]:
        """The summary or the GL trial balance: small, aggregated, one chunk."""
        tally = self.tally
        if self.part == ledger_entries.SUMMARY:
            rows = ledger_entries.summary_rows(self.first, self.last, self.head)
            header, debit_at, credit_at, currency_at = ledger_entries.SUMMARY_COLUMNS, 6, 7, 5
        else:
            rows = ledger_entries.gl_trial_balance_rows(
                trial_balance_rows(self.first, self.last, self.head))
            header, debit_at, credit_at, currency_at = (
                ledger_entries.GL_TRIAL_BALANCE_COLUMNS, 5, 6, 2)
        money_at = {debit_at, credit_at} | ({4, 7} if self.part != ledger_entries.SUMMARY
                                            else set())
        text = [header]
        for row in rows:
            tally.rows += 1
            tally.debit_minor[row[currency_at]] += row[debit_at]
            tally.credit_minor[row[currency_at]] += row[credit_at]
            text.append(tuple(chart.minor_text(value) if index in money_at
                              else value.isoformat() if isinstance(value, dt.date)
                              else value for index, value in enumerate(row)))
        yield tally.feed(_csv_bytes(text))


def _csv_bytes(rows) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\r\n").writerows(rows)
    return buffer.getvalue().encode("utf-8")


def _journal_text(row: tuple, tally: Tally) -> tuple:
    debit, credit, currency = row[8], row[9], row[10]
    tally.rows += 1
    tally.debit_minor[currency] += debit
    tally.credit_minor[currency] += credit
    return (*row[:8], chart.minor_text(debit), chart.minor_text(credit), currency, row[11])


def _trial_balance_text(row: tuple, tally: Tally) -> tuple:
    currency = row[3]
    tally.rows += 1
    tally.debit_minor[currency] += row[5]
    tally.credit_minor[currency] += row[6]
    return (*row[:4], *(chart.minor_text(amount) for amount in row[4:]))


# ---------------------------------------------------------------------------
# XLSX
# ---------------------------------------------------------------------------


@dataclass(slots=True)
class XlsxExport:
    """A finished XLSX export: its file (open, positioned at 0) and tallies."""

    first: dt.date
    last: dt.date
    head: Head
    journal: Tally
    trial_balance: Tally
    file: io.BufferedReader
    sha256: str
    bytes: int
    recorded: object = None


def write_xlsx(first: dt.date, last: dt.date, *, head: Head | None = None) -> XlsxExport:
    """Write both parts as a workbook in a temporary file; return it open.

    XlsxWriter's constant_memory mode keeps one row in memory per sheet.
    The file is unlinked at once (POSIX keeps it while open), so nothing is
    left behind however the caller ends.
    """
    import xlsxwriter

    check_range(first, last)
    head = head or head_at()
    handle, path = tempfile.mkstemp(prefix="journal-", suffix=".xlsx")
    os.close(handle)
    try:
        workbook = xlsxwriter.Workbook(path, {"constant_memory": True, "tmpdir":
                                              tempfile.gettempdir()})
        workbook.set_properties({"title": f"Journal {first.isoformat()}..{last.isoformat()}",
                                 "comments": f"ledger head {head.position} {head.hash}" + "".join(
                                     f"; {key} {value['position']} {value['hash']}"
                                     for key, value in head.heads().items()
                                     if key != "main"),
                                 "created": _created(head)})
        money = workbook.add_format({"num_format": "0.00"})
        journal = Tally(JOURNAL)
        sheet = workbook.add_worksheet("journal")
        sheet.write_row(0, 0, JOURNAL_COLUMNS)
        write_string, write_number = sheet.write_string, sheet.write_number
        row_number = 1
        for page in journal_pages(first, last, head):
            for row in page:
                debit, credit, currency = row[8], row[9], row[10]
                journal.rows += 1
                journal.debit_minor[currency] += debit
                journal.credit_minor[currency] += credit
                # Typed writes, not write_row: XlsxWriter's type dispatch
                # is a fifth of its time per cell.
                write_string(row_number, 0, row[0])
                write_number(row_number, 1, row[1])
                write_number(row_number, 2, row[2])
                for column in range(3, 8):
                    write_string(row_number, column, row[column])
                sheet.write_number(row_number, 8, debit / 100, money)
                sheet.write_number(row_number, 9, credit / 100, money)
                sheet.write_string(row_number, 10, currency)
                sheet.write_string(row_number, 11, row[11])
                row_number += 1
        trial = Tally(TRIAL_BALANCE)
        sheet = workbook.add_worksheet("trial_balance")
        sheet.write_row(0, 0, TRIAL_BALANCE_COLUMNS)
        row_number = 1
        for row in trial_balance_rows(first, last, head):
            trial.rows += 1
            trial.debit_minor[row[3]] += row[5]
            trial.credit_minor[row[3]] += row[6]
            sheet.write_row(row_number, 0, row[:4])
            for column, amount in enumerate(row[4:], start=4):
                sheet.write_number(row_number, column, amount / 100, money)
            row_number += 1
        _ledger_entry_sheets(workbook, money, first, last, head)
        workbook.close()
        file = open(path, "rb")
    finally:
        os.unlink(path)
    digest = hashlib.sha256()
    size = 0
    while chunk := file.read(FILE_READ_BYTES):
        digest.update(chunk)
        size += len(chunk)
    file.seek(0)
    return XlsxExport(first=first, last=last, head=head, journal=journal,
                      trial_balance=trial, file=file, sha256=digest.hexdigest(), bytes=size)


def _ledger_entry_sheets(workbook, money, first: dt.date, last: dt.date,
                         head: Head) -> None:
    """The summary and the GL trial balance as two more sheets; real dates."""
    day_format = workbook.add_format({"num_format": "yyyy-mm-dd"})
    sheet = workbook.add_worksheet(ledger_entries.SUMMARY)
    sheet.write_row(0, 0, ledger_entries.SUMMARY_COLUMNS)
    for number, row in enumerate(ledger_entries.summary_rows(first, last, head), start=1):
        entry, day, venue, gl_code, gl_name, currency, debit, credit, count = row
        sheet.write_string(number, 0, entry)
        sheet.write_datetime(number, 1, dt.datetime.combine(day, dt.time()), day_format)
        for column, value in ((2, venue), (3, gl_code), (4, gl_name), (5, currency)):
            sheet.write_string(number, column, value)
        sheet.write_number(number, 6, debit / 100, money)
        sheet.write_number(number, 7, credit / 100, money)
        sheet.write_number(number, 8, count)
    sheet = workbook.add_worksheet(ledger_entries.GL_TRIAL_BALANCE)
    sheet.write_row(0, 0, ledger_entries.GL_TRIAL_BALANCE_COLUMNS)
    rows = ledger_entries.gl_trial_balance_rows(trial_balance_rows(first, last, head))
    for number, row in enumerate(rows, start=1):
        sheet.write_row(number, 0, row[:3])
        sheet.write_number(number, 3, row[3])
        for column, amount in enumerate(row[4:], start=4):
            sheet.write_number(number, column, amount / 100, money)


def _created(head: Head) -> dt.datetime:
    """The workbook's creation time: the main head event's (stable per head)."""
    from ledger.read import Event

    main = head.book_heads()[0]
    events = (Event.objects.using(main.database)
              if main.book == 1 and main.database != "default" else Event.objects)
    recorded = (events.filter(position=head.position)
                .values_list("recorded_at", flat=True).first())
    moment = recorded or dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)
    return moment.astimezone(dt.timezone.utc).replace(tzinfo=None, microsecond=0)
