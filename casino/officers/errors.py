"""Errors of the officers' screens, each with a stable code (never renamed)."""

from enum import StrEnum

from casino.errors import CodedError


class OfficerErrorCode(StrEnum):
    NOT_OFFICER = "officers.not_a_compliance_officer"
    PAYER_IS_APPROVER = "officers.jackpot_payer_is_approver"
    UNKNOWN_DECISION = "officers.unknown_jackpot_decision"
    JACKPOTS_UNAVAILABLE = "officers.jackpot_commands_unavailable"
    UNKNOWN_HIT = "officers.unknown_jackpot_hit"


class OfficerError(CodedError):
    """A request on the officers' screens refused; nothing was written."""
