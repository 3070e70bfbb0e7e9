"""manage.py move_book KEY ALIAS: move a book to another database (issue 19, point 4).

Freezes the book's copy where it is (appends there are refused from then
on; the writers retry them against the new database once the directory
has switched), copies its events, postings and idempotency keys into
ALIAS through that database's own triggers, verifies the copy's chain and
head against the frozen one, then switches the directory
(`ledger.placement.move_book`). The old copy stays, frozen and readable.
Exits 1 when the copy does not verify (the directory then still names the
old database, whose copy stays frozen: see the README).
"""

from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, connections

from ledger.books import base_position
from ledger.errors import LedgerError
from ledger.placement import database_for, move_book


class Command(BaseCommand):
    help = "Move a ledger book to another database: freeze, copy, verify, switch."

    def add_arguments(self, parser) -> None:
        parser.add_argument("key", help="The book's key.")
        parser.add_argument("database", metavar="ALIAS", help="The database alias to move to.")

    def handle(self, *args, **options) -> None:
        key, database = options["key"], options["database"]
        if database not in connections.settings:
            raise CommandError(f"no database alias {database!r}: add it to"
                               " CASINO_BOOK_DATABASE_URLS")
        try:
            from_database = database_for(key)
            book = move_book(key, database)
        except (ValueError, RuntimeError, DatabaseError, LedgerError) as error:
            raise CommandError(f"move_book {key}: {error}") from error
        self.stdout.write(f"book {book.key}: moved from {from_database} to {database},"
                          f" {book.events} events, head {book.position - base_position(book.id)};"
                          f" the copy in {from_database} is frozen")
