"""manage.py client_key: issue, rotate or revoke a machine's API key.

    client_key issue --user cage-hki-1 --name "Helsinki cage 1" --venue casino-helsinki [--days 180]
    client_key rotate --prefix AbCd1234
    client_key revoke --prefix AbCd1234

The key is printed once (it is stored hashed only).
"""

import datetime as dt

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from casino.keys.models import DEFAULT_LIFETIME, ClientKey


class Command(BaseCommand):
    help = "Issue, rotate or revoke a machine's API key (printed once, stored hashed)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("action", choices=["issue", "rotate", "revoke"])
        parser.add_argument("--user")
        parser.add_argument("--name")
        parser.add_argument("--venue", action="append", default=[])
        parser.add_argument("--days", type=int, default=DEFAULT_LIFETIME.days)
        parser.add_argument("--prefix")

    def handle(self, *args, action: str, **options) -> None:
        lifetime = dt.timedelta(days=options["days"])
        if action == "issue":
            user = get_user_model().objects.filter(username=options["user"]).first()
            if user is None or not options["name"]:
                raise CommandError("give --user (an existing user) and --name")
            row, key = ClientKey.objects.issue(user=user, name=options["name"],
                                               venues=options["venue"], lifetime=lifetime)
        else:
            row = ClientKey.objects.filter(prefix=options["prefix"] or "").first()
            if row is None:
                raise CommandError(f"no key with prefix {options['prefix']!r}")
            if action == "revoke":
                ClientKey.objects.filter(pk=row.pk).update(revoked=True)
                self.stdout.write(f"revoked {row.prefix} ({row.name})")
                return
            row, key = ClientKey.objects.rotate(row, lifetime=lifetime)
        self.stdout.write(f"{row.prefix} {row.name} venues={row.venues or 'all'}"
                          f" expires={row.expiry_date:%Y-%m-%d}\n{key}")
