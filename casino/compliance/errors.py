"""Compliance errors: a refused attempt, and correction workflow errors."""

from enum import StrEnum

from casino.errors import CodedError


class ComplianceErrorCode(StrEnum):
    REJECTED = "compliance_rejected"
    INVALID_ATTEMPT = "invalid_attempt"
    UNKNOWN_CORRECTION = "unknown_correction"
    UNKNOWN_ALERT = "unknown_alert"
    SAME_PERSON = "approver_is_proposer"
    NOT_APPROVER = "not_an_approver"
    WRONG_STATE = "correction_not_pending"
    INVALID_CORRECTION = "invalid_correction"
    UNKNOWN_CASE = "unknown_case"
    INVALID_CASE = "invalid_case_request"
    CASE_TRANSITION = "case_transition_not_allowed"
    CASE_CLOSED = "case_closed"
    UNKNOWN_POSITION = "unknown_event_position"
    NOT_OFFICER = "not_a_compliance_officer"
    ALERT_HANDLED = "alert_already_handled"


class ComplianceError(CodedError):
    """An operating error of the compliance app; see casino.errors."""



class AttemptRejected(ComplianceError):
    """A stake or transfer a rule forbids; its rejection event is committed."""

    def __init__(self, failure, rejection_position: int | None) -> None:
        super().__init__(
            ComplianceErrorCode.REJECTED, failure.message, status=422,
            rule=failure.code, limit_minor=failure.limit_minor,
            amount_minor=failure.amount_minor, rulebook=failure.rulebook,
            cite=failure.cite, hint=failure.hint, rejection_position=rejection_position,
        )
        self.failure = failure
