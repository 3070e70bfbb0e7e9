"""manage.py verify_ledger: the chain, every balance, every projection.

Exits 1 naming the first bad position, account or projection row. On a
terminal a progress bar (tqdm, on stderr) counts the events of the chain
walk; --no-progress hides it.

Every book (ledger.books) is verified against its own seal file. With
--incremental each book starts from its own last seal and only the events
after it are read (ledger.verify), then each book that passes is sealed;
--audit N also re-reads the next N sealed events of each book (a rolling
window); --rate holds either walk to that many events a second.
"""

import os

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from ledger.books import books
from ledger.verify import verify_ledger


def _rate(text: str) -> float:
    rate = float(text)
    if not rate > 0:
        raise ValueError(text)
    return rate


class Command(BaseCommand):
    help = ("Recompute the ledger's hash chain, every balance from the postings and every "
            "projection by a rebuild into scratch tables; report the first difference.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--no-progress", action="store_true", help="Hide the progress bar.")
        parser.add_argument(
            "--incremental", action="store_true",
            help="Verify each book from its last seal (LEDGER_SEAL_FILE, one file per book):"
                 " the sealed position, then only the events after it and the balances they"
                 " move; seal each book that passes."
                 " Projections and edits hidden under unchanged hashes in the sealed part are"
                 " the full run's.")
        parser.add_argument(
            "--rate", type=_rate, metavar="EVENTS_PER_S",
            default=_rate(os.environ["LEDGER_VERIFY_RATE"])
            if os.environ.get("LEDGER_VERIFY_RATE") else None,
            help="Read at most this many events a second (default: the environment's"
                 " LEDGER_VERIFY_RATE, else unthrottled).")

        parser.add_argument(
            "--audit", type=int, metavar="EVENTS",
            default=int(os.environ.get("LEDGER_VERIFY_AUDIT_EVENTS") or 0),
            help="With --incremental, also re-read this many sealed events of each book against"
                 " its seals,"
                 " a rolling window that covers the sealed part over repeated runs (default:"
                 " the environment's LEDGER_VERIFY_AUDIT_EVENTS, else 0).")

    def handle(self, *args, **options) -> None:
        # disable=None: shown only when stderr is a terminal (not in logs or CI).
        with tqdm(total=sum(book.events for book in books()), unit="event",
                  desc="verify_ledger", file=self.stderr._out, disable=True if options["no_progress"] else None) as bar:
            result = verify_ledger(progress=bar.update, incremental=options["incremental"],
                                   rate=options["rate"], audit=options["audit"])
        if not result.ok:
            raise CommandError(str(result), returncode=1)
        self.stdout.write(str(result))
