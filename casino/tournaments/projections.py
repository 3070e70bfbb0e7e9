"""Projection of tournament events into Tournament, Entrant and TournamentSnapshot.

The same `apply` runs inline in the append and on `rebuild_projections`.
Each event is folded into the engine's state read from the tournament's
snapshot row (replay.py), and the rows are written from the new state: the
snapshot (the state itself, at the event's stream version), the tournament
and the entrants the event changed, so the read side shows what the engine
decided and a command reads one row instead of the stream. A snapshot
written in the append's transaction is as durable as its events; rebuild
recomputes every snapshot from the log.

Statements per event: one read (the snapshot joined to its tournament), one
update of each, one upsert of the changed entrants (none when no entrant
changed). Nothing is kept between events in the process: a cached state of
a rolled-back append could otherwise stand in for another process's event.
"""

from __future__ import annotations

from typing import Any, Sequence

from django.db import connection
from django.db.models import Q
from django.db.models.sql import UpdateQuery

from ledger import InvariantViolation, RecordedEvent

from . import events as ev
from .engine import Phase
from .engine import Tournament as State
from .models import Entrant, EntrantStatus, Tournament, TournamentSnapshot
from .replay import apply as apply_event, dump_state, fold, load_state

ENTRANT_FIELDS = ("entries", "rebuys", "add_ons", "paid_minor", "bounty_minor",
                  "bounties_won_minor", "status", "place", "prize_minor")

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


class TournamentProjection:
    name = "tournaments.tournaments"
    event_types = ev.TOURNAMENT_EVENT_TYPES

    def reset(self) -> None:
        Tournament.objects.all().delete()  # entrants and snapshots cascade

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            self._apply(event)

    def _apply(self, event: RecordedEvent) -> None:
        p = event.payload
        if event.type == ev.ANNOUNCED:
            state = fold([(event.type, p)])
            row = Tournament.objects.create(
                id=p["tournament_id"], venue=p["venue"], currency=p["currency"],
                rulebook=p["rulebook"], name=p["name"], format=p["config"]["format"],
                config=p["config"], last_position=event.position,
                **_tournament_fields(state, with_prize_table=True))
            TournamentSnapshot.objects.create(tournament=row, version=event.version,
                                              state=dump_state(state))
            return
        tournament_id = event.stream.split("/", 1)[1]
        snapshot = (TournamentSnapshot.objects.select_related("tournament")
                    .filter(tournament_id=tournament_id).first())
        if snapshot is None or snapshot.version >= event.version:
            raise InvariantViolation(
                f"tournament {tournament_id} has no snapshot below version {event.version}"
                " to fold its event into; run rebuild_projections")
        row = snapshot.tournament
        state = load_state(row.config, snapshot.state)
        before_phase = state.phase
        before = _entrants(state)
        apply_event(state, event.type, p)
        for step in _path(before_phase, state.phase):
            getattr(row, step)()        # django-fsm refuses a transition out of order
        after = _entrants(state)
        changed = {player_id: values for player_id, values in after.items()
                   if before.get(player_id) != values}
        _write(tournament_id, snapshot_values={"version": event.version,
                                               "state": dump_state(state)},
               tournament_values={"state": row.state, "last_position": event.position,
                                  **_tournament_fields(state,
                                                       with_prize_table=state.payout is None)},
               entrants=changed)
        gone = [player_id for player_id in before if player_id not in after]
        if gone:   # withdrawn before the start (001:L310-312)
            Entrant.objects.filter(tournament_id=tournament_id,
                                   player_id__in=gone).delete()


def _update_sql(model, pk_field: str, pk: str, values: dict[str, Any]) -> tuple[str, list]:
    """An UPDATE of one row as Django writes it (fields prepared for the database)."""
    query = UpdateQuery(model)
    query.add_update_values(values)
    query.add_q(Q(**{pk_field: pk}))
    sql, params = query.get_compiler(connection.alias).as_sql()
    return sql, list(params)


def _write(tournament_id: str, *, snapshot_values: dict[str, Any],
           tournament_values: dict[str, Any],
           entrants: dict[str, dict[str, Any]]) -> None:
    """Write the snapshot, the tournament row and the changed entrants in one statement.

    Data-modifying CTEs: one round trip for what an event changes (three
    before), as poker writes a hand.
    """
    snapshot_sql, snapshot_params = _update_sql(TournamentSnapshot, "tournament_id",
                                                tournament_id, snapshot_values)
    tournament_sql, tournament_params = _update_sql(Tournament, "id", tournament_id,
                                                    tournament_values)
    sql = f"WITH s AS ({snapshot_sql}), t AS ({tournament_sql}) "
    params = snapshot_params + tournament_params
    if entrants:
        columns = ["key", "tournament_id", "player_id", *ENTRANT_FIELDS]
        row = "(" + ", ".join(["%s"] * len(columns)) + ")"
        sql += (f"INSERT INTO {Entrant._meta.db_table} ({', '.join(columns)}) VALUES "
                + ", ".join([row] * len(entrants))
                + " ON CONFLICT (key) DO UPDATE SET "
                + ", ".join(f"{name} = EXCLUDED.{name}" for name in ENTRANT_FIELDS))
        for player_id, values in entrants.items():
            params += [f"{tournament_id}/{player_id}", tournament_id, player_id,
                       *(values[name] for name in ENTRANT_FIELDS)]
    else:
        sql += "SELECT 1"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _tournament_fields(state: State, *, with_prize_table: bool) -> dict[str, Any]:
    """The tournament row's columns that follow the engine's state.

    The prize table in money is written until the payout is known, and then
    kept as it was published.
    """
    payout = state.payout
    fields: dict[str, Any] = dict(
        entries=state.entries, re_entries=state.re_entries, players_left=len(state.alive),
        pool_minor=state.pool_minor, fees_minor=state.fees_minor,
        bounties_minor=state.bounties_minor, paid_field=state.paid_field,
        payout=None if payout is None else {
            "method": payout.method, "prizes_minor": dict(payout.prizes_minor),
            "places": dict(payout.places), "bounties_minor": dict(payout.bounties_minor),
            "fees_refunded_minor": dict(payout.fees_refunded_minor),
            "seats": list(payout.seats)})
    if with_prize_table:
        fields["prize_table"] = ([{"place": i, "prize_minor": prize}
                                  for i, prize in enumerate(state.prizes(), start=1)]
                                 if state.players else [])
    return fields


def _entrants(state: State) -> dict[str, dict[str, Any]]:
    """Each player's entrant columns (place and prize once the payout is known)."""
    payout = state.payout
    rows = {}
    for player in state.players.values():
        player_id = player.player_id
        rows[player_id] = {
            "entries": player.entries, "rebuys": player.rebuys, "add_ons": player.add_ons,
            "paid_minor": (player.paid_prize_minor + player.paid_fee_minor
                           + player.paid_bounty_minor),
            "bounty_minor": player.bounty_minor,
            "bounties_won_minor": state.bounties_won.get(player_id, 0),
            "status": (EntrantStatus.DISQUALIFIED if player.disqualified else
                       EntrantStatus.EXCLUDED if player.excluded else
                       EntrantStatus.PLAYING if player.alive else EntrantStatus.OUT),
            "place": payout.places.get(player_id) if payout is not None else None,
            "prize_minor": payout.prizes_minor.get(player_id, 0) if payout is not None else 0,
        }
    return rows


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
