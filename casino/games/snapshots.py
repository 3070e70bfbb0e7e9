"""A round's state as a command needs it: one snapshot row, not its bets' rows.

Design choice: the house-game engine (casino/games/engine) is stateless; it
settles a round from the round's bets and outcome, which the commands pass
in. So a round's engine state is what its stream has fixed so far: where it
stands (open, closed, outcome recorded, disputed, settled, voided), the
outcome recorded, and the bets placed in order (id, player, kind, spec,
position, bet unit and valid stake). The projection rows `Round` and `Bet`
hold all of that too, but in two tables read by two statements, and a bet
row also carries its settlement; the snapshot (`RoundSnapshot`) keeps it in
one JSON column of one row, joined to its round and table, so a command
reads the round in one statement after its stream version. The projection
writes the snapshot in the append's transaction (a bet as one statement
that also inserts the bet and updates the round) and `rebuild_projections`
recomputes it from the log; tests/casino/games/test_snapshots.py proves it
equals a replay of the round's events.

`version` is the stream version of the last event that changed the state:
a round's stream also holds refusals (`bet_rejected`, `outcome_rejected`),
a disputed round's alert and the players' settlements, which change none of
it, so the stream may be ahead of the snapshot. A command expects the stream
version it read before the snapshot, never the snapshot's.

The JSON holds integers for money; bets are a list (jsonb keeps a list's
order, not an object's keys').
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from .events import (
    BET_PLACED,
    BETTING_CLOSED,
    OUTCOME_RECORDED,
    ROUND_DISPUTED,
    ROUND_OPENED,
    ROUND_SETTLED,
    ROUND_VOIDED,
)

# The events that change a round's snapshot, and the state each leaves it in.
STATE_AFTER = {ROUND_OPENED: "open", BETTING_CLOSED: "closed",
               OUTCOME_RECORDED: "outcome_recorded", ROUND_DISPUTED: "disputed",
               ROUND_SETTLED: "settled", ROUND_VOIDED: "voided"}
SNAPSHOT_TYPES = frozenset({*STATE_AFTER, BET_PLACED})


@dataclass(frozen=True, slots=True)
class BetAtVersion:
    """A bet as the commands read it: what it is and its valid stake."""

    id: str
    player_id: str
    kind: str
    spec: Mapping[str, Any]
    position: str
    bet_unit: str
    stake_minor: int
    # How the stake was paid: "account" (the gaming account) or "chips" (the
    # venue's cage chips); a bet placed before the field existed: "account".
    paid_with: str = "account"


@dataclass(frozen=True, slots=True)
class RoundAtVersion:
    """A round's state at a stream version (the snapshot row, read)."""

    id: str
    number: int
    state: str
    outcome: Mapping[str, Any] | None
    bets: tuple[BetAtVersion, ...]
    version: int


def opened_state() -> dict[str, Any]:
    """The state of a round just opened."""
    return {"state": "open", "outcome": None, "bets": []}


def bet_state(payload: Mapping[str, Any]) -> dict[str, Any]:
    """A `bet_placed` payload's entry in the state's bets."""
    state = {"id": payload["bet_id"], "player_id": payload["player_id"],
             "kind": payload["kind"], "spec": payload["spec"], "position": payload["position"],
             "bet_unit": payload["bet_unit"], "stake_minor": payload["stake_minor"]}
    if "paid_with" in payload:
        # Only a stake not from the gaming account says how it was paid.
        state["paid_with"] = payload["paid_with"]
    return state


def fold(state: dict[str, Any] | None, event_type: str, payload: Mapping[str, Any]
         ) -> dict[str, Any] | None:
    """The state after one event of the round's stream (pure; others change nothing)."""
    if event_type == ROUND_OPENED:
        return opened_state()
    if state is None or event_type not in SNAPSHOT_TYPES:
        return state
    if event_type == BET_PLACED:
        return {**state, "bets": [*state["bets"], bet_state(payload)]}
    changed = {**state, "state": STATE_AFTER[event_type]}
    if event_type == OUTCOME_RECORDED:
        changed["outcome"] = payload["outcome"]
    return changed


def round_at(round_id: str, number: int, version: int, state: Mapping[str, Any]
             ) -> RoundAtVersion:
    """The snapshot's JSON as the commands read it."""
    return RoundAtVersion(id=round_id, number=number, state=state["state"],
                          outcome=state["outcome"], version=version,
                          bets=tuple(BetAtVersion(**bet) for bet in state["bets"]))
