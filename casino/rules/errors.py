"""Rulebook and venue errors, each with a stable code."""

from enum import StrEnum

from casino.errors import CodedError


class RulesErrorCode(StrEnum):
    INVALID_RULEBOOK = "rules.invalid_rulebook"
    VERSION_EXISTS = "rules.rulebook_version_exists"
    UNKNOWN_RULEBOOK = "rules.unknown_rulebook"
    NO_VERSION_IN_FORCE = "rules.no_rulebook_version_in_force"
    VENUE_EXISTS = "rules.venue_exists"
    UNKNOWN_VENUE = "rules.unknown_venue"
    INVALID_VENUE = "rules.invalid_venue"
    VENUE_TYPE_MISMATCH = "rules.venue_type_mismatch"
    """A registration names a venue type its rulebook is not for: 422."""


class RulesError(CodedError):
    """An operating error of the rules app; see casino.errors."""

