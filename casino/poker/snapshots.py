"""A hand's state as a command needs it: one snapshot row, not its events.

`fold` replays a hand's stream through the betting engine (what the
commands did on every action before the snapshot); `dump_state` and
`load_state` turn the engine's `HandState` into the JSON of its snapshot row
(`HandSnapshot.state`) and back. The poker projection folds each hand event
into the snapshot in the append's transaction, and `rebuild_projections`
recomputes it from the log; tests/casino/poker/test_hand_snapshots.py proves
the snapshot equals `fold` of the stream, during and after random hands.

The row's JSON is {"status": ..., "engine": dump_state(state)}: `status` is
where the hand stands for the commands ("running", "disputed", "settled",
"voided"), `engine` the betting state. It holds integers for money and
keeps every order the engine depends on as lists (players by seat, the log,
the streets): PostgreSQL's jsonb keeps a list's order, not an object's keys'.

`version` is the stream version of the last event that changed the state. A
hand's stream also holds refused actions (`poker.action_rejected`), a
dispute's alert and decision, which change none of it, so the stream may be
ahead of the snapshot: a command expects the stream version it read before
the snapshot, never the snapshot's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from . import engine
from .events import (
    ACTION_TAKEN,
    HAND_DISPUTED,
    HAND_SETTLED,
    HAND_STARTED,
    HAND_VOIDED,
    MUCK,
    OPEN_STREET,
)

# The events that change a hand's snapshot; a final status has no way out.
SNAPSHOT_TYPES = frozenset({HAND_STARTED, ACTION_TAKEN, HAND_SETTLED, HAND_DISPUTED,
                            HAND_VOIDED})
STATUS_AFTER = {HAND_SETTLED: "settled", HAND_DISPUTED: "disputed", HAND_VOIDED: "voided"}


@dataclass(frozen=True, slots=True)
class HandAtVersion:
    """A hand's state at a stream version (the snapshot row, read)."""

    status: str          # "running" | "disputed" | "settled" | "voided"
    state: engine.HandState
    version: int


def start_state(started: Mapping[str, Any]) -> engine.HandState:
    """The engine's state after a `poker.hand_started` payload: the forced bets posted."""
    blinds = started.get("blind_seats")
    missed = {int(n): v for n, v in (started.get("missed_blinds") or {}).items()}
    return engine.start_hand(started["variant"], started["structure"],
                             engine.Stakes(**started["stakes"]),
                             {int(n): v for n, v in started["stacks_minor"].items()},
                             started["button"],
                             blind_seats=tuple(blinds) if blinds else None,
                             straddles=started.get("straddles", 0),
                             first_seat=started.get("first_seat"),
                             missed_blinds=missed or None)


def advance(state: engine.HandState, seat: int, kind: str, amount_minor: int | None,
            open_pair: bool = False) -> engine.HandState:
    """The engine's state after one step: a player action, a muck or opening a stud street."""
    if kind == OPEN_STREET:
        return engine.open_street(state, first_seat=seat, open_pair=open_pair)
    if kind == MUCK:
        return engine.muck(state, seat)
    return engine.apply(state, engine.Action(seat, kind, amount_minor))


def fold_event(snapshot: tuple[str, engine.HandState] | None, event_type: str,
               payload: Mapping[str, Any]) -> tuple[str, engine.HandState] | None:
    """(status, state) after one event of the hand's stream (others change nothing)."""
    if event_type == HAND_STARTED:
        return "running", start_state(payload)
    if snapshot is None or event_type not in SNAPSHOT_TYPES:
        return snapshot
    status, state = snapshot
    if event_type == ACTION_TAKEN:
        return status, advance(state, payload["seat"], payload["kind"],
                               payload["amount_minor"], payload.get("open_pair", False))
    return STATUS_AFTER[event_type], state


def fold(recorded: Iterable[tuple[str, Mapping[str, Any]]]
         ) -> tuple[str, engine.HandState] | None:
    """Replay a hand's (type, payload) pairs, in stream order, through the engine."""
    snapshot = None
    for event_type, payload in recorded:
        snapshot = fold_event(snapshot, event_type, payload)
    return snapshot


def snapshot_json(status: str, state: engine.HandState) -> dict[str, Any]:
    """The snapshot row's JSON."""
    return {"status": status, "engine": dump_state(state)}


def hand_at(version: int, data: Mapping[str, Any]) -> HandAtVersion:
    """The snapshot row's JSON as the commands read it."""
    return HandAtVersion(data["status"], load_state(data["engine"]), version)


def dump_state(state: engine.HandState) -> dict[str, Any]:
    """The engine's betting state as JSON-safe data (integers for money)."""
    return {
        "variant": state.variant,
        "structure": str(state.structure),
        "stakes": {name: getattr(state.stakes, name) for name in _STAKES},
        "button": state.button,
        "streets": [[street.name, street.big_bet] for street in state.streets],
        "players": [{
            "seat": p.seat, "stack_minor": p.stack_minor, "bet_minor": p.bet_minor,
            "total_minor": p.total_minor, "by_street_minor": list(p.by_street_minor),
            "folded": p.folded, "acted": p.acted, "level_seen_minor": p.level_seen_minor,
            "barred": p.barred, "dead_minor": p.dead_minor,
        } for p in state.players],
        "starting_stacks_minor": [list(pair) for pair in state.starting_stacks_minor],
        "phase": str(state.phase),
        "street_index": state.street_index,
        "to_act": state.to_act,
        "high_bet_minor": state.high_bet_minor,
        "level_minor": state.level_minor,
        "increment_minor": state.increment_minor,
        "levels": state.levels,
        "capped": state.capped,
        "short_run_minor": state.short_run_minor,
        "bring_in_open": state.bring_in_open,
        "pot_excluded_minor": state.pot_excluded_minor,
        "log": [[r.street, r.seat, str(r.kind), r.added_minor, r.to_minor, r.all_in,
                 r.full_raise, r.reopened_by_short_all_ins] for r in state.log],
        "big_unit_option": state.big_unit_option,
        "unit_override_minor": state.unit_override_minor,
        "mucked": list(state.mucked),
    }


_STAKES = ("small_blind_minor", "big_blind_minor", "ante_minor", "big_blind_ante_minor",
           "bring_in_minor", "small_bet_minor", "big_bet_minor", "raises_per_round_max")


def load_state(data: Mapping[str, Any]) -> engine.HandState:
    """The engine's state from `dump_state`'s data."""
    return engine.HandState(
        variant=data["variant"],
        structure=engine.BettingStructure(data["structure"]),
        stakes=engine.Stakes(**data["stakes"]),
        button=data["button"],
        streets=tuple(engine.Street(name, big_bet) for name, big_bet in data["streets"]),
        players=tuple(engine.PlayerState(**{**p, "by_street_minor": tuple(
            p["by_street_minor"])}) for p in data["players"]),
        starting_stacks_minor=tuple((seat, stack) for seat, stack
                                    in data["starting_stacks_minor"]),
        phase=engine.Phase(data["phase"]),
        street_index=data["street_index"],
        to_act=data["to_act"],
        high_bet_minor=data["high_bet_minor"],
        level_minor=data["level_minor"],
        increment_minor=data["increment_minor"],
        levels=data["levels"],
        capped=data["capped"],
        short_run_minor=data["short_run_minor"],
        bring_in_open=data["bring_in_open"],
        pot_excluded_minor=data["pot_excluded_minor"],
        log=tuple(engine.Record(*record) for record in data["log"]),
        big_unit_option=data["big_unit_option"],
        unit_override_minor=data["unit_override_minor"],
        mucked=tuple(data["mucked"]),
    )
