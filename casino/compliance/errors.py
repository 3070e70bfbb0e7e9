"""Compliance errors: a refused attempt, and correction workflow errors."""

from enum import StrEnum

from casino.errors import CodedError


class ComplianceErrorCode(StrEnum):
    REJECTED = "compliance.rejected"
    INVALID_ATTEMPT = "compliance.invalid_attempt"
    UNKNOWN_CORRECTION = "compliance.unknown_correction"
    UNKNOWN_ALERT = "compliance.unknown_alert"
    SAME_PERSON = "compliance.approver_is_proposer"
    NOT_APPROVER = "compliance.not_an_approver"
    WRONG_STATE = "compliance.correction_not_pending"
    INVALID_CORRECTION = "compliance.invalid_correction"
    UNKNOWN_CASE = "compliance.unknown_case"
    INVALID_CASE = "compliance.invalid_case_request"
    CASE_TRANSITION = "compliance.case_transition_not_allowed"
    CASE_CLOSED = "compliance.case_closed"
    UNKNOWN_POSITION = "compliance.unknown_event_position"
    NOT_OFFICER = "compliance.not_a_compliance_officer"
    ALERT_HANDLED = "compliance.alert_already_handled"
    UNKNOWN_ACCOUNT = "compliance.unknown_account"
    """A correction names an account the ledger does not hold: 404."""


class ComplianceError(CodedError):
    """An operating error of the compliance app; see casino.errors."""



class AttemptRejected(ComplianceError):
    """A stake or transfer a rule forbids; its rejection event is committed."""

    def __init__(self, failure, rejection_position: int | None) -> None:
        super().__init__(
            ComplianceErrorCode.REJECTED, failure.message,
            rule=failure.code, limit_minor=failure.limit_minor,
            amount_minor=failure.amount_minor, rulebook=failure.rulebook,
            cite=failure.cite, hint=failure.hint, rejection_position=rejection_position,
        )
        self.failure = failure
