"""The interface each game family implements, and its registry (pure)."""

from __future__ import annotations

from typing import Any, Mapping, Protocol, Sequence

from .common import BetIn, BetKind, Settled, Tables


class Game(Protocol):
    """A house-banked game: its bets, its outcome facts and its settlement.

    `tables` lists the rulebook table keys the game reads; the app loads
    their rows from the venue's rulebook in force and passes them in.
    """

    id: str
    tables: tuple[str, ...]

    def configure(self, config: Mapping[str, Any], tables: Tables) -> dict[str, Any]:
        """Validate a table's configuration (version, options); return it normalised."""
        ...

    def bet_kind(self, kind: str, spec: Mapping[str, Any], tables: Tables,
                 config: Mapping[str, Any]) -> BetKind:
        """Validate a bet; raise BetInvalid for one the game does not offer."""
        ...

    def check_outcome(self, outcome: Mapping[str, Any], config: Mapping[str, Any],
                      bets: Sequence[BetIn], tables: Tables) -> dict[str, Any]:
        """Validate the outcome facts; return them normalised (OutcomeInvalid)."""
        ...

    def settle(self, bets: Sequence[BetIn], outcome: Mapping[str, Any], tables: Tables,
               config: Mapping[str, Any]) -> list[Settled]:
        """Settle every bet of the round from the outcome and the pay tables."""
        ...


def no_config(config: Mapping[str, Any]) -> dict[str, Any]:
    from .common import BetInvalid

    if config:
        raise BetInvalid(f"this game takes no table options, got {sorted(config)}")
    return {}
