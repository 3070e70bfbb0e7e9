"""manage.py open_book KEY [--database ALIAS]: open a book (issue 19, points 1 and 4).

The directory (`ledger_placement`, in `default`) hands out the book's id and
records the database that holds it (`default` unless --database names one
of the aliases of CASINO_BOOK_DATABASE_URLS). Opening a book that is open
in that database already prints it again; naming another database for an
open book is refused (move it with `manage.py move_book`). Run as the
tables' owner: opening a book is an operator's act.
"""

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections

from ledger.books import base_position
from ledger.placement import place_book


class Command(BaseCommand):
    help = "Open a ledger book (or show it if open) in a database the directory records."

    def add_arguments(self, parser) -> None:
        parser.add_argument("key", help="The book's key: 1 to 40 lower-case letters, digits,"
                                        " - or _, starting with a letter.")
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS, metavar="ALIAS",
                            help="The database alias that holds the book (default: default).")

    def handle(self, *args, **options) -> None:
        key, database = options["key"], options["database"]
        if database not in connections.settings:
            raise CommandError(f"no database alias {database!r}: add it to"
                               " CASINO_BOOK_DATABASE_URLS")
        try:
            book = place_book(key, database)
        except (ValueError, DatabaseError) as error:
            raise CommandError(f"open_book {key}: {error}") from error
        self.stdout.write(f"book {book.key}: id {book.id} in {database},"
                          f" {book.events} events, head {book.position - base_position(book.id)}")
