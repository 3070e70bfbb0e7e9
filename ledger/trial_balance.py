"""The trial balance of a gaming day over every book, wherever it is placed
(issue 19, points 2 and 4).

Per book, read from the book's own database (the directory,
`ledger.placement`): per account (code, type, currency) the day's debits
and credits, its net for the day and its closing balance at the end of
the day. A posting's amount is positive for a debit, negative for a
credit (the log's convention); `net_minor` and `closing_minor` are in the
account's natural sign (a liability's balance grows with credits,
`ledger.models.natural_sign`). "At the end of the day" is every posting of
an event whose gaming day is that day or earlier: events carry their
gaming day, and a late event of an earlier day counts where it belongs.

Two checks, each a problem named in the result:

* each book's postings sum to zero per currency, over the day and up to
  its end (L3, per book: the writer and the insert trigger enforce it
  per event, so a non-zero sum names an edit made with the triggers off);
* clearing pairs net to zero: money moves between books through clearing
  accounts (`clearing/<A>/<B>/<CUR>` in book A, `clearing/<B>/<A>/<CUR>`
  in book B, ledger.transfers), so, at the end of the day, what A's
  clearing account says A owes B equals what B's says B is owed by A:
  their raw sums (debits less credits) add up to zero. A leg written in one
  book and not the other (a transfer left half done) shows here. Pending
  two-phase transfers hold their money in `pending/...` accounts, outside
  the pairs, so a pending transfer does not break a pair.

Each database is read in one REPEATABLE READ, read-only transaction, so the
books placed there are read at one moment; books on different servers are
read one server after the other (no snapshot spans servers). A moved book
is read from its current database, never from the frozen old copy.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import defaultdict
from dataclasses import dataclass

from django.db import connections, transaction

from .models import natural_sign

__all__ = ["AccountLine", "BookTrialBalance", "ClearingPair", "TrialBalance", "trial_balance"]

CLEARING_ACCOUNT = re.compile(
    r"^clearing/(?P<book>[a-z][a-z0-9_-]{0,39})/(?P<other>[a-z][a-z0-9_-]{0,39})"
    r"/(?P<currency>[A-Z]{3})$")


@dataclass(frozen=True, slots=True)
class AccountLine:
    """One account's day: debits and credits (both >= 0), net and closing in
    the account's natural sign."""

    code: str
    type: str
    currency: str
    debits_minor: int
    credits_minor: int
    net_minor: int
    closing_minor: int


@dataclass(frozen=True, slots=True)
class BookTrialBalance:
    """One book's lines, read from `database` when its head was `head_position`.

    `day_sums` and `closing_sums` are the raw sums (debits less credits) of
    all its postings per currency, over the day and up to its end: zero
    when the book balances.
    """

    book: int
    key: str
    database: str
    head_position: int
    lines: tuple[AccountLine, ...]
    day_sums: dict[str, int]
    closing_sums: dict[str, int]

    @property
    def balanced(self) -> bool:
        return not any(self.day_sums.values()) and not any(self.closing_sums.values())


@dataclass(frozen=True, slots=True)
class ClearingPair:
    """Book `book`'s clearing account with `other` and the other side's,
    as raw closing sums; `net_minor` is zero when the pair agrees."""

    book: str
    other: str
    currency: str
    book_raw_minor: int
    other_raw_minor: int

    @property
    def net_minor(self) -> int:
        return self.book_raw_minor + self.other_raw_minor


@dataclass(frozen=True, slots=True)
class TrialBalance:
    gaming_day: dt.date
    books: tuple[BookTrialBalance, ...]
    clearing: tuple[ClearingPair, ...]
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    def book(self, key: str) -> BookTrialBalance:
        """The trial balance of the book with this key."""
        for each in self.books:
            if each.key == key:
                return each
        raise KeyError(key)


# sum(bigint) is numeric in PostgreSQL (Decimal here): cast back, so money
# stays an integer of minor units.
_LINES = """
SELECT p.book, a.code, a.type, a.currency,
       coalesce(sum(p.amount_minor) FILTER (WHERE e.gaming_day = %(day)s
                                            AND p.amount_minor > 0), 0)::bigint,
       coalesce(-sum(p.amount_minor) FILTER (WHERE e.gaming_day = %(day)s
                                             AND p.amount_minor < 0), 0)::bigint,
       coalesce(sum(p.amount_minor), 0)::bigint
  FROM ledger_posting AS p
  JOIN ledger_event AS e ON e.position = p.event_id
  JOIN ledger_account AS a ON a.code = p.account_id
 WHERE p.book = ANY(%(books)s::smallint[]) AND e.gaming_day <= %(day)s
 GROUP BY p.book, a.code, a.type, a.currency
 ORDER BY p.book, a.code
"""

_SUMS = """
SELECT p.book, p.currency,
       coalesce(sum(p.amount_minor) FILTER (WHERE e.gaming_day = %(day)s), 0)::bigint,
       coalesce(sum(p.amount_minor), 0)::bigint
  FROM ledger_posting AS p
  JOIN ledger_event AS e ON e.position = p.event_id
 WHERE p.book = ANY(%(books)s::smallint[]) AND e.gaming_day <= %(day)s
 GROUP BY p.book, p.currency
"""


def trial_balance(gaming_day: dt.date) -> TrialBalance:
    """Return the trial balance of `gaming_day` over every placed book, with its checks."""
    from .placement import placed_books

    by_database: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for book, key, database in placed_books():
        by_database[database].append((book, key))
    results: list[BookTrialBalance] = []
    for database, placed in by_database.items():
        results.extend(_read_database(database, placed, gaming_day))
    results.sort(key=lambda each: each.book)
    problems = [f"book {each.key} ({each.database}): postings do not sum to zero: day"
                f" {_nonzero(each.day_sums)}, closing {_nonzero(each.closing_sums)}"
                for each in results if not each.balanced]
    pairs = _clearing_pairs(results)
    problems += [f"clearing {pair.book}/{pair.other} {pair.currency} does not net to zero:"
                 f" {pair.book_raw_minor} + {pair.other_raw_minor} = {pair.net_minor}"
                 for pair in pairs if pair.net_minor]
    return TrialBalance(gaming_day, tuple(results), tuple(pairs), tuple(problems))


def _read_database(database: str, placed: list[tuple[int, str]],
                   gaming_day: dt.date) -> list[BookTrialBalance]:
    ids = [book for book, _ in placed]
    parameters = {"day": gaming_day, "books": ids}
    outer = connections[database].in_atomic_block
    with transaction.atomic(using=database), connections[database].cursor() as cursor:
        if not outer:
            # One snapshot for the heads and the lines (inside a caller's
            # transaction, the caller's snapshot rules).
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        cursor.execute("SELECT id, position FROM ledger_head WHERE id = ANY(%s::smallint[])",
                       [ids])
        heads = dict(cursor.fetchall())
        cursor.execute(_LINES, parameters)
        line_rows = cursor.fetchall()
        cursor.execute(_SUMS, parameters)
        sum_rows = cursor.fetchall()
    lines: dict[int, list[AccountLine]] = defaultdict(list)
    for book, code, type_, currency, debits, credits, closing_raw in line_rows:
        sign = natural_sign(type_)
        lines[book].append(AccountLine(code, type_, currency, debits, credits,
                                       sign * (debits - credits), sign * closing_raw))
    day_sums: dict[int, dict[str, int]] = defaultdict(dict)
    closing_sums: dict[int, dict[str, int]] = defaultdict(dict)
    for book, currency, day_sum, closing_sum in sum_rows:
        day_sums[book][currency] = day_sum
        closing_sums[book][currency] = closing_sum
    return [BookTrialBalance(book, key, database, heads.get(book, 0), tuple(lines[book]),
                             day_sums[book], closing_sums[book])
            for book, key in placed]


def _clearing_pairs(results: list[BookTrialBalance]) -> list[ClearingPair]:
    """Every clearing account of a book, paired with the other book's side (0 if none)."""
    raw: dict[tuple[str, str, str], int] = {}
    for each in results:
        for line in each.lines:
            match = CLEARING_ACCOUNT.match(line.code)
            if match is None or match["book"] != each.key:
                continue
            # The raw sum (debits less credits) whatever the account's type.
            raw[match["book"], match["other"], match["currency"]] = (
                natural_sign(line.type) * line.closing_minor)
    pairs = []
    for (book, other, currency), amount in sorted(raw.items()):
        if (other, book, currency) in raw and (other, book) < (book, other):
            continue  # listed once, from the book whose key sorts first
        pairs.append(ClearingPair(book, other, currency, amount,
                                  raw.get((other, book, currency), 0)))
    return pairs


def _nonzero(sums: dict[str, int]) -> str:
    return ", ".join(f"{currency} {amount}" for currency, amount in sorted(sums.items())
                     if amount) or "0"
