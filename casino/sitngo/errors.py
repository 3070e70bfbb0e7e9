"""Errors of the sit'n'go jackpots, each with a stable code (never renamed)."""

from enum import StrEnum

from casino.errors import CodedError


class SitngoErrorCode(StrEnum):
    INVALID_REQUEST = "sitngo.invalid_request"
    """A malformed series or record request: 400, nothing written."""
    UNKNOWN_SERIES = "sitngo.unknown_series"
    """No sit'n'go jackpot series with that id: 404."""
    UNKNOWN_TOURNAMENT = "sitngo.unknown_tournament"
    """No tournament with that id: 404."""
    NOT_ELIGIBLE = "sitngo.not_eligible"
    """The tournament is not a finished sit'n'go of the series' venue: 422."""
    ALREADY_RECORDED = "sitngo.already_recorded"
    """The tournament counts once for the series: 409."""


class SitngoError(CodedError):
    """A sit'n'go jackpot request refused; nothing was written."""
