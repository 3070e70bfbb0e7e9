"""manage.py verify_ledger: walk the hash chain; exit 1 at the first break."""

from django.core.management.base import BaseCommand, CommandError

from ledger.verify import verify_chain


class Command(BaseCommand):
    help = "Recompute the ledger's hash chain and report the first bad position."

    def handle(self, *args, **options) -> None:
        result = verify_chain()
        if not result.ok:
            raise CommandError(str(result), returncode=1)
        self.stdout.write(str(result))
