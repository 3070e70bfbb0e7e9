"""manage.py rebuild_projections: delete every projection row and replay the log.

It destroys projection rows only (balances, stream versions and every app's
tables), never an event, a posting or an idempotency record: those are
append-only and their triggers refuse it anyway. Before it deletes anything
it names the database it acts on and checks that the log there is whole
(positions 1..head), since a rebuild from a partial log would replace good
projections with a partial state.
"""

from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from tqdm import tqdm

from ledger.rebuild import rebuild_projections
from ledger.store import head


class Command(BaseCommand):
    help = ("DELETES every projection row (account balances, stream versions, players,"
            " tables, hands, pools, closes...) in the configured database and rebuilds"
            " them from the events alone. Events, postings and idempotency records are"
            " never touched. Refuses when the log is not whole (positions 1..head).")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--no-progress", action="store_true", help="Hide the progress bar.")

    def handle(self, *args, **options) -> None:
        database = connection.settings_dict["NAME"]
        total, _ = head()
        with connection.cursor() as cursor:
            cursor.execute("SELECT coalesce(min(position), 0), coalesce(max(position), 0),"
                           " count(*) FROM ledger_event")
            first, last, count = cursor.fetchone()
        whole = (count == total == last) and (first == 1 or total == 0)
        if not whole:
            raise CommandError(
                f"refusing to rebuild the projections of database {database!r}: its log is"
                f" not whole (head at {total}, events {first}..{last}, {count} rows)."
                " Run verify_ledger.")
        self.stderr.write(f"rebuild_projections: database {database!r}: deleting every"
                          f" projection row and replaying {total} events")
        with tqdm(total=total, unit="event", disable=options["no_progress"],
                  file=self.stderr._out) as bar:
            count = rebuild_projections(progress=bar.update)
        self.stdout.write(f"rebuild_projections: OK ({count} events)")
