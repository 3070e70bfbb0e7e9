"""manage.py close_day --venue V --day D [--all-venues] [--preview]

Records the daily close of a venue's gaming day (reports.day_closed, once
per venue and day) and prints its figures; --preview computes it without
recording. Exit status 1 if a close does not reconcile.
"""

from __future__ import annotations

import datetime as dt
import json

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from casino.errors import CodedError
from casino.rules.models import Venue

from ...close import compute_close
from ...commands import close_day


class Command(BaseCommand):
    help = "Record (or preview) the daily close of a venue's gaming day."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--venue", help="venue code (or --all-venues)")
        parser.add_argument("--all-venues", action="store_true")
        parser.add_argument("--day", required=True, help="gaming day, ISO date")
        parser.add_argument("--preview", action="store_true", help="compute, do not record")
        parser.add_argument("--json", action="store_true", help="print the whole close")
        parser.add_argument("--actor", default="manage.py")
        parser.add_argument("--no-progress", action="store_true",
                            help="Hide the progress bar (shown on a terminal only).")

    def handle(self, *args, **options) -> None:
        try:
            day = dt.date.fromisoformat(options["day"])
        except ValueError:
            raise CommandError("--day must be an ISO date, e.g. 2026-06-16") from None
        if options["all_venues"]:
            venues = list(Venue.objects.values_list("code", flat=True))
        elif options["venue"]:
            venues = [options["venue"]]
        else:
            raise CommandError("give --venue or --all-venues")
        unreconciled = []
        for venue in tqdm(venues, unit="venue", desc="close_day", file=self.stderr._out,
                          disable=True if options["no_progress"] else None):
            try:
                if options["preview"]:
                    payload, position = compute_close(venue, day).payload(), None
                else:
                    recorded = close_day(venue=venue, gaming_day=day, actor=options["actor"])
                    payload, position = dict(recorded.payload), recorded.position
            except CodedError as error:
                raise CommandError(f"{venue}: {error.code}: {error.message}") from None
            if options["json"]:
                self.stdout.write(json.dumps({**payload, "position": position}, indent=2))
            else:
                self._summary(payload, position)
            if not payload["reconciled"]:
                unreconciled.append(venue)
        if unreconciled:
            raise CommandError(f"not reconciled: {', '.join(unreconciled)}")

    def _summary(self, payload: dict, position: int | None) -> None:
        where = f"event #{position}" if position else "preview"
        self.stdout.write(f"close {payload['venue']} {payload['gaming_day']} ({where}, head"
                          f" #{payload['head_position']}): reconciled="
                          f"{str(payload['reconciled']).lower()}, postings={payload['postings']}")
        for currency, figures in payload["figures"].items():
            for name, value in figures.items():
                if value not in (0, {}, []):
                    self.stdout.write(f"  {currency} {name}: {value}")
        for difference in payload["differences"]:
            self.stdout.write(f"  DIFFERENCE {difference}")
