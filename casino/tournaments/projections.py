"""Projection of tournament events into Tournament and Entrant.

The same `apply` runs inline in the append and on `rebuild_projections`.
Each event is folded into the engine's state (replay.py) and the rows are
written from that state, so the read side shows what the engine decided.
The state of the last tournament touched is kept between events (keyed by
stream version) so that a tournament's events fold in linear time.
"""

from __future__ import annotations

from typing import Sequence

from ledger import RecordedEvent
from ledger.models import Event

from . import events as ev
from .engine import Phase
from .engine import Tournament as State
from .models import Entrant, EntrantStatus, Tournament
from .replay import apply as apply_event, fold

# The transitions that take the row from one phase to the next.
STEPS = {
    (Phase.ANNOUNCED, Phase.REGISTERING): "open_registration",
    (Phase.REGISTERING, Phase.RUNNING): "start",
    (Phase.RUNNING, Phase.POOL_FIXED): "fix_pool",
    (Phase.POOL_FIXED, Phase.IN_THE_MONEY): "reach_money",
    (Phase.POOL_FIXED, Phase.FINISHED): "finish",
    (Phase.IN_THE_MONEY, Phase.FINISHED): "finish",
    (Phase.ANNOUNCED, Phase.CANCELLED): "cancel",
    (Phase.REGISTERING, Phase.CANCELLED): "cancel",
    (Phase.RUNNING, Phase.INTERRUPTED): "interrupt",
    (Phase.POOL_FIXED, Phase.INTERRUPTED): "interrupt",
    (Phase.IN_THE_MONEY, Phase.INTERRUPTED): "interrupt",
}
ORDER = [Phase.ANNOUNCED, Phase.REGISTERING, Phase.RUNNING, Phase.POOL_FIXED,
         Phase.IN_THE_MONEY]


def load_state(stream: str, below_version: int | None = None) -> State | None:
    """Fold a tournament's stream (versions below `below_version`) into its state."""
    rows = Event.objects.filter(stream=stream).order_by("version")
    if below_version is not None:
        rows = rows.filter(version__lt=below_version)
    return fold((row.type, row.payload) for row in rows)


class TournamentProjection:
    name = "tournaments.tournaments"
    event_types = ev.TOURNAMENT_EVENT_TYPES

    def __init__(self) -> None:
        self._cache: tuple[str, int, State] | None = None

    def reset(self) -> None:
        self._cache = None
        Tournament.objects.all().delete()  # entrants cascade

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            self._apply(event)

    def _apply(self, event: RecordedEvent) -> None:
        p = event.payload
        if event.type == ev.ANNOUNCED:
            state = fold([(event.type, p)])
            Tournament.objects.create(
                id=p["tournament_id"], venue=p["venue"], currency=p["currency"],
                rulebook=p["rulebook"], name=p["name"], format=p["config"]["format"],
                config=p["config"], last_position=event.position)
            self._cache = (event.stream, event.version, state)
            self._write(p["tournament_id"], state, event.position, Phase.ANNOUNCED)
            return
        cached = self._cache
        if cached and cached[0] == event.stream and cached[1] == event.version - 1:
            state = cached[2]
        else:
            state = load_state(event.stream, below_version=event.version)
        before = state.phase
        apply_event(state, event.type, p)
        self._cache = (event.stream, event.version, state)
        self._write(event.stream.split("/", 1)[1], state, event.position, before)

    def _write(self, tournament_id: str, state: State, position: int, before: Phase) -> None:
        row = Tournament.objects.get(id=tournament_id)
        for step in _path(before, state.phase):
            getattr(row, step)()
        table = ([{"place": i, "prize_minor": prize}
                  for i, prize in enumerate(state.prizes(), start=1)]
                 if state.players else [])
        payout = state.payout
        row.entries = state.entries
        row.re_entries = state.re_entries
        row.players_left = len(state.alive)
        row.pool_minor = state.pool_minor
        row.fees_minor = state.fees_minor
        row.bounties_minor = state.bounties_minor
        row.paid_field = state.paid_field
        if payout is None:
            row.prize_table = table
        row.payout = None if payout is None else {
            "method": payout.method, "prizes_minor": dict(payout.prizes_minor),
            "places": dict(payout.places), "bounties_minor": dict(payout.bounties_minor),
            "fees_refunded_minor": dict(payout.fees_refunded_minor),
            "seats": list(payout.seats)}
        row.last_position = position
        row.save()
        existing = {e.player_id: e for e in Entrant.objects.filter(tournament=row)}
        for player in state.players.values():
            entrant = existing.get(player.player_id) or Entrant(
                key=f"{tournament_id}/{player.player_id}", tournament=row,
                player_id=player.player_id)
            entrant.entries = player.entries
            entrant.rebuys = player.rebuys
            entrant.add_ons = player.add_ons
            entrant.paid_minor = (player.paid_prize_minor + player.paid_fee_minor
                                  + player.paid_bounty_minor)
            entrant.bounty_minor = player.bounty_minor
            entrant.bounties_won_minor = state.bounties_won.get(player.player_id, 0)
            entrant.status = (EntrantStatus.DISQUALIFIED if player.disqualified else
                              EntrantStatus.EXCLUDED if player.excluded else
                              EntrantStatus.PLAYING if player.alive else EntrantStatus.OUT)
            if payout is not None:
                entrant.place = payout.places.get(player.player_id)
                entrant.prize_minor = payout.prizes_minor.get(player.player_id, 0)
            entrant.save()


def _path(before: Phase, after: Phase) -> list[str]:
    """The transitions from one phase to another (a step may pass several)."""
    if before == after:
        return []
    if (before, after) in STEPS:
        return [STEPS[(before, after)]]
    start, end = ORDER.index(before), ORDER.index(after) if after in ORDER else None
    if end is None:
        return [STEPS[(before, after)]]
    return [STEPS[(ORDER[i], ORDER[i + 1])] for i in range(start, end)]
