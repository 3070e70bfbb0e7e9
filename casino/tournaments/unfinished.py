"""Unfinished HexaPro games past the rulebook's days: a compliance alert each (001:L576).

"HexaPro games not played to the end are completed within 90 days"
(001:L576; figure `hexapro.unfinished.settle_within`, days, of the
tournament's rulebook). The seed says neither how a game is completed nor
what happens to it otherwise, so the system does not complete it itself
(decision `hexapro.unfinished.completion` in the veikkaus-online-poker
rulebook): the daily job raises a `compliance.alert_raised` of kind
`unfinished_game` for each HexaPro game that started (its
`tournaments.tournament_started` business time) at least the figure's days
ago and is still playing, and the operator completes it with the commands
that already exist (eliminations and `finish`, or a cancellation).

One alert per game: it is the first event of the game's own stream
`tournament/<id>/unfinished` (expected version 0), so a rerun, a second
beat or a retried task raises nothing more. Not the tournament's stream:
its snapshot follows the tournament's own events only.

`flag_unfinished_hexapro` raises one game's alert; `flag_unfinished_hexapro_games`
is the job (management command `flag_unfinished_hexapro`, Celery task
`casino.tournaments.tasks.flag_unfinished_hexapro` on beat).
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from casino import clock
from casino.compliance.events import ALERT_RAISED
from casino.compliance.models import AlertKind
from casino.rules import queries as rules
from casino.rules.models import RulebookVersion, Venue
from casino.runner import BaseCommand, Call, Decision, run
from ledger import InvariantViolation, NewEvent, RecordedEvent
from ledger.read import stream_events, stream_version

from . import events as ev
from .errors import TournamentError, TournamentErrorCode as Code
from .models import PLAYING, Tournament

SETTLE_WITHIN = "hexapro.unfinished.settle_within"
HEXAPRO = "hexapro"
SOURCE = "casino.tournaments"


def unfinished_stream(tournament_id: str) -> str:
    """The stream of a game's overdue alert: one event at most."""
    return f"{ev.tournament_stream(tournament_id)}/unfinished"


@dataclass(frozen=True, slots=True)
class OverdueAlert:
    tournament_id: str
    venue: str
    started_at: dt.datetime
    days: int
    position: int
    replayed: bool = False


def _rulebook(key: str) -> RulebookVersion:
    rulebook_id, version = key.rsplit("@", 1)
    return RulebookVersion.objects.get(rulebook_id=rulebook_id, version=int(version))


def settle_within(row: Tournament, at: dt.datetime) -> tuple[int, str] | None:
    """(days, cite) of the tournament's rulebook for an unfinished HexaPro game, or None."""
    place = rules.venue(row.venue)
    on = at.astimezone(zoneinfo.ZoneInfo(place.time_zone)).date()
    figure = rules.figure(_rulebook(row.rulebook), SETTLE_WITHIN, on)
    return None if figure is None else (int(figure.value), figure.cite)


def started_at(tournament_id: str) -> dt.datetime | None:
    """The business time of the tournament's start, or None before it."""
    stream, after = ev.tournament_stream(tournament_id), 0
    while True:
        page = stream_events(stream, after)
        for event in page:
            if event.type == ev.STARTED:
                return event.occurred_at
        if not page:
            return None
        after = page[-1].version


def overdue_games(at: dt.datetime) -> list[str]:
    """HexaPro games still playing the figure's days after their start, not yet flagged."""
    due = []
    for row in Tournament.objects.filter(format=HEXAPRO, state__in=PLAYING).order_by("id"):
        rule = settle_within(row, at)
        start = started_at(row.id)
        if rule is None or start is None or at - start < dt.timedelta(days=rule[0]):
            continue
        if stream_version(unfinished_stream(row.id)) == 0:
            due.append(row.id)
    return due


def flag_unfinished_hexapro(*, tournament_id: str, actor: str,
                            idempotency_key: str | None = None,
                            at: dt.datetime | None = None) -> OverdueAlert:
    """Raise the compliance alert of one overdue HexaPro game (001:L576).

    Raises TournamentError: an unknown tournament (404), or 409
    `tournaments.not_overdue` for a game that is not HexaPro, not playing,
    under a rulebook without `hexapro.unfinished.settle_within`, younger than
    its days, or already flagged.
    """
    return run(FLAG_UNFINISHED, {"tournament_id": tournament_id},
               Call(actor=actor, key=idempotency_key, at=at, source=SOURCE))


def flag_unfinished_hexapro_games(*, actor: str, at: dt.datetime | None = None
                                  ) -> list[OverdueAlert]:
    """The daily job: flag every overdue HexaPro game once."""
    at = at or clock.now()
    return [flag_unfinished_hexapro(tournament_id=tournament_id, actor=actor, at=at)
            for tournament_id in overdue_games(at)]


@dataclass(frozen=True, slots=True)
class Overdue:
    row: Tournament
    place: Venue
    at: dt.datetime
    started_at: dt.datetime
    days: int
    cite: str


def _not_overdue(row: Tournament, why: str) -> TournamentError:
    return TournamentError(Code.NOT_OVERDUE, f"tournament {row.id} {why}",
                           tournament_id=row.id, figure=SETTLE_WITHIN)


class FlagUnfinishedHexaPro(BaseCommand[Overdue, OverdueAlert]):
    name = "tournaments.flag_unfinished_hexapro"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> Overdue:
        tournament_id = arguments["tournament_id"]
        row = Tournament.objects.filter(id=tournament_id).first()
        if row is None:
            raise TournamentError(Code.UNKNOWN_TOURNAMENT, f"no tournament {tournament_id!r}",
                                  tournament_id=tournament_id)
        at = call.moment()
        if row.format != HEXAPRO or row.state not in PLAYING:
            raise _not_overdue(row, f"is not a HexaPro game in play ({row.format}, {row.state})")
        rule = settle_within(row, at)
        if rule is None:
            raise _not_overdue(row, "is under a rulebook that sets no time to complete it")
        start = started_at(row.id)
        if start is None:
            raise InvariantViolation(f"tournament {row.id} is playing without a start event")
        if at - start < dt.timedelta(days=rule[0]):
            raise _not_overdue(row, f"started {start.isoformat()}: it has {rule[0]} days"
                                    " to be completed")
        if stream_version(unfinished_stream(row.id)):
            raise _not_overdue(row, "is already flagged")
        return Overdue(row, rules.venue(row.venue), at, start, rule[0], rule[1])

    def decide(self, context: Overdue) -> Decision:
        row, at = context.row, context.at
        due = context.started_at + dt.timedelta(days=context.days)
        alert = {
            "kind": AlertKind.UNFINISHED_GAME.value,
            "summary": (f"HexaPro game {row.id} at {row.venue} started"
                        f" {context.started_at.isoformat()} and is not finished: it was to be"
                        f" completed by {due.isoformat()} ({context.days} days, {context.cite})"),
            "player_id": "",
            "venue": row.venue,
            "details": {"tournament_id": row.id, "format": row.format, "state": row.state,
                        "started_at": context.started_at.isoformat(),
                        "due_at": due.isoformat(),
                        "rule": {"key": SETTLE_WITHIN, "days": context.days,
                                 "cite": context.cite},
                        "hint": ("Complete the game: record its eliminations and finish it,"
                                 " or cancel it by the cancellation policy.")},
        }
        event = NewEvent(stream=unfinished_stream(row.id), type=ALERT_RAISED, payload=alert,
                         occurred_at=at, gaming_day=rules.venue_day(context.place, at))
        return Decision([event], {event.stream: 0})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> OverdueAlert:
        p = events[0].payload
        return OverdueAlert(tournament_id=p["details"]["tournament_id"], venue=p["venue"],
                            started_at=dt.datetime.fromisoformat(p["details"]["started_at"]),
                            days=p["details"]["rule"]["days"], position=events[0].position,
                            replayed=replayed)


FLAG_UNFINISHED = FlagUnfinishedHexaPro()
