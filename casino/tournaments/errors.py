"""Tournament errors, each with a stable code (never renamed).

The engine's refusals keep their engine code under the `tournaments.`
prefix (`tournaments.wrong_phase`, `tournaments.not_in_play`,
`tournaments.deal_without_consent` ...: casino/tournaments/engine); they are
recorded as `tournaments.request_rejected` before they are raised; their
statuses are rows of casino.error_table (422, 409 for a wrong phase).
Refusals by the compliance pipeline (identity, age, self-exclusion, the
entry-fee cap) surface as `casino.compliance.errors.AttemptRejected`.
"""

from enum import StrEnum

from casino.errors import CodedError


class TournamentErrorCode(StrEnum):
    INVALID_REQUEST = "tournaments.invalid_request"
    UNKNOWN_TOURNAMENT = "tournaments.unknown_tournament"
    UNKNOWN_PAYOUT_TABLE = "tournaments.unknown_payout_table"
    """The venue's rulebook has no such payout table."""
    INSUFFICIENT_FUNDS = "tournaments.insufficient_funds"
    """The gaming account holds less than the price (no credit, 002:L3033)."""
    ACCOUNT_CEILING = "tournaments.account_ceiling"
    """A credit to a gaming account (not a deposit) committed while a payout was
    split at its ceiling (002:L3070); 409, nothing written: send it again.
    A tournament that changed under the request each time it was tried is
    the runner's `request.concurrent_update` (casino.runner)."""
    INVALID_SATELLITE_TARGET = "tournaments.invalid_satellite_target"
    """A satellite's target is unknown, in another currency, or priced other
    than the seat's value: 422 (not registering is its own code)."""
    TOURNAMENT_EXISTS = "tournaments.tournament_exists"
    """An announcement under a tournament id already announced: 409."""
    SATELLITE_TARGET_NOT_REGISTERING = "tournaments.satellite_target_not_registering"
    """A satellite's target tournament no longer takes registrations: 409."""
    FEE_SPLIT_DIFFERS = "tournaments.fee_split_differs"
    """An online buy-in split otherwise than the published table (001:L680-717): 422."""
    NOT_OVERDUE = "tournaments.not_overdue"
    """Not a HexaPro game past its days to be completed, or flagged already (001:L576): 409."""
    RULE_NOT_APPLIED = "tournaments.rule_not_applied"
    """A rulebook figure the tournament engine does not apply as written: 422."""
    SPECIAL_PRIZES_NOT_OFFERED = "tournaments.special_prizes_not_offered"
    """Special prizes announced under a rulebook that offers none (000:L3410-3413
    is the Veikkaus poker room's rule): 422, nothing written."""
    RULE = "tournaments.rule"
    """Prefix only: engine refusals are `tournaments.<engine code>`."""


class TournamentError(CodedError):
    """A tournament request refused; what it wrote, if anything, is said by the raiser."""
