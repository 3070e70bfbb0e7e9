"""manage.py ledger_partitions: the log's monthly partitions (ledger.partitions).

    ledger_partitions ensure --months N   this month's and the next N months'
    ledger_partitions detach --before YYYY-MM
                                          archive every month before that one
    ledger_partitions list                partitions, rows, archived ranges

Run as the tables' owner (the runtime role may neither create nor detach
partitions). `detach` prints what it archived; the detached tables stay in
the database, append-only, until the operator dumps and drops them.
"""

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS

from ledger import partitions


class Command(BaseCommand):
    help = "Create, list or detach (archive) the monthly partitions of the ledger's log."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--database", default=DEFAULT_DB_ALIAS,
                            help="The Django database alias that holds the books.")
        actions = parser.add_subparsers(dest="action", required=True)
        ensure = actions.add_parser("ensure", help="Create this month's and the next months'.")
        ensure.add_argument("--months", type=int, default=3,
                            help=f"Months ahead of this one (0..{partitions.MONTHS_AHEAD_MAX}).")
        detach = actions.add_parser("detach", help="Detach every month before --before.")
        detach.add_argument("--before", required=True, help="The first month kept (YYYY-MM).")
        actions.add_parser("list", help="Partitions with their rows, and the archived ranges.")

    def handle(self, *args, **options) -> None:
        using = options["database"]
        action = options["action"]
        if action == "ensure":
            try:
                created = partitions.ensure_months(options["months"], using=using)
            except ValueError as error:
                raise CommandError(str(error)) from error
            for name in created:
                self.stdout.write(f"created {name}")
            self.stdout.write(f"ensure: {len(created)} partitions created")
        elif action == "detach":
            try:
                month = partitions.parse_month(options["before"])
                ranges = partitions.detach_before(month, using=using)
            except (ValueError, partitions.PartitionError) as error:
                raise CommandError(str(error)) from error
            for r in ranges:
                self.stdout.write(
                    f"archived book {r.book} {r.month:%Y-%m}: positions {r.first_position}"
                    f"..{r.last_position} ({r.events} events) as {r.archived_as},"
                    f" last hash {r.last_hash}")
            self.stdout.write(f"detach: {len(ranges)} ranges archived")
        else:
            for p in partitions.list_partitions(using=using):
                month = "DEFAULT" if p.month is None else f"{p.month:%Y-%m}"
                self.stdout.write(f"{p.parent} {month} {p.name} rows={p.rows}")
            for r in partitions.archived_ranges(using=using):
                self.stdout.write(
                    f"archived book {r.book} {r.month:%Y-%m} positions {r.first_position}"
                    f"..{r.last_position} as {r.archived_as}")
