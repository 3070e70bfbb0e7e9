"""Errors of table-games accounting, each with a stable code (never renamed)."""

from enum import StrEnum

from casino.errors import CodedError


class TableGamesErrorCode(StrEnum):
    INVALID_REQUEST = "tablegames.invalid_request"
    """A malformed inventory, slip or count: 400, nothing written."""
    TABLE_OPEN = "tablegames.table_open"
    """The table is open already: 409."""
    TABLE_NOT_OPEN = "tablegames.table_not_open"
    """The table is not open (fills, credits and a close need an open table): 409."""
    NOTHING_TO_COUNT = "tablegames.nothing_to_count"
    """The table has no closed session whose drop box is still uncounted: 409."""
    SIGNATURES_REQUIRED = "tablegames.signatures_required"
    """A slip or a soft count is signed by two different people: 400."""
    UNKNOWN_VENUE = "tablegames.unknown_venue"
    """No venue with that code: 404."""


class TableGamesError(CodedError):
    """A table-games request refused; nothing was written."""
