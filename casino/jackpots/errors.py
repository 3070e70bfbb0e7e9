"""Jackpot errors, each with a stable code (never renamed)."""

from enum import StrEnum

from casino.errors import CodedError


class JackpotErrorCode(StrEnum):
    UNKNOWN_POOL = "unknown_jackpot_pool"
    UNKNOWN_HIT = "unknown_jackpot_hit"
    DAY_NOT_CLOSED = "gaming_day_not_closed"
    DAY_BEFORE_POOL = "gaming_day_before_pool"
    EARLIER_DAY_NOT_ROLLED = "earlier_gaming_day_not_rolled_up"
    DAY_ROLLED_UP = "gaming_day_already_rolled_up"
    HIT_NOT_PENDING = "jackpot_hit_not_pending"
    HIT_NOT_APPROVED = "jackpot_hit_not_approved"
    EARLIER_HIT_OPEN = "earlier_jackpot_hit_open"
    INVALID_REQUEST = "invalid_jackpot_request"
    ACCOUNT_CEILING = "account_ceiling"
    HIT_NOT_VERIFIED = "jackpot_hit_not_verified"
    INVALID_TERMS = "invalid_jackpot_terms"
    TERMS_FIXED_BY_RULEBOOK = "jackpot_terms_fixed_by_rulebook"


class JackpotError(CodedError):
    """A jackpot request refused; nothing was written.

    A stale pool after the runner's attempts is casino.runner's
    `concurrent_update` (RunnerError), as for every write.
    """
