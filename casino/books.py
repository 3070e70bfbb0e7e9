"""Which ledger book a casino write goes to (issue 19): by default one per venue.

A venue keeps its own gap-free, verifiable numbering, as venues keep their
own books: the streams and accounts of a venue's tables, cage, machines,
jackpots and house live on the venue's book. What is the operator's, not a
venue's, lives on the main book: the player's one gaming account
(002:L3064: one account per player, whatever the venue) and the player's
stream, the rulebooks, the venues' registry, webhooks, cases, corrections.
A command at a venue that also touches the operator's records is written
across both books in one transaction (`ledger.crossbook`): each event on its
stream's book, a posting to the other book's account through clearing
accounts.

Settings (decisions; the seeds say nothing of how a ledger is partitioned):

    CASINO_VENUE_BOOKS          venue code -> book key, for venues that share
                                a book ("small venues may share one") or
                                keep the main book; default {}
    CASINO_VENUE_BOOKS_DEFAULT  "main" (default): every venue writes to the
                                main book (the log as it was before books);
                                "own": every other venue has a book of its
                                own, keyed by its code

Not yet for production, and refused by the system check casino.E019:
the ledger, the write path and the reports are book-aware (the daily
close, journals, thresholds and seals read every book up to its own head,
tests/casino/reports/test_venue_books_close.py), but some app reads still
take one position for the whole log (a position orders its own book only:
the cage's float "as of" the main head, "the last event" by position on
screens) and many tests expect a request to be one event on one book.
Until those read a head per book, "main" is the only safe setting.

A venue's book is opened on its first write (`ledger_open_venue_book`,
migration 0013: the runtime role may open a book in the main database, never
move or rewrite one). Where a book lives is the directory's business
(`manage.py move_book`).
"""

from __future__ import annotations

import hashlib
import re
import threading

from django.conf import settings
from django.core import checks
from django.db import transaction

from ledger import ensure_book

MAIN = 1
OWN = "own"
BOOK_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")

# Stream and account prefixes of the operator's records: always the main book.
OPERATOR_STREAMS = ("player/", "rulebook/", "venue/", "webhook/", "case/", "correction/",
                    "account/player/")
OPERATOR_ACCOUNTS = ("player/",)

_books: dict[str, int] = {}
_lock = threading.Lock()


def book_key_for_venue(code: str) -> str:
    """The key of the venue's book under the settings (a shared book's, or its own)."""
    configured = getattr(settings, "CASINO_VENUE_BOOKS", {}) or {}
    if code in configured:
        return configured[code]
    default = getattr(settings, "CASINO_VENUE_BOOKS_DEFAULT", "main")
    if default != OWN:
        return default
    key = code.lower().replace(".", "_")
    if BOOK_KEY.match(key) and key != "main":
        return key
    # A code that is no book key (a leading digit, too long): a stable key of its own.
    return "v" + hashlib.sha256(code.encode()).hexdigest()[:20]


def venue_book(code: str | None) -> int:
    """The id of the book a write at venue `code` goes to (main without a venue).

    Opens the book on first use; remembered for the life of the process (a
    book is never closed, and its id never changes).
    """
    if not code:
        return MAIN
    key = book_key_for_venue(code)
    if key == "main":
        return MAIN
    known = _books.get(key)
    if known is not None:
        return known
    book = ensure_book(key)
    # Remembered once the opening is committed: a transaction (or savepoint)
    # that opened the book and rolled back takes the book with it, and a
    # callback registered in it is dropped with it.
    transaction.on_commit(lambda: _remember(key, book))
    return book


def _remember(key: str, book: int) -> None:
    with _lock:
        _books[key] = book


def stream_book(stream: str) -> int | None:
    """The book a NEW stream opens in: the operator's on main, else None: the
    write's own book, or the book of the streams whose versions it checks
    (ledger.crossbook)."""
    return MAIN if stream.startswith(OPERATOR_STREAMS) else None


def account_book(code: str, home: int) -> int:
    """The book a NEW account opens in: a player's on main, else the write's own."""
    return MAIN if code.startswith(OPERATOR_ACCOUNTS) else home


def forget() -> None:
    """Forget the venues' books (a test's database was rolled back)."""
    with _lock:
        _books.clear()


# It reads settings only, so it carries no tag; it runs with every command
# that checks (runserver, migrate, `manage.py check`).
@checks.register()
def venue_books_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """Refuse per-venue books outside the tests until the apps' reads span books."""
    default = getattr(settings, "CASINO_VENUE_BOOKS_DEFAULT", "main")
    configured = getattr(settings, "CASINO_VENUE_BOOKS", {}) or {}
    if default == "main" and all(book == "main" for book in configured.values()):
        return []
    return [checks.Error(
        "per-venue books are not ready for production",
        hint="The ledger, the command runner and the reports handle venue books, but some app"
             " reads still take one position for the whole log (casino/books.py). Set"
             " CASINO_VENUE_BOOKS_DEFAULT=main and leave CASINO_VENUE_BOOKS unset.",
        id="casino.E019")]
