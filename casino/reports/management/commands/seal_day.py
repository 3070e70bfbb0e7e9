"""manage.py seal_day --day D: verify the chain and seal a gaming day (once)."""

from __future__ import annotations

import datetime as dt

from django.core.management.base import BaseCommand, CommandError

from casino.errors import CodedError

from ...commands import seal_day


class Command(BaseCommand):
    help = "Verify the hash chain and record the seal of a gaming day."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--day", required=True, help="gaming day, ISO date")
        parser.add_argument("--actor", default="manage.py")

    def handle(self, *args, **options) -> None:
        try:
            day = dt.date.fromisoformat(options["day"])
        except ValueError:
            raise CommandError("--day must be an ISO date, e.g. 2026-06-16") from None
        try:
            result = seal_day(gaming_day=day, actor=options["actor"])
        except CodedError as error:
            raise CommandError(f"{error.code}: {error.message}") from None
        p = result.payload
        state = "already sealed" if result.replayed else "sealed"
        self.stdout.write(f"{day.isoformat()} {state} (event #{result.position}): head"
                          f" #{p['head_position']} {p['head_hash']}, day ends at"
                          f" #{p['day_last_position']}, {p['day_events']} events that day")
