"""manage.py load_rulebooks: load every shipped rulebook file (idempotent)."""

from django.core.management.base import BaseCommand, CommandError

from casino.rules.commands import load_shipped_rulebooks
from casino.rules.errors import RulesError


class Command(BaseCommand):
    help = "Load casino/rules/data/*.toml as rulebook events; unchanged files write nothing."

    def handle(self, *args, **options) -> None:
        try:
            loaded = load_shipped_rulebooks()
        except RulesError as error:
            raise CommandError(error.message) from None
        for version, new in loaded:
            state = "loaded" if new else "already loaded"
            self.stdout.write(f"{version.rulebook_id} v{version.version}: {state}")
