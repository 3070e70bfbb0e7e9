"""manage.py verify_ledger: the chain, every balance, every projection.

Exits 1 naming the first bad position, account or projection row. On a
terminal a progress bar (tqdm, on stderr) counts the events of the chain
walk; --no-progress hides it.
"""

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from ledger.store import head
from ledger.verify import verify_ledger


class Command(BaseCommand):
    help = ("Recompute the ledger's hash chain, every balance from the postings and every "
            "projection by a rebuild into a scratch schema; report the first difference.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--no-progress", action="store_true", help="Hide the progress bar.")

    def handle(self, *args, **options) -> None:
        # disable=None: shown only when stderr is a terminal (not in logs or CI).
        with tqdm(total=head()[0], unit="event", desc="verify_ledger", file=self.stderr._out,
                  disable=True if options["no_progress"] else None) as bar:
            result = verify_ledger(progress=bar.update)
        if not result.ok:
            raise CommandError(str(result), returncode=1)
        self.stdout.write(str(result))
