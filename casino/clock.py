"""The business clock: what "now" means for every casino command.

Commands take an explicit `at`; when none is given (the API never gives
one) they ask `now()`. Tests pin it (tests/casino/conftest.py) so that rules
of the clock, such as the 00:00-06:00 transfer blackout, behave the same
whatever hour the suite runs at. The ledger's own timestamps stay the
database's.
"""

import datetime as dt

from django.utils import timezone


def now() -> dt.datetime:
    return timezone.now()
