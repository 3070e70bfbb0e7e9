"""manage.py resolve_transfers: finish every pending transfer between books.

Runs `ledger.transfers.resolve_pending`: a transfer book B received is
posted, one B refused is voided, one B has not decided past its
`expires_at` is refused at B and voided (the hold goes back to the source
account); the others stay pending. Prints the counts. Idempotent: a rerun
posts and voids nothing more. Beat runs it every minute
(`casino.ops.tasks.resolve_transfers`).

--now (ISO 8601 with an offset) resolves as of that time instead of the
clock (tests; catching up after an outage is the default run's job).
"""

import datetime as dt

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from ledger.transfers import resolve_pending


def _instant(text: str) -> dt.datetime:
    instant = dt.datetime.fromisoformat(text)
    if instant.tzinfo is None:
        raise ValueError(f"{text} has no UTC offset")
    return instant


class Command(BaseCommand):
    help = ("Post or void every pending transfer between books: received ones are posted, "
            "refused or expired ones voided.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--now", type=_instant, default=None,
                            help="Resolve as of this time (ISO 8601 with offset; default now).")
        parser.add_argument("--database", default=None,
                            help="Only the books placed in this database (default: every"
                                 " database that holds books).")

    def handle(self, *args, **options) -> None:
        now = options["now"] or timezone.now()
        try:
            counts = resolve_pending(now, using=options["database"])
        except Exception as error:  # noqa: BLE001 - an operator reads the reason
            raise CommandError(f"resolve_transfers: {error}") from error
        self.stdout.write(" ".join(f"{state}={count}" for state, count in counts.items()))
