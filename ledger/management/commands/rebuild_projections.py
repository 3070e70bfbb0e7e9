"""manage.py rebuild_projections: replay the log into every projection."""

from django.core.management.base import BaseCommand
from tqdm import tqdm

from ledger.rebuild import rebuild_projections
from ledger.store import head


class Command(BaseCommand):
    help = "Reset every projection and rebuild it from the events alone."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--no-progress", action="store_true", help="Hide the progress bar.")

    def handle(self, *args, **options) -> None:
        total, _ = head()
        with tqdm(total=total, unit="event", disable=options["no_progress"],
                  file=self.stderr._out) as bar:
            count = rebuild_projections(progress=bar.update)
        self.stdout.write(f"rebuild_projections: OK ({count} events)")
