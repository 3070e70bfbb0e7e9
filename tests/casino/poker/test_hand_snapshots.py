"""A hand's snapshot equals the replay of its events (hypothesis).

Random legal hands at the Veikkaus room (the variants and choices of
test_properties.py), played action by action through the commands, with
now and then an action by a player not to act, which is refused and
recorded on the hand's stream without changing its state. After every
write, and again after `rebuild_projections`, the hand's snapshot row
(`HandSnapshot`) holds exactly what the hand's events replayed through the
engine give (casino/poker/snapshots.py), at the version of the last event
that changed it; the commands read that row and nothing else of the hand.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from casino.poker import commands, engine, snapshots
from casino.poker.errors import PokerError
from casino.poker.events import hand_stream
from casino.poker.models import HandSnapshot
from ledger import rebuild_projections
from ledger.models import Event
from tests.casino.poker.conftest import key, officer, seat_players
from tests.casino.poker.test_properties import DECK, VARIANTS, _choose, _open

import native_eval


def _replayed(hand_id: str) -> tuple[int, dict]:
    """The hand's events replayed through the engine: (version, snapshot JSON)."""
    table_id, number = hand_id.rsplit(".", 1)
    rows = list(Event.objects.filter(stream=hand_stream(table_id, int(number)),
                                     type__in=snapshots.SNAPSHOT_TYPES)
                .order_by("version").values_list("type", "payload", "version"))
    folded = snapshots.fold((t, p) for t, p, _ in rows)
    return rows[-1][2], snapshots.snapshot_json(*folded)


def assert_snapshot_is_the_replay(hand_id: str) -> None:
    row = HandSnapshot.objects.get(hand_id=hand_id)
    version, state = _replayed(hand_id)
    assert (row.version, row.state) == (version, state)
    # The JSON loads back into the very state the engine replayed.
    assert snapshots.load_state(row.state["engine"]) == snapshots.load_state(state["engine"])


@pytest.mark.slow
@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_a_hands_snapshot_equals_the_replay_of_its_events(venues, data):
    variant = data.draw(st.sampled_from(sorted(VARIANTS)), label="variant")
    _, shown, board_cards = VARIANTS[variant]
    players = data.draw(st.integers(2, 6), label="players")
    stacks = {seat: data.draw(st.integers(10_000, 40_000), label=f"stack {seat}")
              for seat in range(1, players + 1)}
    button = data.draw(st.integers(1, players), label="button")
    stud = engine.family_of(variant) is engine.Family.STUD
    table = _open(variant)
    seat_players(table.table_id, stacks)
    first = data.draw(st.sampled_from(sorted(stacks)), label="bring-in") if stud else None
    hand = commands.start_hand(table_id=table.table_id, button=button, first_seat=first,
                               actor="dealer", idempotency_key=key())
    hand_id = hand.hand_id
    assert_snapshot_is_the_replay(hand_id)
    while True:
        ctx = commands.load_hand(hand_id)
        state = ctx.state
        if state.is_over:
            break
        if state.phase is engine.Phase.AWAITING_STREET:
            opener = data.draw(st.sampled_from(state.live_seats), label="opener")
            commands.act(hand_id=hand_id, seat=opener, kind="open_street", actor="dealer",
                         idempotency_key=key())
        elif data.draw(st.integers(0, 9), label="out of turn") == 9:
            other = next(s for s in stacks if s != state.to_act)
            with pytest.raises(PokerError):
                commands.act(hand_id=hand_id, seat=other, kind="check", actor="dealer",
                             idempotency_key=key())
            # Refused: the stream moved on, the snapshot did not.
            assert commands.load_hand(hand_id).version == ctx.version + 1
            assert HandSnapshot.objects.get(hand_id=hand_id).version <= ctx.version
        else:
            kind, amount = _choose(data, engine.legal_actions(state))
            commands.act(hand_id=hand_id, seat=state.to_act, kind=kind, amount_minor=amount,
                         actor="dealer", idempotency_key=key())
        assert_snapshot_is_the_replay(hand_id)
    if state.phase is engine.Phase.SHOWDOWN:
        honest = data.draw(st.booleans(), label="honest claim")
        cards = data.draw(st.permutations(DECK), label="deck")
        board = " ".join(cards[:board_cards])
        hands = {seat: " ".join(cards[board_cards + shown * i: board_cards + shown * (i + 1)])
                 for i, seat in enumerate(state.live_seats)}
        pots = [(p.amount_minor, p.eligible_seats)
                for p in commands._decide_settlement(ctx, state).pots_net]
        verified = {s: a for s, a in native_eval.showdown(
            variant, board, hands, pots, button).awards.items() if a}
        claimed = verified if honest else {state.live_seats[0]: sum(a for a, _ in pots) + 1}
        result = commands.showdown(hand_id=hand_id, board=board, hands=hands,
                                   claimed_awards=claimed, actor="dealer",
                                   idempotency_key=key())
        assert_snapshot_is_the_replay(hand_id)
        if not honest:
            assert result.state == "disputed"
            assert commands.load_hand(hand_id).status == "disputed"
            commands.decide_dispute(hand_id=hand_id, decision="settle_verified",
                                    note="dispute", actor=officer(), idempotency_key=key())
            assert_snapshot_is_the_replay(hand_id)
    assert commands.load_hand(hand_id).status == "settled"
    before = HandSnapshot.objects.get(hand_id=hand_id)

    rebuild_projections()

    assert_snapshot_is_the_replay(hand_id)
    after = HandSnapshot.objects.get(hand_id=hand_id)
    assert (after.version, after.state) == (before.version, before.state)


def test_a_voided_hand_keeps_its_state_and_says_voided(venues):
    """A void changes the status alone; the snapshot is still the replay, live and rebuilt."""
    table = _open("holdem")
    seat_players(table.table_id, {1: 20_000, 2: 20_000, 3: 20_000})
    hand = commands.start_hand(table_id=table.table_id, button=1, actor="dealer",
                               idempotency_key=key())
    commands.act(hand_id=hand.hand_id, seat=1, kind="call", actor="dealer",
                 idempotency_key=key())
    commands.void_hand(hand_id=hand.hand_id, reason="misdeal", actor="floor",
                       idempotency_key=key())
    row = HandSnapshot.objects.get(hand_id=hand.hand_id)
    assert (row.version, row.state["status"]) == (3, "voided")
    assert_snapshot_is_the_replay(hand.hand_id)

    rebuild_projections()

    assert HandSnapshot.objects.get(hand_id=hand.hand_id).state == row.state
    assert_snapshot_is_the_replay(hand.hand_id)
