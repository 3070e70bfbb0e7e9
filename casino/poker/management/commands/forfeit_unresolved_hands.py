"""Void unresolved hands older than their rulebook's days, the pot to charity (001:L110).

The same job as the beat's `casino.poker.tasks.forfeit_unresolved`:
`python manage.py forfeit_unresolved_hands [--at ISO-8601]`.
"""

from __future__ import annotations

import datetime as dt

from django.core.management.base import BaseCommand, CommandError

from casino.poker.commands.forfeits import forfeit_unresolved_hands


class Command(BaseCommand):
    help = "Void unresolved poker hands past unresolved_stakes.void_after, stakes to charity."

    def add_arguments(self, parser):
        parser.add_argument("--at", help="business time (ISO 8601 with offset); default now")
        parser.add_argument("--actor", default="forfeit_unresolved_hands")

    def handle(self, *args, at=None, actor="forfeit_unresolved_hands", **options):
        moment = None
        if at:
            moment = dt.datetime.fromisoformat(at)
            if moment.tzinfo is None:
                raise CommandError("--at needs a UTC offset")
        results = forfeit_unresolved_hands(actor=actor, at=moment)
        for result in results:
            self.stdout.write(f"voided {result.hand_id}: stakes to charity")
        self.stdout.write(f"{len(results)} hand(s) forfeited")
