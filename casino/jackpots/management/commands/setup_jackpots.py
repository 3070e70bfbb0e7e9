"""Open the jackpot pools of every registered venue whose rulebook has one.

    manage.py setup_jackpots [--venue CODE] [--rollup]

A venue has a bad-beat pool when its rulebook in force has bad-beat or
jackpot-drop figures (veikkaus-poker-room, ray-casino, olympic-tallinn), and
a progressive pool per row of `jackpots.progressive.pools` (ray-casino: the
THB and UTH progressives).
Pending accounts poker opened without a pool get one too. Idempotent.
`--rollup` then rolls up every closed gaming day (what the beat does).
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from casino import clock
from casino.jackpots import commands
from casino.jackpots.accounts import BAD_BEAT
from casino.rules import queries as rules
from casino.rules.models import Figure, Venue


class Command(BaseCommand):
    help = "Open jackpot pools from the rulebooks (idempotent); optionally roll up."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--venue", help="Only this venue.")
        parser.add_argument("--rollup", action="store_true",
                            help="Roll up every closed gaming day afterwards.")

    def handle(self, *args, venue=None, rollup=False, **options) -> None:
        venues = Venue.objects.filter(code=venue) if venue else Venue.objects.all()
        for place in venues:
            rulebook = rules.rulebook_in_force(place.rulebook_id, clock.now().date())
            has_jackpot = Figure.objects.filter(rulebook=rulebook).filter(
                figure_key__startswith="jackpot.").exists()
            if has_jackpot:
                result = commands.ensure_pool(venue=place.code, kind=BAD_BEAT, actor="setup")
                verb = "opened" if result.created else "exists"
                self.stdout.write(f"{result.key}: {verb}")
            for result in commands.ensure_progressive_pools(venue=place.code, actor="setup"):
                verb = "opened" if result.created else "exists"
                self.stdout.write(f"{result.key}: {verb}")
        for result in commands.ensure_pools_for_pending_accounts(actor="setup"):
            self.stdout.write(f"{result.key}: opened (pending account)")
        if rollup:
            from casino.jackpots.models import JackpotPool

            for pool in JackpotPool.objects.all():
                rolled = commands.rollup_closed_days(venue=pool.venue, kind=pool.kind,
                                                     actor="setup")
                self.stdout.write(f"{pool.key}: {len(rolled)} day(s) rolled up")
