"""Raise a compliance alert for each HexaPro game past its days to be completed (001:L576).

The same job as the beat's `casino.tournaments.tasks.flag_unfinished_hexapro`:
`python manage.py flag_unfinished_hexapro [--at ISO-8601]`.
"""

from __future__ import annotations

import datetime as dt

from django.core.management.base import BaseCommand, CommandError

from casino.tournaments.unfinished import flag_unfinished_hexapro_games


class Command(BaseCommand):
    help = "Alert on HexaPro games not completed within hexapro.unfinished.settle_within days."

    def add_arguments(self, parser):
        parser.add_argument("--at", help="business time (ISO 8601 with offset); default now")
        parser.add_argument("--actor", default="flag_unfinished_hexapro")

    def handle(self, *args, at=None, actor="flag_unfinished_hexapro", **options):
        moment = None
        if at:
            moment = dt.datetime.fromisoformat(at)
            if moment.tzinfo is None:
                raise CommandError("--at needs a UTC offset")
        alerts = flag_unfinished_hexapro_games(actor=actor, at=moment)
        for alert in alerts:
            self.stdout.write(f"flagged {alert.tournament_id}: not completed within"
                              f" {alert.days} days")
        self.stdout.write(f"{len(alerts)} game(s) flagged")
