"""Write side of the sit'n'go jackpots (issue 22 item 6; 002:L3295-3299, L3327-3329).

A sit'n'go jackpot is posted as a series (`post_series`): its venue, the
number of consecutive sit'n'go jackpot tournaments a player must win to
trigger it and the jackpot fee each entrant pays, as the game instructions
announce them (decision sitngo.posted). Each finished sit'n'go tournament of
the venue is then recorded for the series (`record_tournament`): the app
reads the tournament's entrants and winner from the tournaments app's
projection, never from the client; every entrant's fee goes from the gaming
account to the series' pool through the compliance pipeline (a tournament
entry fee under Part IV, 002:L3483-3485); the winner's streak grows by one,
every other entrant's streak ends; a streak that reaches the trigger pays the
whole pool to the winner (credited up to the account ceiling, the rest owed
to the bank account as the games do) and starts again from nothing.
Every write goes through `casino.runner.run`.

A series is of one kind (decision sitngo.slot_series): `poker` counts the
tournaments app's sit'n'gos (002:L3299), `slot` counts the machines' slot
tournaments played as sit'n'gos (002:L3327-3329), online only, as the
section is the internet games'. A slot tournament's entrants are its
`machines.slot_tournament_entered` events, its winner the first of the
finishing ranking; its jackpot fee passes the pipeline as the venue's
`slot_tournament/entry_fee` row (002:L3487 online). A slot tournament
counted for a slot series is one of its sit'n'go jackpot tournaments: the
machines app records no sit'n'go flag, so counting it is the operator's
statement (the series' posted criteria, 002:L3329 "muut kriteerit").
"""

from __future__ import annotations

import datetime as dt
import uuid
import zoneinfo
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from casino.accounts import gaming_account
from casino.compliance.checks import AttemptContext, Verdict, run_checks
from casino.compliance.pipeline import Attempt, load_context, rejection, venue_day
from casino.compliance.pipeline import verdict_record
from casino.rules import queries as rules
from casino.rules.models import Venue, VenueType
from casino.runner import BaseCommand, Call, Decision, Rejection, run
from casino.tournaments.models import Entrant, Tournament
from casino.wallet import PlayerCredit, accounts_to_open, credit_players
from ledger import NewEvent, Posting, RecordedEvent
from ledger.read import AccountType, stream_events, stream_version

from .errors import SitngoError, SitngoErrorCode as Code
from .events import (
    SCHEMA_VERSION,
    SERIES_POSTED,
    SOURCE,
    TOURNAMENT_RECORDED,
    pool_account,
    series_stream,
)
from .models import SitngoSeries, SitngoStreak, SitngoTournament

SIT_AND_GO = "sit_and_go"
WINS_TO_TRIGGER_MAX = 100     # a named bound on the posted trigger
# Part IV caps a tournament's entry fee (002:L3483-3485): the jackpot fee is
# part of what an entrant pays for a sit'n'go of poker played between players.
FEE_GAME, FEE_UNIT = "poker_pvp_tournament", "entry_fee"
# A slot sit'n'go's jackpot fee is part of its entry (002:L3487 online).
SLOT_FEE_GAME = "slot_tournament"
POKER, SLOT = "poker", "slot"
KINDS = (POKER, SLOT)
# The machines' slot tournaments, read from their stream (casino/machines/events.py).
SLOT_TOURNAMENT_ENTERED = "machines.slot_tournament_entered"
SLOT_TOURNAMENT_FINISHED = "machines.slot_tournament_finished"


@dataclass(frozen=True, slots=True)
class SeriesResult:
    series_id: str
    venue: str
    currency: str
    wins_to_trigger: int
    fee_minor: int
    position: int
    replayed: bool = False
    kind: str = POKER


@dataclass(frozen=True, slots=True)
class RecordResult:
    series_id: str
    tournament_id: str
    winner_id: str
    winner_streak: int
    fees_minor: int
    jackpot_minor: int
    position: int
    replayed: bool = False


def _call(actor: str, key: str | None, at: dt.datetime | None) -> Call:
    return Call(actor=actor, key=key, at=at, source=SOURCE)


# ---------------------------------------------------------------------------
# Posting a series
# ---------------------------------------------------------------------------


def post_series(*, venue: str, wins_to_trigger: int, fee_minor: int, actor: str,
                kind: str = POKER, idempotency_key: str | None = None,
                at: dt.datetime | None = None) -> SeriesResult:
    """Post a sit'n'go jackpot: its trigger (consecutive wins) and its fee (002:L3299),
    for poker sit'n'gos or (kind `slot`, online) slot sit'n'gos (002:L3329)."""
    arguments = {"venue": venue, "wins_to_trigger": wins_to_trigger, "fee_minor": fee_minor}
    if kind != POKER:
        arguments["kind"] = kind
    return run(POST_SERIES, arguments, _call(actor, idempotency_key, at))


@dataclass(frozen=True)
class SeriesContext:
    series_id: str
    place: Venue
    wins_to_trigger: int
    fee_minor: int
    at: dt.datetime
    kind: str = POKER


class PostSeries(BaseCommand[SeriesContext, SeriesResult]):
    name = "sitngo.post_series"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> SeriesContext:
        wins, fee = arguments["wins_to_trigger"], arguments["fee_minor"]
        if type(wins) is not int or not 2 <= wins <= WINS_TO_TRIGGER_MAX:
            raise SitngoError(Code.INVALID_REQUEST, "wins_to_trigger is a whole number of"
                              f" consecutive wins from 2 to {WINS_TO_TRIGGER_MAX}",
                              field="wins_to_trigger")
        if type(fee) is not int or fee <= 0:
            raise SitngoError(Code.INVALID_REQUEST, "the jackpot fee must be a positive"
                              " amount", field="fee")
        kind = arguments.get("kind", POKER)
        if kind not in KINDS:
            raise SitngoError(Code.INVALID_REQUEST, f"kind is one of {', '.join(KINDS)}",
                              field="kind")
        place, at = rules.venue(arguments["venue"]), call.moment()
        if kind == SLOT and _venue_type(place, at) != VenueType.ONLINE:
            raise SitngoError(Code.INVALID_REQUEST, "a slot sit'n'go jackpot is an online"
                              " game's (002:L3327-3329)", field="kind", cite="002:L3329")
        return SeriesContext(series_id=f"sng-{uuid.uuid4().hex[:12]}", place=place,
                             wins_to_trigger=wins, fee_minor=fee, at=at, kind=kind)

    def decide(self, context: SeriesContext) -> Decision:
        place = context.place
        event = NewEvent(stream=series_stream(context.series_id), type=SERIES_POSTED,
                         payload={"series_id": context.series_id, "venue": place.code,
                                  "currency": place.currency,
                                  "wins_to_trigger": context.wins_to_trigger,
                                  "fee_minor": context.fee_minor, "kind": context.kind,
                                  "cite": "002:L3329" if context.kind == SLOT
                                  else "002:L3299", "decision": "sitngo.posted"},
                         schema_version=SCHEMA_VERSION, occurred_at=context.at,
                         gaming_day=venue_day(place, context.at))
        pool = dict(code=pool_account(place.code, context.series_id),
                    type=AccountType.LIABILITY, currency=place.currency, must_not_go_negative=True,
                    name=f"Sit'n'go jackpot pool {context.series_id} at {place.code}")
        return Decision([event], {event.stream: 0}, accounts=[pool])

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> SeriesResult:
        p = events[0].payload
        return SeriesResult(series_id=p["series_id"], venue=p["venue"],
                            currency=p["currency"], wins_to_trigger=p["wins_to_trigger"],
                            fee_minor=p["fee_minor"], position=events[0].position,
                            replayed=replayed, kind=p.get("kind", POKER))


def _venue_type(place: Venue, at: dt.datetime) -> str:
    rulebook = rules.rulebook_in_force(place.rulebook_id, venue_day(place, at))
    return place.venue_type or rulebook.venue_type


def _slot_tournament(series: SitngoSeries, tournament_id: str
                     ) -> tuple[tuple[str, ...], str | None]:
    """A finished slot tournament's entrants and winner, from its stream (002:L3329).

    Raises SitngoError unknown_tournament (none at the series' venue) or
    not_eligible (not finished, or no one ranked).
    """
    events = stream_events(f"machines/tournament/{tournament_id}")
    if not events or events[0].payload.get("venue") != series.venue:
        raise SitngoError(Code.UNKNOWN_TOURNAMENT, f"no slot tournament {tournament_id!r} at"
                          f" {series.venue}", tournament_id=tournament_id)
    entrants = tuple(dict.fromkeys(e.payload["player_id"] for e in events
                                   if e.type == SLOT_TOURNAMENT_ENTERED))
    finished = [e for e in events if e.type == SLOT_TOURNAMENT_FINISHED]
    ranking = finished[-1].payload.get("ranking") if finished else None
    if not ranking or ranking[0] not in entrants:
        raise SitngoError(Code.NOT_ELIGIBLE, f"{tournament_id} is not a finished slot"
                          f" sit'n'go at {series.venue} with a winner (002:L3329)",
                          tournament_id=tournament_id, cite="002:L3329")
    return entrants, ranking[0]


# ---------------------------------------------------------------------------
# Recording a tournament
# ---------------------------------------------------------------------------


def record_tournament(*, series_id: str, tournament_id: str, actor: str,
                      idempotency_key: str | None = None, at: dt.datetime | None = None
                      ) -> RecordResult:
    """Count a finished sit'n'go for the series: fees to the pool, streaks, a hit.

    Refused (nothing written): an unknown series or tournament (404), one not a
    finished sit'n'go of the series' venue (422 sitngo.not_eligible), one
    counted already (409). An entrant's fee refused by the compliance pipeline
    is recorded as the pipeline's rejection and nothing is collected.
    """
    return run(RECORD_TOURNAMENT, {"series_id": series_id, "tournament_id": tournament_id},
               _call(actor, idempotency_key, at))


@dataclass(frozen=True)
class RecordContext:
    series: SitngoSeries
    version: int
    place: Venue
    tournament_id: str
    entrants: tuple[str, ...]
    winner_id: str
    streaks: Mapping[str, int]
    attempts: tuple[tuple[Attempt, AttemptContext, Verdict], ...]
    credits: Mapping[str, PlayerCredit]
    player_versions: Mapping[str, int]
    at: dt.datetime

    @property
    def triggered(self) -> bool:
        return self.streaks.get(self.winner_id, 0) + 1 >= self.series.wins_to_trigger

    @property
    def fees_minor(self) -> int:
        return self.series.fee_minor * len(self.entrants)

    @property
    def jackpot_minor(self) -> int:
        return self.series.pool_minor + self.fees_minor if self.triggered else 0


def _poker_tournament(series: SitngoSeries, tournament_id: str
                      ) -> tuple[tuple[str, ...], str]:
    """A finished poker sit'n'go's entrants and winner (the tournaments app's rows)."""
    tournament = Tournament.objects.filter(id=tournament_id).first()
    if tournament is None:
        raise SitngoError(Code.UNKNOWN_TOURNAMENT, f"no tournament {tournament_id!r}",
                          tournament_id=tournament_id)
    entrants = list(Entrant.objects.filter(tournament=tournament).order_by("key")
                    .values_list("player_id", "place"))
    winners = [p for p, place in entrants if place == 1]
    if (tournament.format != SIT_AND_GO or tournament.venue != series.venue
            or tournament.state != "finished" or len(winners) != 1):
        raise SitngoError(Code.NOT_ELIGIBLE, f"{tournament_id} is not a finished sit'n'go"
                          f" at {series.venue} with one winner (002:L3299)",
                          tournament_id=tournament_id, format=tournament.format,
                          state=tournament.state, cite="002:L3299")
    return tuple(p for p, _ in entrants), winners[0]


class RecordTournament(BaseCommand[RecordContext, RecordResult]):
    name = "sitngo.record_tournament"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> RecordContext:
        series_id, tournament_id = arguments["series_id"], arguments["tournament_id"]
        if not isinstance(series_id, str) or not isinstance(tournament_id, str):
            raise SitngoError(Code.INVALID_REQUEST, "give the series and tournament ids")
        version = stream_version(series_stream(series_id))
        series = SitngoSeries.objects.filter(id=series_id).first()
        if series is None:
            raise SitngoError(Code.UNKNOWN_SERIES, f"no series {series_id!r}",
                              series_id=series_id)
        if SitngoTournament.objects.filter(key=f"{series_id}/{tournament_id}").exists():
            raise SitngoError(Code.ALREADY_RECORDED, f"{tournament_id} is counted already",
                              tournament_id=tournament_id)
        if series.kind == SLOT:
            players, winner = _slot_tournament(series, tournament_id)
            fee_game, category = SLOT_FEE_GAME, None
        else:
            players, winner = _poker_tournament(series, tournament_id)
            fee_game, category = FEE_GAME, "pvp"
        at = call.moment()
        place = rules.venue(series.venue)
        streaks = dict(SitngoStreak.objects.filter(series=series, player_id__in=players)
                       .values_list("player_id", "wins"))
        attempts = []
        for player_id in players:
            attempt = Attempt(kind="stake", venue=series.venue, amount_minor=series.fee_minor,
                              currency=series.currency, player_id=player_id, game=fee_game,
                              bet_unit=FEE_UNIT, category=category, at=at)
            context = load_context(attempt)
            attempts.append((attempt, context, run_checks(context)))
        context = RecordContext(series=series, version=version, place=place,
                                tournament_id=tournament_id, entrants=players,
                                winner_id=winner, streaks=streaks,
                                attempts=tuple(attempts), credits={}, player_versions={},
                                at=at)
        if context.triggered and all(v.allowed for _, _, v in attempts):
            on = at.astimezone(zoneinfo.ZoneInfo(place.time_zone)).date()
            versions = {f"player/{context.winner_id}":
                        stream_version(f"player/{context.winner_id}")}
            credits = credit_players({context.winner_id: context.jackpot_minor},
                                     currency=series.currency, venue=series.venue, on=on,
                                     open_payouts_due=False)
            context = replace(context, credits=credits, player_versions=versions)
        return context

    def check(self, context: RecordContext) -> Rejection | None:
        for attempt, compliance, verdict in context.attempts:
            if not verdict.allowed:
                return rejection(attempt, compliance, verdict)
        return None

    def decide(self, context: RecordContext) -> Decision:
        series, currency = context.series, context.series.currency
        pool = pool_account(series.venue, series.id)
        postings = [Posting(gaming_account(p), series.fee_minor, currency)
                    for p in context.entrants]
        postings.append(Posting(pool, -context.fees_minor, currency))
        streaks_after = {p: 0 for p in context.entrants}
        winner_streak = context.streaks.get(context.winner_id, 0) + 1
        streaks_after[context.winner_id] = 0 if context.triggered else winner_streak
        payload: dict[str, Any] = {
            "series_id": series.id, "tournament_id": context.tournament_id,
            "venue": series.venue, "entrants": list(context.entrants),
            "winner_id": context.winner_id, "winner_streak": winner_streak,
            "wins_to_trigger": series.wins_to_trigger, "fee_minor": series.fee_minor,
            "fees_minor": context.fees_minor, "jackpot_minor": context.jackpot_minor,
            "streaks_after": streaks_after,
            "cite": "002:L3329" if series.kind == SLOT else "002:L3299",
            "verdicts": {a.player_id: verdict_record(v) for a, _, v in context.attempts},
        }
        accounts = []
        if context.triggered:
            credit = context.credits[context.winner_id]
            postings.append(Posting(pool, context.jackpot_minor, currency))
            postings += list(credit.postings)
            payload["jackpot"] = {"player_id": context.winner_id,
                                  "amount_minor": context.jackpot_minor,
                                  "overflow": credit.overflow}
            accounts = accounts_to_open(context.credits.values())
        day = venue_day(context.place, context.at)
        event = NewEvent(stream=series_stream(series.id), type=TOURNAMENT_RECORDED,
                         payload=payload, postings=tuple(postings),
                         schema_version=SCHEMA_VERSION, occurred_at=context.at,
                         gaming_day=day)
        return Decision([event], {event.stream: context.version, **context.player_versions},
                        accounts=accounts)

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> RecordResult:
        p = events[-1].payload
        if events[-1].type != TOURNAMENT_RECORDED:
            raise SitngoError(Code.NOT_ELIGIBLE, "refused by the compliance pipeline")
        return RecordResult(series_id=p["series_id"], tournament_id=p["tournament_id"],
                            winner_id=p["winner_id"], winner_streak=p["winner_streak"],
                            fees_minor=p["fees_minor"], jackpot_minor=p["jackpot_minor"],
                            position=events[-1].position, replayed=replayed)


POST_SERIES = PostSeries()
RECORD_TOURNAMENT = RecordTournament()
COMMANDS = {c.name: c for c in (POST_SERIES, RECORD_TOURNAMENT)}
