"""manage.py verify_ledger: the chain, every balance, every projection.

Exits 1 naming the first bad position, account or projection row.
"""

from django.core.management.base import BaseCommand, CommandError

from ledger.verify import verify_ledger


class Command(BaseCommand):
    help = ("Recompute the ledger's hash chain, every balance from the postings and every "
            "projection by a rebuild into a scratch schema; report the first difference.")

    def handle(self, *args, **options) -> None:
        result = verify_ledger()
        if not result.ok:
            raise CommandError(str(result), returncode=1)
        self.stdout.write(str(result))
