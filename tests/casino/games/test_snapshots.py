"""A round's snapshot row equals the replay of the round's events.

Property (issue 13 point 5, DESIGN.md §11 "Snapshots, not replays"): for
random sequences of commands on roulette rounds (bets, closes, outcomes,
settlements, voids, some of them refused), each round's `RoundSnapshot`
equals the fold of its stream's events from the log, with the version of
the last event that changed it, and equals it again after
`rebuild_projections()`. The fold here is written apart from the
projection: it reads the events, not the projection's rows.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from casino.errors import CodedError
from casino.games import commands
from casino.games.events import (
    BET_PLACED,
    BETTING_CLOSED,
    OUTCOME_RECORDED,
    ROUND_DISPUTED,
    ROUND_OPENED,
    ROUND_SETTLED,
    ROUND_VOIDED,
    round_stream,
)
from casino.games.models import Round, RoundSnapshot
from ledger import rebuild_projections
from ledger.models import Event

from .conftest import funded_player, key

PHASES = {ROUND_OPENED: "open", BETTING_CLOSED: "closed",
          OUTCOME_RECORDED: "outcome_recorded", ROUND_DISPUTED: "disputed",
          ROUND_SETTLED: "settled", ROUND_VOIDED: "voided"}

operations = st.lists(st.one_of(
    st.tuples(st.just("bet"), st.integers(0, 2), st.integers(0, 36), st.integers(1, 150)),
    st.tuples(st.just("open")), st.tuples(st.just("close")),
    st.tuples(st.just("outcome"), st.integers(0, 36)), st.tuples(st.just("settle")),
    st.tuples(st.just("void"))), min_size=1, max_size=25)


def replay(stream: str) -> tuple[dict | None, int]:
    """Fold a round's events from the log into (state, version of the last change)."""
    state, version = None, 0
    for event in Event.objects.filter(stream=stream).order_by("version"):
        p = event.payload
        if event.type == ROUND_OPENED:
            state = {"state": "open", "outcome": None, "bets": []}
        elif event.type == BET_PLACED:
            state["bets"].append({
                "id": p["bet_id"], "player_id": p["player_id"], "kind": p["kind"],
                "spec": p["spec"], "position": p["position"], "bet_unit": p["bet_unit"],
                "stake_minor": p["stake_minor"]})
        elif event.type in PHASES:
            state["state"] = PHASES[event.type]
            if event.type == OUTCOME_RECORDED:
                state["outcome"] = p["outcome"]
        else:
            continue
        version = event.version
    return state, version


def assert_snapshots_equal_replays(table_id: str) -> None:
    rounds = list(Round.objects.filter(table_id=table_id))
    assert rounds
    for round_ in rounds:
        snapshot = RoundSnapshot.objects.get(round_id=round_.id)
        state, version = replay(round_stream(table_id, round_.number))
        assert snapshot.state == state
        assert snapshot.version == version


@pytest.mark.slow
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(plan=operations)
def test_round_snapshot_equals_the_replay_of_its_events(venues, plan):
    """After random commands each round's snapshot is the replay of its stream, and
    again after a rebuild."""
    table = commands.open_table(venue="casino-helsinki", game="roulette",
                                stake_minor_min=100, stake_minor_max=10_000, actor="pit",
                                idempotency_key=key("table")).table_id
    players = [funded_player(20_000).id for _ in range(3)]
    round_id = commands.open_round(table_id=table, actor="pit",
                                   idempotency_key=key("round")).round_id
    for step in plan:
        try:
            if step[0] == "bet":
                commands.place_bet(round_id=round_id, player_id=players[step[1]],
                                   kind="straight", spec={"numbers": [step[2]]},
                                   stake_minor=step[3] * 100, actor="pit",
                                   idempotency_key=key("bet"))
            elif step[0] == "open":
                round_id = commands.open_round(table_id=table, actor="pit",
                                               idempotency_key=key("round")).round_id
            elif step[0] == "close":
                commands.close_betting(round_id=round_id, actor="pit", idempotency_key=key())
            elif step[0] == "outcome":
                commands.record_outcome(round_id=round_id, outcome={"number": step[1]},
                                        actor="pit", idempotency_key=key())
            elif step[0] == "settle":
                commands.settle_round(round_id=round_id, actor="pit", idempotency_key=key())
            else:
                commands.void_round(round_id=round_id, reason="wheel fault", actor="pit",
                                    idempotency_key=key())
        except CodedError:
            pass    # refused (wrong state, stake rules, funds): the snapshot must not move
    assert_snapshots_equal_replays(table)
    rebuild_projections()
    assert_snapshots_equal_replays(table)
