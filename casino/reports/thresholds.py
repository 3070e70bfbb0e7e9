"""Threshold and exception reports (issue 17 item 4), read from the ledger.

Four reports over a range of gaming days, each a list of rows with named
columns (`COLUMNS`), exported as CSV or XLSX (`export`) and shown in the
admin (Reports > Threshold reports):

- `cash_by_player_day`: per player, venue and gaming day, cash in and cash
  out kept separately (never netted), with the venue's thresholds from its
  rulebook in force that day: `aml.cdd.transaction_threshold` (EU
  2015/849 art. 11(d), EUR 2,000) and, once in force, `aml.cash_payment.max`
  (EU 2024/1624 art. 80); flags say which total reached which threshold.
- `large_cash_log`: every cash transaction at or above the near-threshold
  share of the venue's due-diligence threshold (decision in casino/cage:
  90 %), with who, when, where, which way.
- `structuring_review`: players with several cash transactions just below
  the threshold within a window of gaming days, across all venues (the
  "operations which appear to be linked" of art. 11(d)).
- `exception_report`: corrections (proposed, approved, posted, rejected),
  voided or disputed hands, refused two-person steps and every other
  refusal of an officer's action, each with who, when, the value before,
  the value after and why, in the manner of Indiana 68 IAC 25-3-8.

Every file sent (CSV or XLSX) is recorded through the runner as
`reports.threshold_report_exported` (`export_report`): who, which report
and gaming days, the format, the rows, the SHA-256 of the bytes and the
ledger heads the rows were read at (the main book's `head_position`, every
book's `heads`); `build(..., up_to=reading.head_of_record(payload))` rebuilds
the same rows from the log later, so an auditor can check the digest.
Showing a report on the screen records nothing.

Cash transactions are the events whose payload carries the cage's `cash`
block (casino/cage/commands.py): direction `in` (deposits and chips bought
for cash) or `out` (withdrawals and chips redeemed for cash).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from ledger.read import Event

if TYPE_CHECKING:
    from .reading import Head

THRESHOLD_FIGURE = "aml.cdd.transaction_threshold"
CASH_CAP_FIGURE = "aml.cash_payment.max"
NEAR_THRESHOLD_PERCENT = 90      # the cage's decision (casino/cage/commands.py)
STRUCTURING_WINDOW_DAYS = 7
STRUCTURING_NEAR_MIN = 2
RANGE_DAYS_MAX = 92
ROWS_MAX = 100_000

EXCEPTION_TYPES = {
    "compliance.correction_proposed": "correction proposed",
    "compliance.correction_approved": "correction approved",
    "compliance.correction_posted": "balance adjustment posted",
    "compliance.correction_rejected": "correction rejected",
    "compliance.four_eyes_refused": "two-person rule refused",
    "jackpots.four_eyes_refused": "two-person rule refused (jackpot)",
    "jackpots.hit_rejected": "jackpot hit refused",
    "poker.hand_disputed": "hand disputed",
    "poker.hand_voided": "hand voided",
    "games.round_voided": "round voided",
    "compliance.alert_dismissed": "alert dismissed (override)",
    "machines.malfunction_credit_approved": "machine malfunction credit",
}

COLUMNS = {
    "cash_by_player_day": ["gaming_day", "venue", "player_id", "player", "currency",
                           "cash_in", "cash_in_transactions", "cash_out",
                           "cash_out_transactions", "cdd_threshold", "cash_in_reached",
                           "cash_out_reached", "cash_payment_cap"],
    "large_cash_log": ["gaming_day", "occurred_at", "venue", "player_id", "player",
                       "direction", "amount", "currency", "cdd_threshold", "share_percent",
                       "at_or_above", "event_position"],
    "structuring_review": ["player_id", "player", "first_day", "last_day", "venues",
                           "near_transactions", "near_total", "currency", "days",
                           "event_positions"],
    "exception_report": ["gaming_day", "occurred_at", "what", "who", "subject",
                         "value_before", "value_after", "why", "event_position"],
}
REPORTS = tuple(COLUMNS)


def money(amount_minor: int | None, currency: str = "") -> str:
    """`EUR 1,234.50` for a screen; exports carry plain decimals (`decimal`)."""
    if amount_minor is None:
        return ""
    sign = "-" if amount_minor < 0 else ""
    whole, cents = divmod(abs(int(amount_minor)), 100)
    return f"{currency} {sign}{whole:,}.{cents:02d}".strip()


def decimal(amount_minor: int | None) -> str:
    if amount_minor is None:
        return ""
    sign = "-" if amount_minor < 0 else ""
    whole, cents = divmod(abs(int(amount_minor)), 100)
    return f"{sign}{whole}.{cents:02d}"


@dataclass(frozen=True, slots=True)
class Cash:
    position: int
    occurred_at: dt.datetime
    gaming_day: dt.date
    venue: str
    player_id: str
    direction: str
    amount_minor: int
    currency: str


def cash_transactions(first: dt.date, last: dt.date, *, up_to: "int | Head | None" = None
                      ) -> list[Cash]:
    """Every cash transaction of the gaming days, in log order (up to a position)."""
    events = _events_up_to(up_to, ("position", "occurred_at", "gaming_day", "payload"),
                           gaming_day__range=(first, last), payload__has_key="cash")
    found = []
    for position, occurred_at, gaming_day, payload in events:
        cash = payload["cash"]
        found.append(Cash(position, occurred_at, gaming_day, cash.get("venue") or
                          payload.get("venue", ""), cash.get("player") or
                          payload.get("player_id", ""), cash.get("direction", "in"),
                          int(cash["amount_minor"]), payload.get("currency", "")))
    return found


def _thresholds(venues: Iterable[str], days: Iterable[dt.date]
                ) -> dict[tuple[str, dt.date], tuple[int | None, int | None]]:
    """(cdd threshold, cash payment cap) per venue and gaming day, from the rulebooks."""
    from casino.rules import queries as rules
    from casino.rules.models import Venue

    known = {venue.code: venue for venue in Venue.objects.filter(code__in=set(venues))}
    found = {}
    for code in set(venues):
        for day in set(days):
            venue = known.get(code)
            if venue is None:
                found[(code, day)] = (None, None)
                continue
            rulebook = rules.rulebook_in_force(venue.rulebook_id, day)
            values = []
            for key in (THRESHOLD_FIGURE, CASH_CAP_FIGURE):
                figure = rules.figure(rulebook, key, day)
                values.append(figure.value if figure is not None
                              and isinstance(figure.value, int) else None)
            found[(code, day)] = (values[0], values[1])
    return found


def _names(player_ids: Iterable[str]) -> dict[str, str]:
    from casino.players.models import Player

    return {pid: f"{given} {family}" for pid, given, family in Player.objects.filter(
        id__in=set(player_ids)).values_list("id", "given_name", "family_name")}


def cash_by_player_day(first: dt.date, last: dt.date, *, up_to: "int | Head | None" = None
                       ) -> list[dict[str, Any]]:
    """Cash in and cash out per player, venue and gaming day, kept apart."""
    cash = cash_transactions(first, last, up_to=up_to)
    totals: dict[tuple, dict[str, Any]] = {}
    for item in cash:
        key = (item.gaming_day, item.venue, item.player_id, item.currency)
        row = totals.setdefault(key, {"in": 0, "in_n": 0, "out": 0, "out_n": 0})
        side = "in" if item.direction == "in" else "out"
        row[side] += item.amount_minor
        row[f"{side}_n"] += 1
    limits = _thresholds([k[1] for k in totals], [k[0] for k in totals])
    names = _names(k[2] for k in totals)
    rows = []
    for (day, venue, player, currency), row in sorted(totals.items()):
        threshold, cap = limits[(venue, day)]
        rows.append({
            "gaming_day": day, "venue": venue, "player_id": player,
            "player": names.get(player, ""), "currency": currency,
            "cash_in": row["in"], "cash_in_transactions": row["in_n"],
            "cash_out": row["out"], "cash_out_transactions": row["out_n"],
            "cdd_threshold": threshold,
            "cash_in_reached": threshold is not None and row["in"] >= threshold,
            "cash_out_reached": threshold is not None and row["out"] >= threshold,
            "cash_payment_cap": cap})
    return rows


def _near(amount: int, threshold: int | None) -> bool:
    return threshold is not None and amount * 100 >= threshold * NEAR_THRESHOLD_PERCENT


def large_cash_log(first: dt.date, last: dt.date, *, up_to: "int | Head | None" = None
                   ) -> list[dict[str, Any]]:
    """Cash transactions near (>= 90 %) or above the venue's CDD threshold."""
    cash = cash_transactions(first, last, up_to=up_to)
    limits = _thresholds([c.venue for c in cash], [c.gaming_day for c in cash])
    names = _names(c.player_id for c in cash)
    rows = []
    for item in cash:
        threshold = limits[(item.venue, item.gaming_day)][0]
        if not _near(item.amount_minor, threshold):
            continue
        rows.append({
            "gaming_day": item.gaming_day, "occurred_at": item.occurred_at,
            "venue": item.venue, "player_id": item.player_id,
            "player": names.get(item.player_id, ""), "direction": item.direction,
            "amount": item.amount_minor, "currency": item.currency,
            "cdd_threshold": threshold,
            "share_percent": item.amount_minor * 100 // threshold,
            "at_or_above": item.amount_minor >= threshold, "event_position": item.position})
    return rows


def structuring_review(first: dt.date, last: dt.date, *,
                       window_days: int = STRUCTURING_WINDOW_DAYS,
                       near_min: int = STRUCTURING_NEAR_MIN,
                       up_to: "int | Head | None" = None) -> list[dict[str, Any]]:
    """Players with `near_min`+ transactions just below the threshold within
    `window_days` gaming days, at any of the operator's venues."""
    cash = cash_transactions(first - dt.timedelta(days=window_days - 1), last, up_to=up_to)
    limits = _thresholds([c.venue for c in cash], [c.gaming_day for c in cash])
    below: dict[tuple[str, str], list[Cash]] = defaultdict(list)
    for item in cash:
        threshold = limits[(item.venue, item.gaming_day)][0]
        if _near(item.amount_minor, threshold) and item.amount_minor < threshold:
            below[(item.player_id, item.currency)].append(item)
    names = _names(player for player, _ in below)
    rows = []
    for (player, currency), items in sorted(below.items()):
        items.sort(key=lambda c: c.position)
        best: list[Cash] = []
        for index, item in enumerate(items):
            window = [c for c in items[index:]
                      if (c.gaming_day - item.gaming_day).days < window_days]
            if len(window) > len(best):
                best = window
        if len(best) < near_min or best[-1].gaming_day < first:
            continue
        rows.append({
            "player_id": player, "player": names.get(player, ""),
            "first_day": best[0].gaming_day, "last_day": best[-1].gaming_day,
            "venues": ", ".join(sorted({c.venue for c in best})),
            "near_transactions": len(best), "near_total": sum(c.amount_minor for c in best),
            "currency": currency, "days": len({c.gaming_day for c in best}),
            "event_positions": ", ".join(str(c.position) for c in best)})
    return rows


def _exception_row(event) -> dict[str, Any]:
    p, meta = event.payload, event.metadata or {}
    currency = p.get("currency", "")
    before = p.get("balance_before_minor")
    after = p.get("balance_after_minor")
    if after is None and before is not None and isinstance(p.get("amount_minor"), int):
        after = before + p["amount_minor"]
    subject = (p.get("account") or p.get("hand_id") or p.get("hit_id") or p.get("round_id")
               or p.get("correction_id") or p.get("alert_id") or event.stream)
    why = p.get("reason") or p.get("note") or p.get("message") or p.get("summary") or ""
    return {
        "gaming_day": event.gaming_day, "occurred_at": event.occurred_at,
        "what": EXCEPTION_TYPES[event.type], "who": meta.get("actor", ""),
        "subject": subject,
        "value_before": money(before, currency) if isinstance(before, int) else "",
        "value_after": money(after, currency) if isinstance(after, int) else "",
        "why": why, "event_position": event.position}


def exception_report(first: dt.date, last: dt.date, *, up_to: "int | Head | None" = None
                     ) -> list[dict[str, Any]]:
    """Corrections, voids, overrides, disputes and refused approvals of the days."""
    events = _events_up_to(up_to, None, gaming_day__range=(first, last),
                           type__in=list(EXCEPTION_TYPES))
    return [_exception_row(event) for event in events]


def _events_up_to(up_to: "int | Head | None", values: tuple[str, ...] | None,
                  **filters: Any) -> list:
    """The events matching `filters` within the head, in position order (at most ROWS_MAX).

    `up_to`: a Head (every book up to its own head, each read in the
    database that holds it, issue 19), a main-book position (reports
    recorded before books), or None (the heads now).
    """
    from django.db import DEFAULT_DB_ALIAS
    from django.db.models import Q

    from .reading import Head, head_at

    if up_to is None:
        up_to = head_at()
    if not isinstance(up_to, Head):
        up_to = Head(up_to, "")     # the main book up to that position
    found: list = []
    for database in up_to.databases():
        within = Q(pk__in=[])
        for book in up_to.book_heads():
            if book.database == database and book.position > book.base:
                within |= Q(position__range=(book.base + 1, book.position))
        events = Event.objects if database == DEFAULT_DB_ALIAS else Event.objects.using(database)
        events = events.filter(within, **filters).order_by("position")
        found += list((events if values is None else events.values_list(*values))[:ROWS_MAX])
    if len(up_to.databases()) > 1:
        found.sort(key=lambda event: event[0] if values is not None else event.position)
    return found[:ROWS_MAX]


BUILDERS = {"cash_by_player_day": cash_by_player_day, "large_cash_log": large_cash_log,
            "structuring_review": structuring_review, "exception_report": exception_report}
MONEY_COLUMNS = frozenset({"cash_in", "cash_out", "cdd_threshold", "cash_payment_cap",
                           "amount", "near_total"})


def build(report: str, first: dt.date, last: dt.date, *, up_to: "int | Head | None" = None
          ) -> list[dict[str, Any]]:
    """A report's rows; with `up_to`, from the log up to that position only."""
    if report not in BUILDERS:
        raise ValueError(f"unknown report {report!r}; one of {', '.join(REPORTS)}")
    if last < first or (last - first).days >= RANGE_DAYS_MAX:
        raise ValueError(f"give a range of 1 to {RANGE_DAYS_MAX} gaming days")
    return BUILDERS[report](first, last, up_to=up_to)


def cell(column: str, value: Any) -> Any:
    """One exported cell: amounts as decimals in major units, times in ISO form."""
    if column in MONEY_COLUMNS:
        return decimal(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return "" if value is None else value


def shown(column: str, value: Any, currency: str) -> str:
    """One cell for a screen: amounts as `EUR 1,234.50`."""
    if column in MONEY_COLUMNS:
        return money(value, currency) if value is not None else "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dt.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S %Z")
    if isinstance(value, dt.date):
        return value.isoformat()
    return "" if value is None else str(value)


def to_csv(report: str, rows: Sequence[Mapping[str, Any]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(COLUMNS[report])
    for row in rows:
        writer.writerow([cell(column, row[column]) for column in COLUMNS[report]])
    return out.getvalue().encode()


def to_xlsx(report: str, rows: Sequence[Mapping[str, Any]], *,
            created: dt.datetime | None = None) -> bytes:
    """One sheet: a header row, dates as dates, amounts as numbers (2 decimals).

    With `created` (naive UTC) the workbook's creation time is fixed, so the
    same rows give the same bytes (an export's recorded digest rebuilds).
    """
    import xlsxwriter

    buffer = io.BytesIO()
    workbook = xlsxwriter.Workbook(buffer, {"in_memory": True})
    if created is not None:
        workbook.set_properties({"created": created})
    sheet = workbook.add_worksheet(report[:31])
    bold = workbook.add_format({"bold": True})
    amount = workbook.add_format({"num_format": "#,##0.00"})
    day = workbook.add_format({"num_format": "yyyy-mm-dd"})
    for index, column in enumerate(COLUMNS[report]):
        sheet.write(0, index, column, bold)
    for number, row in enumerate(rows, start=1):
        for index, column in enumerate(COLUMNS[report]):
            value = row[column]
            if column in MONEY_COLUMNS and isinstance(value, int):
                sheet.write_number(number, index, value / 100, amount)
            elif isinstance(value, dt.datetime):
                sheet.write_string(number, index, value.isoformat())
            elif isinstance(value, dt.date):
                sheet.write_datetime(number, index,
                                     dt.datetime.combine(value, dt.time()), day)
            else:
                sheet.write(number, index, cell(column, value))
    workbook.close()
    return buffer.getvalue()


EXPORT_FORMATS = ("csv", "xlsx")


@dataclass(frozen=True, slots=True)
class Exported:
    """A report file and the position of the event that records its export."""

    body: bytes
    rows: int
    sha256: str
    head_position: int
    position: int


def render(report: str, rows: Sequence[Mapping[str, Any]], format: str, *,
           created: dt.datetime | None = None) -> bytes:
    if format == "csv":
        return to_csv(report, rows)
    if format == "xlsx":
        return to_xlsx(report, rows, created=created)
    raise ValueError(f"unknown format {format!r}; one of {', '.join(EXPORT_FORMATS)}")


def export_report(report: str, first: dt.date, last: dt.date, *, format: str, actor: str,
                  at: dt.datetime | None = None) -> Exported:
    """Build a report at the current ledger head, render it, record the export.

    The rows are read up to the head read first, so the recorded head
    rebuilds the same rows later (`build(..., up_to=head_position)`); the
    event holds the SHA-256 of the bytes sent. Raises ValueError for an
    unknown report or format, or a range out of bounds (nothing recorded).
    """
    import hashlib

    from .commands import record_threshold_export
    from .journal import _created
    from .reading import head_at

    if format not in EXPORT_FORMATS:
        raise ValueError(f"unknown format {format!r}; one of {', '.join(EXPORT_FORMATS)}")
    head = head_at()
    rows = build(report, first, last, up_to=head)
    body = render(report, rows, format, created=_created(head))
    digest = hashlib.sha256(body).hexdigest()
    recorded = record_threshold_export(
        actor=actor, report=report, first=first, last=last, format=format, rows=len(rows),
        sha256=digest, size_bytes=len(body), head=head, at=at)
    return Exported(body=body, rows=len(rows), sha256=digest, head_position=head.position,
                    position=recorded.position)
