"""Jackpot errors, each with a stable code (never renamed)."""

from enum import StrEnum

from casino.errors import CodedError


class JackpotErrorCode(StrEnum):
    UNKNOWN_POOL = "jackpots.unknown_pool"
    UNKNOWN_HIT = "jackpots.unknown_hit"
    DAY_NOT_CLOSED = "jackpots.gaming_day_not_closed"
    DAY_BEFORE_POOL = "jackpots.gaming_day_before_pool"
    EARLIER_DAY_NOT_ROLLED = "jackpots.earlier_gaming_day_not_rolled_up"
    DAY_ROLLED_UP = "jackpots.gaming_day_already_rolled_up"
    HIT_NOT_PENDING = "jackpots.hit_not_pending"
    HIT_NOT_APPROVED = "jackpots.hit_not_approved"
    EARLIER_HIT_OPEN = "jackpots.earlier_hit_open"
    INVALID_REQUEST = "jackpots.invalid_request"
    ACCOUNT_CEILING = "jackpots.account_ceiling"
    HIT_NOT_VERIFIED = "jackpots.hit_not_verified"
    INVALID_TERMS = "jackpots.invalid_terms"
    TERMS_FIXED_BY_RULEBOOK = "jackpots.terms_fixed_by_rulebook"
    PAYER_IS_APPROVER = "jackpots.payer_is_approver"
    RULE_NOT_APPLIED = "jackpots.rule_not_applied"


class JackpotError(CodedError):
    """A jackpot request refused; nothing was written.

    A stale pool after the runner's attempts is casino.runner's
    `request.concurrent_update` (RunnerError), as for every write.
    """
