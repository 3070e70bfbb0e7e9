"""The daily close: what moved through a venue in one gaming day, reconciled.

`compute_close(venue, day)` reads the ledger (nothing else) at a head
(every book's position, each book read where it is placed and up to its own
head: casino/reports/reading.py) and returns the close; `commands.close_day` records it as the event
`reports.day_closed`. The close is built in three steps:

1. Attribute. Every event of the gaming day with postings belongs to one
   venue (chart.event_venue: the payload's venue, a venue-scoped account,
   the table or tournament the log says is the venue's); events no rule
   places are "unattributed" and are listed by the close of the day as a
   whole, never dropped.
2. Classify. Each posting of the venue's events goes to exactly one line
   (chart.close_line: by account-code pattern; the rake account's postings
   of poker time charges are their own line; anything unrecognised is
   `other`). A line keeps its posting count, gross debits and credits and
   its net (debit positive).
3. Reconcile, each figure against a sum computed another way:
   - lines_balance: the lines' nets sum to zero per currency (every event
     does, ledger L3, so the venue's events must too);
   - day_postings: the postings classified over all venues (and the
     unattributed) equal SQL's count and sum of the day's postings;
   - for each balance line (cash, float, stacks, pools, player accounts):
     closing by posting sums (SQL: gaming day <= day, position <= its book's head)
     equals closing by the account projection (ledger_account.balance less
     every posting after the head or of a later day), both in one SQL
     statement; and, for lines scoped to the venue, opening (SQL: days
     before) plus the line's movement equals that closing, which proves no
     other venue's event moved the venue's accounts.
   `reconciled` is true when every check holds; `differences` lists each
   failed check with both values.

Figures are in each line's business direction: revenue and liabilities
positive when the house earned or owes (the negated debit-positive net),
assets positive when held. Fills and credits are the slips of table-games
accounting (casino.tablegames): fills are the debits of fill slips to the
tables' trays, credits the debits of credit slips to the cage's chip bank,
the soft count the debits of soft counts to the cage's cash (issue 17 item
3); poker and house-game tables that players buy into directly have none.
Decision (player liabilities): a player has one gaming account for every
venue (casino/cage/commands.py, 002:L3064), so the close shows the day's
movement at this venue and the closing liability of all players, which is
the operator's; that line is reconciled two ways but not against the
venue's movement alone. Decision (books, issue 19): a venue's day may span books and servers. A
posting to another book's account is that book's companion event
(`ledger.crossbook_leg`), read as the event it completes (its payload's type
and stream) and attributed by its payload's venue, else its accounts'; each
book's part balances through the books' clearing accounts, so the venue's
lines still net to zero. The lines `clearing/<book>/<other>` (and
`pending/...`, two-phase holds) show what moved between books per currency,
movement only: a clearing account is its book's, shared by the venues it
holds, so no venue's opening or closing is claimed for it.
Decision (gaming day of a balance): "closing" is
every posting of an event whose gaming day is this day or earlier, as a
jackpot roll-up written after midnight still carries the day it rolled up
(000:L2872-2873).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

from django.db import connections

from ledger.read import natural_sign

from . import chart
from .reading import (
    Head,
    day_range_positions,
    day_range_where,
    entity_venues,
    head_at,
    iter_pages,
)

UNATTRIBUTED = "-"
FILL_MADE = "tablegames.fill_made"              # casino.tablegames.events
CREDIT_MADE = "tablegames.credit_made"
SOFT_COUNT_MADE = "tablegames.soft_count_made"
TABLE_EVENT_SOURCES = frozenset({FILL_MADE, CREDIT_MADE, SOFT_COUNT_MADE})
OTHER_ACCOUNTS_LISTED_MAX = 50
# A companion event of a posting across books (ledger.crossbook) is read as
# the event it completes: its payload's type and stream, so its postings go
# to the lines and sources (and venue) they would have had on one book.
EVENT_TYPE_SQL = (f"CASE WHEN e.type = '{chart.COMPANION_EVENT}' THEN e.payload->>'type'"
                  " ELSE e.type END")
EVENT_STREAM_SQL = (f"CASE WHEN e.type = '{chart.COMPANION_EVENT}' THEN e.payload->>'stream'"
                    " ELSE e.stream END")
NOTES = (
    "Fills and credits are table-games accounting's slips (casino.tablegames); poker"
    " and house-game tables that players buy into directly have none.",
    "Player accounts: one gaming account per player for every venue; the movement is"
    " this venue's, the closing liability is all players' (the operator's).",
    "Amounts in minor units. Lines: debit-positive nets; figures: in the business"
    " direction (revenue and liabilities positive).",
    "Between books: a venue's day may span books (issue 19); a posting to another"
    " book's account is that book's companion event, balanced through the books'"
    " clearing accounts. The lines `clearing/<book>/<other>` show what moved between"
    " them (their movement only: a clearing account is its book's, not the venue's).",
)


@dataclass(slots=True)
class Line:
    """One line of a close: a class of accounts in one currency."""

    line: str
    label: str
    kind: str
    currency: str
    postings: int = 0
    debit_minor: int = 0
    credit_minor: int = 0
    # Balance lines only (None for flows).
    scope: str | None = None            # "venue" | "operator"
    accounts: int | None = None
    opening_minor: int | None = None
    closing_minor: int | None = None    # by posting sums
    projection_closing_minor: int | None = None
    other_accounts: list[str] = field(default_factory=list)
    by_source: dict[str, int] = field(default_factory=dict)  # debits by app

    @property
    def net_minor(self) -> int:
        return self.debit_minor - self.credit_minor

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["net_minor"] = self.net_minor
        return {key: value for key, value in data.items()
                if value is not None and value != [] and value != {}}


@dataclass(frozen=True, slots=True)
class Close:
    """A computed close of one venue and gaming day (not yet recorded)."""

    venue: str
    gaming_day: dt.date
    head: Head
    lines: tuple[Line, ...]
    figures: dict[str, dict[str, Any]]
    checks: dict[str, bool]
    differences: tuple[dict[str, Any], ...]
    postings: int
    events: int
    notes: tuple[str, ...] = NOTES

    @property
    def reconciled(self) -> bool:
        return not self.differences and all(self.checks.values())

    def payload(self) -> dict[str, Any]:
        return {
            "venue": self.venue, "gaming_day": self.gaming_day.isoformat(),
            "head_position": self.head.position, "head_hash": self.head.hash,
            "heads": self.head.heads(),
            "reconciled": self.reconciled, "differences": list(self.differences),
            "checks": dict(self.checks), "lines": [line.as_dict() for line in self.lines],
            "figures": self.figures, "notes": list(self.notes), "postings": self.postings,
            "events": self.events,
        }


@dataclass(slots=True)
class _Venue:
    lines: dict[tuple[str, str], Line] = field(default_factory=dict)
    postings: int = 0
    events: int = 0


def compute_close(venue: str, day: dt.date, head: Head | None = None) -> Close:
    """Compute the close of `venue` for gaming day `day` at `head` (now).

    Reads only; raises nothing for an empty day (every line is zero).
    """
    head = head or head_at()
    entities = entity_venues(head)
    venues, day_totals = _scan_day(day, head, entities)
    mine = venues.get(venue, _Venue())
    differences: list[dict[str, Any]] = []
    checks: dict[str, bool] = {}

    lines = mine.lines
    if venue != UNATTRIBUTED:
        _add_balances(lines, venue, day, head, entities)
    ordered = tuple(sorted(lines.values(), key=lambda line: (line.currency, _order(line))))

    # lines_balance: the venue's lines net to zero per currency.
    nets: dict[str, int] = defaultdict(int)
    for line in ordered:
        nets[line.currency] += line.net_minor
    checks["lines_balance"] = not any(nets.values())
    for currency, total in sorted(nets.items()):
        if total:
            differences.append({"check": "lines_balance", "currency": currency,
                                "expected": 0, "actual": total, "difference": total})

    # day_postings: everything classified equals SQL's count and sums.
    classified_count = sum(v.postings for v in venues.values())
    classified_sums: dict[str, int] = defaultdict(int)
    for v in venues.values():
        for line in v.lines.values():
            classified_sums[line.currency] += line.net_minor
    sql_count, sql_sums = day_totals
    checks["day_postings"] = classified_count == sql_count and all(
        classified_sums.get(c, 0) == s for c, s in sql_sums.items())
    if classified_count != sql_count:
        differences.append({"check": "day_postings", "expected": sql_count,
                            "actual": classified_count,
                            "difference": classified_count - sql_count})
    for currency in sorted(set(sql_sums) | set(classified_sums)):
        expected, actual = sql_sums.get(currency, 0), classified_sums.get(currency, 0)
        if expected != actual:
            differences.append({"check": "day_postings_sum", "currency": currency,
                                "expected": expected, "actual": actual,
                                "difference": actual - expected})

    # Balance lines: two independent closings, and opening + movement.
    checks["balances_projection"] = True
    checks["balances_movement"] = True
    for line in ordered:
        if line.kind != chart.BALANCE or line.scope is None:
            continue
        if line.closing_minor != line.projection_closing_minor:
            checks["balances_projection"] = False
            differences.append({
                "check": "balance_projection", "line": line.line, "currency": line.currency,
                "expected": line.closing_minor, "actual": line.projection_closing_minor,
                "difference": line.projection_closing_minor - line.closing_minor})
        if line.scope == "venue" and line.opening_minor + line.net_minor != line.closing_minor:
            checks["balances_movement"] = False
            actual = line.opening_minor + line.net_minor
            differences.append({
                "check": "balance_movement", "line": line.line, "currency": line.currency,
                "expected": line.closing_minor, "actual": actual,
                "difference": actual - line.closing_minor})

    return Close(venue=venue, gaming_day=day, head=head, lines=ordered,
                 figures=_figures(ordered), checks=checks, differences=tuple(differences),
                 postings=mine.postings, events=mine.events)


def unattributed_close(day: dt.date, head: Head | None = None) -> Close:
    """The day's postings no venue rule placed, as a close of venue "-"."""
    return compute_close(UNATTRIBUTED, day, head)


def day_venues(day: dt.date, head: Head | None = None) -> list[str]:
    """The venues (and "-" for unattributed) with postings on the day."""
    head = head or head_at()
    venues, _ = _scan_day(day, head, entity_venues(head))
    return sorted(venues)


# ---------------------------------------------------------------------------


_LINE_ORDER = ("cage_cash", "bank_clearing", "chip_float", "player_accounts", "table_stacks",
               "game_stakes", "tournament_prize_pools", "tournament_bounties",
               "jackpot_pending", "jackpot_pool", "rake", "time_charges", "games",
               "commission", "tournament_fees", "tournament_prizes", "jackpot_funding",
               "clearing", "pending", "other")


def _order(line: Line) -> tuple[int, str]:
    head = line.line.partition("/")[0]
    return (_LINE_ORDER.index(head) if head in _LINE_ORDER else len(_LINE_ORDER), line.line)


def _scan_day(day: dt.date, head: Head, entities: dict[str, dict[str, str]]
              ) -> tuple[dict[str, _Venue], tuple[int, dict[str, int]]]:
    """Classify every posting of the day by venue and line (one pass, paged)."""
    venues: dict[str, _Venue] = {}
    where, params = day_range_where(day, day)
    select = (f"e.position, p.index, {EVENT_TYPE_SQL}, {EVENT_STREAM_SQL},"
              " e.payload->>'venue', p.account_id, p.amount_minor, p.currency")
    pending: list[tuple] = []   # the postings of the event being read

    def flush() -> None:
        if not pending:
            return
        _, _, event_type, stream, payload_venue = pending[0][:5]
        accounts = tuple(row[5] for row in pending)
        venue = chart.event_venue(stream=stream, payload_venue=payload_venue,
                                  accounts=accounts, entities=entities) or UNATTRIBUTED
        state = venues.setdefault(venue, _Venue())
        state.events += 1
        # Table-games accounting's events keep their type, so the figures can
        # tell fills, credits and soft counts from openings and closes.
        source = (event_type if event_type in TABLE_EVENT_SOURCES
                  else event_type.partition(".")[0])
        for row in pending:
            code, amount, currency = row[5], row[6], row[7]
            line_key, kind = chart.close_line(code, venue, event_type)
            line = state.lines.get((line_key, currency))
            if line is None:
                line = state.lines[(line_key, currency)] = Line(
                    line=line_key, label=chart.line_label(line_key), kind=kind,
                    currency=currency)
            line.postings += 1
            if amount > 0:
                line.debit_minor += amount
                line.by_source[source] = line.by_source.get(source, 0) + amount
            else:
                line.credit_minor -= amount
            if (line_key == chart.OTHER_LINE and code not in line.other_accounts
                    and len(line.other_accounts) < OTHER_ACCOUNTS_LISTED_MAX):
                line.other_accounts.append(code)
            state.postings += 1
        pending.clear()

    positions = day_range_positions(day, day, head)
    for page in ([] if positions is None else
                 iter_pages(select, where, params, head=head, positions=positions)):
        for row in page:
            if pending and pending[0][0] != row[0]:
                flush()
            pending.append(row)
    flush()

    count, sums = 0, defaultdict(int)
    for database in head.databases():
        bound, params = head.bound("e.position", database)
        with connections[database].cursor() as cursor:
            cursor.execute(
                "SELECT p.currency, count(*), sum(p.amount_minor) FROM ledger_posting p"
                " JOIN ledger_event e ON e.position = p.event_id"
                f" WHERE e.gaming_day = %s AND {bound} GROUP BY p.currency",
                [day, *params])
            for currency, rows, total in cursor.fetchall():
                count += rows
                sums[currency] += int(total)
    return venues, (count, dict(sums))


def _add_balances(lines: dict[tuple[str, str], Line], venue: str, day: dt.date,
                  head: Head, entities: dict[str, dict[str, str]]) -> None:
    """Fill opening and both closings of every balance line of the venue."""
    owned = {kind: {entity for entity, v in mapping.items() if v == venue}
             for kind, mapping in entities.items()}
    patterns = [f"cage/{venue}/%", f"bank/{venue}/%", f"jackpot/{venue}/%", "player/%",
                "table/%", "games/%", "tournament/%", "machine/%", f"voucher/{venue}/%"]
    # One statement, one snapshot: the projection's balances and the
    # posting sums cannot be skewed by an append committing in between.
    # The accounts first (the pattern index), then each account's sums
    # through its own (account, event) index: the cost is the postings of
    # these accounts, whatever plan a prepared statement settles on. (One
    # statement joining all postings under LIKE ANY ran for 40 minutes once
    # psycopg prepared it and the planner chose a generic plan.)
    # A posting carries its event's gaming day (migration 0009; the writer
    # files it): no join to the events, which a planner without statistics
    # made a scan of every event per account. Postings written before the
    # writer filed it (NULL) look their event's day up, by primary key.
    # Per database holding books: that database's books' accounts (not a
    # moved book's frozen copy), bounded by that database's books' heads.
    rows = []
    for database in head.databases():
        books = [book.book for book in head.book_heads() if book.database == database]
        bound, bound_params = head.bound("p.event_id", database)
        sql = (
            "WITH a AS MATERIALIZED ("
            "  SELECT code, type, currency, balance_minor FROM ledger_account"
            "  WHERE code LIKE ANY(%s) AND book = ANY(%s))"
            " SELECT a.code, a.type, a.currency, a.balance_minor,"
            " COALESCE(s.opening, 0), COALESCE(s.closing, 0), COALESCE(s.later, 0)"
            " FROM a LEFT JOIN LATERAL ("
            "  SELECT"
            f"   sum(p.amount_minor) FILTER (WHERE d.day < %s AND {bound})"
            "     AS opening,"
            f"   sum(p.amount_minor) FILTER (WHERE d.day <= %s AND {bound})"
            "     AS closing,"
            f"   sum(p.amount_minor) FILTER (WHERE d.day > %s OR NOT {bound})"
            "     AS later"
            "  FROM ledger_posting p CROSS JOIN LATERAL (SELECT COALESCE(p.gaming_day,"
            "   (SELECT e.gaming_day FROM ledger_event e WHERE e.position = p.event_id)) AS day) d"
            "  WHERE p.account_id = a.code"
            " ) s ON true"
        )
        with connections[database].cursor() as cursor:
            cursor.execute(sql, [patterns, books, day, *bound_params, day, *bound_params, day,
                                 *bound_params])
            rows += cursor.fetchall()
    for code, account_type, currency, balance_minor, opening, closing, later in rows:
        parts = chart.split(code)
        row = chart.chart_row(code, venue)
        if row is None or row.kind != chart.BALANCE:
            continue
        root_kind = chart.ENTITY_ACCOUNT_ROOTS.get(parts[0])
        if root_kind and parts[1] not in owned.get(root_kind, ()):
            continue
        line_key, _ = chart.close_line(code, venue, "")
        line = lines.get((line_key, currency))
        if line is None:
            line = lines[(line_key, currency)] = Line(
                line=line_key, label=chart.line_label(line_key), kind=chart.BALANCE,
                currency=currency)
        if line.accounts is None:
            line.scope = "operator" if line_key == "player_accounts" else "venue"
            line.accounts = 0
            line.opening_minor = line.closing_minor = line.projection_closing_minor = 0
        line.accounts += 1
        line.opening_minor += int(opening)
        line.closing_minor += int(closing)
        line.projection_closing_minor += natural_sign(account_type) * balance_minor - int(later)
    # A balance line with movement but no account row would be a ledger bug;
    # show it with zero balances so the movement check names it.
    for line in lines.values():
        if (line.kind == chart.BALANCE and line.accounts is None
                and line.line.partition("/")[0] not in chart.BETWEEN_BOOKS_LINES):
            line.scope = "operator" if line.line == "player_accounts" else "venue"
            line.accounts = 0
            line.opening_minor = line.closing_minor = line.projection_closing_minor = 0


def _figures(lines: tuple[Line, ...]) -> dict[str, dict[str, Any]]:
    """The headline figures per currency, derived from the lines."""
    figures: dict[str, dict[str, Any]] = {}
    for line in lines:
        f = figures.setdefault(line.currency, {
            "drop_minor": 0, "drop_by_source_minor": {}, "cash_paid_out_minor": 0,
            "fills_minor": 0, "credits_minor": 0, "rake_minor": 0, "time_charges_minor": 0,
            "games_result_minor": {}, "commission_minor": {}, "tournament_fees_minor": 0,
            "tournament_prizes_minor": 0, "jackpots": {}, "jackpot_top_ups_minor": 0,
            "chip_float_minor": 0, "table_stacks_minor": 0, "game_stakes_minor": 0,
            "tournament_pools_minor": 0, "player_accounts_movement_minor": 0,
            "player_liabilities_minor": 0, "house_result_minor": 0, "other_net_minor": 0,
            "other_accounts": [], "soft_count_drop_minor": 0, "table_win_minor": 0,
            "table_trays_minor": 0, "cashier_over_short_minor": 0,
        })
        head, _, sub = line.line.partition("/")
        if head == "cage_cash":
            f["drop_minor"] += line.debit_minor
            f["soft_count_drop_minor"] += line.by_source.get(SOFT_COUNT_MADE, 0)
            for source, amount in line.by_source.items():
                name = "cage" if source == "cage" else "tables" if source in (
                    "poker", "games", SOFT_COUNT_MADE) else source
                f["drop_by_source_minor"][name] = f["drop_by_source_minor"].get(name, 0) + amount
            f["cash_paid_out_minor"] += line.credit_minor
        elif head == "table_trays":
            f["fills_minor"] += line.by_source.get(FILL_MADE, 0)
            f["table_trays_minor"] += line.closing_minor or 0
        elif head == "chip_bank":
            f["credits_minor"] += line.by_source.get(CREDIT_MADE, 0)
        elif head == "table_win":
            f["table_win_minor"] -= line.net_minor
        elif head == "cage_over_short":
            f["cashier_over_short_minor"] -= line.net_minor
        elif head == "chip_float":
            f["chip_float_minor"] -= line.closing_minor
        elif head == "player_accounts":
            f["player_accounts_movement_minor"] -= line.net_minor
            f["player_liabilities_minor"] -= line.closing_minor
        elif head == "table_stacks":
            f["table_stacks_minor"] -= line.closing_minor
        elif head == "game_stakes":
            f["game_stakes_minor"] -= line.closing_minor
        elif head in ("tournament_prize_pools", "tournament_bounties"):
            f["tournament_pools_minor"] -= line.closing_minor
        elif head in ("jackpot_pending", "jackpot_pool"):
            jackpot = f["jackpots"].setdefault(sub, {
                "contributions_minor": 0, "rolled_up_minor": 0, "paid_out_minor": 0,
                "pool_credits_minor": 0, "pending_minor": 0, "pool_minor": 0})
            if head == "jackpot_pending":
                jackpot["contributions_minor"] += line.credit_minor
                jackpot["rolled_up_minor"] += line.debit_minor
                jackpot["pending_minor"] -= line.closing_minor
            else:
                jackpot["paid_out_minor"] += line.debit_minor
                jackpot["pool_credits_minor"] += line.credit_minor
                jackpot["pool_minor"] -= line.closing_minor
        elif head == "rake":
            f["rake_minor"] -= line.net_minor
        elif head == "time_charges":
            f["time_charges_minor"] -= line.net_minor
        elif head == "games":
            f["games_result_minor"][sub] = f["games_result_minor"].get(sub, 0) - line.net_minor
        elif head == "commission":
            f["commission_minor"][sub] = f["commission_minor"].get(sub, 0) - line.net_minor
        elif head == "tournament_fees":
            f["tournament_fees_minor"] -= line.net_minor
        elif head == "tournament_prizes":
            f["tournament_prizes_minor"] += line.net_minor
        elif head == "jackpot_funding":
            f["jackpot_top_ups_minor"] += line.net_minor
        elif head in chart.BETWEEN_BOOKS_LINES:
            moved = f.setdefault("between_books_minor", {})
            moved[line.line] = moved.get(line.line, 0) + line.net_minor
        elif head == chart.OTHER_LINE:
            f["other_net_minor"] += line.net_minor
            f["other_accounts"] = sorted(set(f["other_accounts"]) | set(line.other_accounts))
        if head in ("rake", "time_charges", "games", "commission", "tournament_fees",
                    "tournament_prizes", "jackpot_funding", "table_win", "cage_over_short"):
            f["house_result_minor"] -= line.net_minor
    return figures
