"""Pure rules of the jackpots: payout shares, the hit detector, gaming days.

No Django here; `casino.jackpots.commands` loads the rulebook figures and
calls these.
"""

from .days import (
    closed_days_after,
    day_end_at,
    day_length,
    day_of,
    day_start_at,
    last_closed_day,
    next_rollup_at,
)
from .hits import VARIANT_CRITERIA, Criteria, Hit, ShownHand, Verdict, detect, threshold_value
from .shares import ShareRule, Shares, amounts, percent_text, shares

__all__ = [
    "Criteria", "Hit", "ShareRule", "Shares", "ShownHand", "VARIANT_CRITERIA", "Verdict",
    "amounts", "closed_days_after", "day_end_at", "day_length", "day_of", "day_start_at",
    "detect", "last_closed_day", "next_rollup_at", "percent_text", "shares",
    "threshold_value",
]
