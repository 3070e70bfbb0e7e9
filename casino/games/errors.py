"""Errors of the house-banked games, each with a stable code (never renamed).

Refusals by the compliance pipeline (identity, age, self-exclusion, limits,
a game or bet unit Part IV does not cap) surface as
`casino.compliance.errors.AttemptRejected`.
"""

from enum import StrEnum

from casino.errors import CodedError


class GamesErrorCode(StrEnum):
    INVALID_REQUEST = "games.invalid_request"
    """Malformed input (unknown game, bad configuration): 400, nothing written."""
    UNKNOWN_TABLE = "games.unknown_table"
    UNKNOWN_ROUND = "games.unknown_round"
    GAME_NOT_OFFERED = "games.game_not_offered"
    """The venue's rulebook carries no pay table for the game: 422."""
    INVALID_BET = "games.invalid_bet"
    """A bet the game does not offer, or one not on the layout: 400."""
    ROUND_RUNNING = "games.round_running"
    """The table's last round is not settled or voided yet: 409."""
    BETTING_CLOSED = "games.betting_closed"
    """No more bets (002:L143, L1545): only in-play bets after the close: 409."""
    BETTING_OPEN = "games.betting_open"
    """An in-play bet (play, double...) while betting is still open: 409."""
    WRONG_STATE = "games.wrong_state"
    """The round is not in the state the command needs: 409."""
    STAKE_BELOW_MINIMUM = "games.stake_below_minimum"
    """Under the table's posted minimum (recorded): 422."""
    STAKE_ABOVE_MAXIMUM = "games.stake_above_maximum"
    """Nothing left under the cap for this player and position (recorded): 422."""
    RAISE_NOT_ALLOWED = "games.raise_not_allowed"
    """A play, double, split, insurance or raise without its base bet, or of
    the wrong size (recorded): 422."""
    SIDE_BET_ALONE = "games.side_bet_alone"
    """A side bet without its main bet (THB bonus, UTH trips, progressives), or a
    later raise without the earlier one (Dynamic's river after the turn)
    (recorded): 422."""
    BANK_RULE = "games.bank_rule"
    """A stake a player bank's rules refuse (recorded): 422. Baccara: a continuing
    bank below or above the previous bank plus its winnings, a bank kept after a
    punto win (002:L2817-2819), banco solo, avec or avec la table of the wrong size;
    player-banked Pai Gow: a second bank, or the banker playing a box (002:L2623)."""
    INVALID_OUTCOME = "games.invalid_outcome"
    """Outcome facts impossible under the game's rules (recorded): 422."""
    ROUND_DISPUTED = "games.round_disputed"
    """A disputed round settles or voids only by a compliance officer: 409."""
    NOT_COMPLIANCE_OFFICER = "games.not_compliance_officer"
    INSUFFICIENT_FUNDS = "games.insufficient_funds"
    """The gaming account holds less than the stake; no credit (002:L135)."""
    CONCURRENT_UPDATE = "games.concurrent_update"
    """No longer raised: the writes run through casino.runner, whose 409
    `request.concurrent_update` answers a round that changed on every attempt. Kept so
    the code is never reused for something else."""


class GamesError(CodedError):
    """A games request refused; what it wrote, if anything, is said by the raiser."""
