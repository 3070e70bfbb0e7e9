"""manage.py books: every book, where it lives, how long it is (issue 19, point 4).

One line per book the directory places (ledger.placement.placed_books):
key, id, database, events, the head's local position (1, 2, 3.. within
the book; equal to the events, as a book's positions are gap-free, L2)
and whether that copy is frozen; then one line per frozen old
copy a move left behind (`previous_database`), with the head it kept.
A database that cannot be reached is named, not fatal.
"""

from django.core.management.base import BaseCommand
from django.db import DatabaseError, connections

from ledger.books import base_position
from ledger.placement import DIRECTORY, placed_books

HEADER = ("key", "id", "database", "events", "head", "frozen")


def _head(database: str, book: int) -> tuple[int, bool] | None:
    """The book's head position and read_only flag in `database` (None: not there)."""
    with connections[database].cursor() as cursor:
        cursor.execute("SELECT position, read_only FROM ledger_head WHERE id = %s", [book])
        return cursor.fetchone()


class Command(BaseCommand):
    help = "List the ledger's books: key, id, database, events, head position, frozen."

    def handle(self, *args, **options) -> None:
        rows = []
        with connections[DIRECTORY].cursor() as cursor:
            cursor.execute("SELECT book, previous_database FROM ledger_placement"
                           " WHERE previous_database IS NOT NULL")
            previous = dict(cursor.fetchall())
        for book, key, database in placed_books():
            copies = [database] + ([previous[book]] if book in previous else [])
            for copy in copies:
                try:
                    found = _head(copy, book)
                except (DatabaseError, KeyError) as error:
                    rows.append((key, str(book), copy, "?", "?", f"unreachable: {error}"))
                    continue
                if found is None:
                    rows.append((key, str(book), copy, "-", "-", "not open there"))
                    continue
                position, read_only = found
                events = position - base_position(book)
                label = copy if copy == database else f"{copy} (old copy)"
                rows.append((key, str(book), label, str(events), str(events),
                              "yes" if read_only else "no"))
        widths = [max(len(row[i]) for row in [HEADER, *rows]) for i in range(len(HEADER))]
        for row in [HEADER, *rows]:
            self.stdout.write("  ".join(cell.ljust(width)
                                        for cell, width in zip(row, widths)).rstrip())
