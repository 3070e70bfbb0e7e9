"""The business clock: what "now" means for every casino command.

Commands take an explicit `at`; when none is given (the API never gives
one) they ask `now()`. Tests pin it (tests/casino/conftest.py) so that rules
of the clock, such as the 00:00-06:00 transfer blackout, behave the same
whatever hour the suite runs at. The ledger's own timestamps stay the
database's.
"""

import datetime as dt

from django.conf import settings
from django.utils import timezone


def now() -> dt.datetime:
    return timezone.now()


def operator_day(moment: dt.datetime) -> dt.date:
    """The operator's calendar day of a moment, in the project's zone.

    For events that concern no venue (a player's identity, a rulebook, a
    correction between accounts, a chain verification). Decision: those
    belong to the operator, whose books keep the project's zone
    (settings.TIME_ZONE); an event about a venue takes the venue's own
    gaming day (casino.rules.queries.venue_day) instead.
    """
    import zoneinfo

    return moment.astimezone(zoneinfo.ZoneInfo(settings.TIME_ZONE)).date()
