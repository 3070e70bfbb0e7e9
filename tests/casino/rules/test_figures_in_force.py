"""One way to read a rulebook's figures for a day: `figures_in_force`.

A figure with its own later effective date does not count before it: the
EU cash-payment cap (Regulation (EU) 2024/1624 art. 80) applies from
2027-07-10 and not a day earlier. The jackpots read their figures the same
way (they ignored effective dates before).
"""

import datetime as dt

from casino.jackpots.commands import BAD_BEAT, pool_config
from casino.rules import queries as rules

CAP = "aml.cash_payment.max"


def test_a_figure_counts_from_its_own_effective_date(venues):
    """The day before the cap's date it is not in force; on the day it is."""
    rulebook = rules.rulebook_in_force("ray-casino", dt.date(2027, 7, 10))
    assert rules.figures(rulebook)[CAP].effective_from == dt.date(2027, 7, 10)
    assert CAP not in rules.figures_in_force(rulebook, dt.date(2027, 7, 9))
    assert rules.figures_in_force(rulebook, dt.date(2027, 7, 10))[CAP].value == 10_000_00


def test_jackpot_terms_respect_effective_dates(venues):
    """A bad-beat base guarantee dated later is not the pool's base before that day."""
    day = dt.date(2026, 6, 16)
    rulebook = rules.rulebook_in_force("veikkaus-poker-room", day)
    key = "jackpot.bad_beat.base_guarantee"
    row = rules.figures(rulebook)[key]
    assert pool_config(rulebook, BAD_BEAT, day).base_guarantee_minor == row.value > 0
    row.effective_from = day + dt.timedelta(days=1)  # the cached row, this test only
    assert pool_config(rulebook, BAD_BEAT, day).base_guarantee_minor == 0
    assert pool_config(rulebook, BAD_BEAT, day + dt.timedelta(days=1)).base_guarantee_minor == row.value
