"""Rulebook and venue errors, each with a stable code."""

from enum import StrEnum

from casino.errors import CodedError


class RulesErrorCode(StrEnum):
    INVALID_RULEBOOK = "invalid_rulebook"
    VERSION_EXISTS = "rulebook_version_exists"
    UNKNOWN_RULEBOOK = "unknown_rulebook"
    NO_VERSION_IN_FORCE = "no_rulebook_version_in_force"
    VENUE_EXISTS = "venue_exists"
    UNKNOWN_VENUE = "unknown_venue"
    INVALID_VENUE = "invalid_venue"


class RulesError(CodedError):
    """An operating error of the rules app; see casino.errors."""

