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

    CASINO_VENUE_BOOKS_DEFAULT  "own" (default): every venue has a book of its
                                own, keyed by its code; "main": every venue
                                writes to the main book (the log as it was
                                before books)
    CASINO_VENUE_BOOKS          venue code -> book key, for venues that share
                                a book ("small venues may share one") or
                                keep the main book ("code=main"); default {}

A venue registered before per-venue books came to a database (the upgrade
that brought them, rules.VenueBooksSince) has its history on the main book
and keeps writing there under the default, so its numbering stays one
chain; a setting that names its book moves its new streams and accounts
there (its old ones stay where they are, reached across books).

Reads that take a position take it in the book they read: the cage's float
and a jackpot pool "as of" their own book's head, a write's `Location` in
its event's book (`?book=`), a replay's balances at the request's part in
each book, the reports every book up to its own head.

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
from django.db import connection, transaction

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
    return _configured(code)[0]


def _configured(code: str) -> tuple[str, bool]:
    """The venue's book key, and whether a setting names it (not the default)."""
    configured = getattr(settings, "CASINO_VENUE_BOOKS", {}) or {}
    if code in configured:
        return configured[code], True
    default = getattr(settings, "CASINO_VENUE_BOOKS_DEFAULT", OWN)
    if default != OWN:
        return default, False
    key = code.lower().replace(".", "_")
    if BOOK_KEY.match(key) and key != "main":
        return key, False
    # A code that is no book key (a leading digit, too long): a stable key of its own.
    return "v" + hashlib.sha256(code.encode()).hexdigest()[:20], False


def venue_book(code: str | None) -> int:
    """The id of the book a write at venue `code` goes to (main without a venue).

    Opens the book on first use; remembered for the life of the process (a
    book is never closed, and its id never changes). Under the default, a
    venue registered before per-venue books came to this database keeps the
    main book, where its history is (`history_on_main`).
    """
    if not code:
        return MAIN
    known = _books.get(code)
    if known is not None:
        return known
    key, named = _configured(code)
    if key == "main":
        return MAIN
    book = MAIN if not named and history_on_main(code) else ensure_book(key)
    # Remembered once the opening is committed: a transaction (or savepoint)
    # that opened the book and rolled back takes the book with it, and a
    # callback registered in it is dropped with it.
    transaction.on_commit(lambda: _remember(code, book))
    return book


def history_on_main(code: str) -> bool:
    """Whether the venue was registered before per-venue books came to this
    database (rules.VenueBooksSince): its events so far are on the main book,
    and it goes on there unless a setting names its book. A venue not
    registered (yet) has none."""
    from casino.rules.models import VenueBooksSince, Venue

    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT EXISTS (SELECT 1 FROM {Venue._meta.db_table} v"
            f" WHERE v.code = %s AND v.registered_position <= coalesce("
            f"(SELECT min(position) FROM {VenueBooksSince._meta.db_table}), 0))", [code])
        return cursor.fetchone()[0]


def _remember(code: str, book: int) -> None:
    with _lock:
        _books[code] = book


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
    """Refuse venue book settings the routing cannot use (casino.E019)."""
    default = getattr(settings, "CASINO_VENUE_BOOKS_DEFAULT", OWN)
    configured = getattr(settings, "CASINO_VENUE_BOOKS", {}) or {}
    problems = []
    if default not in (OWN, "main"):
        problems.append(f"CASINO_VENUE_BOOKS_DEFAULT is {default!r}, not 'own' or 'main'")
    problems += [f"CASINO_VENUE_BOOKS gives venue {code!r} the book {key!r}, which is no book"
                 " key (a lower-case letter, then up to 39 of a-z, 0-9, '_' and '-')"
                 for code, key in sorted(configured.items()) if not BOOK_KEY.match(str(key))]
    return [checks.Error(problem, hint="casino/books.py: the venue books' settings",
                         id="casino.E019") for problem in problems]
