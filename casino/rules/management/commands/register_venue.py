"""manage.py register_venue: register a venue, or change one, through the command runner.

    manage.py register_venue CODE --name NAME --rulebook RULEBOOK --type TYPE
                             [--adults-only] [--gaming-day-start HH:MM] [--actor NAME]
    manage.py register_venue CODE --change [--name NAME] [--adults-only | --open-entry]

The type (gaming_hall, partner_premises, casino, online, ...) must be the
rulebook's; `--adults-only` posts an 18+ entry at partner premises
(002:L1401, L3371). The actor is recorded as the writer; the idempotency
key is derived from the arguments, so running the same line twice
registers once.
"""

import datetime as dt
import hashlib

from django.core.management.base import BaseCommand, CommandError

from casino.errors import CodedError
from casino.rules.commands import SOURCE, change_venue, register_venue
from casino.rules.models import VenueType
from ledger import Metadata


class Command(BaseCommand):
    help = "Register a venue (hall, partner premises 18+ or not, casino, online) or change one."

    def add_arguments(self, parser) -> None:
        parser.add_argument("code")
        parser.add_argument("--name")
        parser.add_argument("--rulebook", dest="rulebook_id")
        parser.add_argument("--type", dest="venue_type", choices=VenueType.values)
        entry = parser.add_mutually_exclusive_group()
        entry.add_argument("--adults-only", action="store_true", default=None)
        entry.add_argument("--open-entry", action="store_true", default=None)
        parser.add_argument("--gaming-day-start")
        parser.add_argument("--change", action="store_true")
        parser.add_argument("--actor", default="manage.py")

    def handle(self, *args, **options) -> None:
        metadata = Metadata(actor=options["actor"], source=SOURCE)
        adults_only = (True if options["adults_only"] else
                       False if options["open_entry"] else None)
        key = "manage/register_venue/" + hashlib.sha256(
            repr(sorted((k, v) for k, v in options.items()
                        if k in ("code", "name", "rulebook_id", "venue_type", "adults_only",
                                 "open_entry", "gaming_day_start", "change"))).encode()
        ).hexdigest()[:32]
        try:
            if options["change"]:
                venue = change_venue(code=options["code"], name=options["name"],
                                     adults_only=adults_only, metadata=metadata,
                                     idempotency_key=key)
                self.stdout.write(f"{venue.code}: changed ({venue.name},"
                                  f" adults only: {venue.adults_only})")
                return
            missing = [flag for flag, name in (("--name", "name"), ("--rulebook", "rulebook_id"),
                                               ("--type", "venue_type"))
                       if not options[name]]
            if missing:
                raise CommandError(f"registering a venue needs {', '.join(missing)}")
            start = options["gaming_day_start"]
            venue = register_venue(
                code=options["code"], name=options["name"], rulebook_id=options["rulebook_id"],
                venue_type=options["venue_type"], adults_only=bool(adults_only),
                gaming_day_start=dt.time.fromisoformat(start) if start else None,
                metadata=metadata, idempotency_key=key)
        except CodedError as error:
            raise CommandError(f"{error.code}: {error.message}") from None
        except ValueError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"{venue.code}: registered as {venue.venue_type} under"
                          f" {venue.rulebook_id} (adults only: {venue.adults_only})")
