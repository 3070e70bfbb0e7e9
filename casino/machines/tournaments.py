"""Slot tournaments: a capped entry fee, prizes published before the start.

Seed 002:
- the entry fee is capped by Part IV: EUR 20 at the halls (L3375; the
  partner premises' rulebook states the same row), EUR 2,000 at the casino
  (L3445), EUR 500 online (L3487); each fee passes the compliance pipeline
  as the venue's `slot_tournament/entry_fee` row (announce: the fee itself;
  enter: the player's age, self-exclusion and limits too). A fee over its
  cap is refused and recorded (`machines.slot_tournament_rejected`);
- the stakes placed in the tournament's machines have no money value
  (L3375): tournament play is never reported as money rounds; only the
  fees and the prizes move money;
- the prize is the sum of the fees, a part of it, or a fixed amount
  (L3317), announced separately (L3375): prizes are published with the
  announcement and may be published again only before the start.

Prizes are either `{"fixed_minor": [first, second, ...]}` or
`{"share_bp": [first, ...]}` (basis points of the fees, at most 10,000
in all). Money (debit positive): an entry at a land venue is paid in cash at
its cage (cage/<venue>/cash +F), online from the gaming account
(player/<id>/account +F); both credit the tournament's pool
(machines/tournament/<id>/prize_pool -F). At the finish each prize is paid from
the pool (land: in cash at the cage, online: to the gaming account up to
its ceiling); decision machines.tournament.overlay: a fixed prize beyond
the fees is the house's (house/<venue>/tournament_prizes), and fees beyond
the prizes are its revenue (house/<venue>/tournament_fees).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from casino.accounts import cage_cash, gaming_account
from casino.compliance.checks import run_checks
from casino.compliance.pipeline import Attempt, load_context, venue_day
from casino.rules import queries as rules
from casino.rules.models import Venue, VenueType
from casino.runner import BaseCommand, Call, Decision, Rejection, run
from casino.wallet import accounts_to_open, credit_players
from ledger import NewEvent, Posting, RecordedEvent
from ledger.read import Account, AccountType, stream_version

from .errors import MachinesError, MachinesErrorCode as Code
from .events import (
    SCHEMA_VERSION,
    SLOT_TOURNAMENT_ANNOUNCED,
    SLOT_TOURNAMENT_ENTERED,
    SLOT_TOURNAMENT_FINISHED,
    SLOT_TOURNAMENT_PRIZES_PUBLISHED,
    SLOT_TOURNAMENT_REJECTED,
    SLOT_TOURNAMENT_STARTED,
    SOURCE,
    slot_tournament_pool,
    slot_tournament_stream,
)
from .models import SlotTournament, SlotTournamentState

TOURNAMENT_ID = re.compile(r"^[A-Za-z0-9._-]{1,40}$")
PLACES_MAX = 100
AMOUNT_MINOR_MAX = 10**10
GAME, BET_UNIT = "slot_tournament", "entry_fee"


def _invalid(message: str, **details: Any) -> MachinesError:
    return MachinesError(Code.INVALID_REQUEST, message, **details)


def _call(actor: str, key: str | None) -> Call:
    return Call(actor=actor, key=key, source=SOURCE)


def _prizes(prizes: Mapping[str, Any]) -> dict[str, list[int]]:
    """Validate published prizes: fixed amounts or shares of the fees (002:L3317)."""
    if not isinstance(prizes, Mapping) or len(prizes) != 1:
        raise _invalid("prizes: either fixed_minor or share_bp", field="prizes")
    (kind, values), = prizes.items()
    if kind not in ("fixed_minor", "share_bp") or not isinstance(values, list):
        raise _invalid("prizes: either fixed_minor or share_bp, a list per place",
                       field="prizes")
    if not 1 <= len(values) <= PLACES_MAX or any(
            type(v) is not int or not 0 < v <= AMOUNT_MINOR_MAX for v in values):
        raise _invalid(f"prizes: 1 to {PLACES_MAX} positive whole numbers", field="prizes")
    if kind == "share_bp" and sum(values) > 10_000:
        raise _invalid("prize shares add up to at most the fees (10,000 bp)", field="prizes")
    return {kind: list(values)}


@dataclass(frozen=True, slots=True)
class TournamentResult:
    tournament_id: str
    venue: str
    state: str
    entry_fee_minor: int
    prizes: Mapping[str, Any]
    position: int
    replayed: bool = False
    paid: Mapping[str, int] = dataclasses.field(default_factory=dict)


def _result(event: RecordedEvent, replayed: bool) -> TournamentResult:
    p = event.payload
    state = {SLOT_TOURNAMENT_ANNOUNCED: SlotTournamentState.ANNOUNCED,
             SLOT_TOURNAMENT_PRIZES_PUBLISHED: SlotTournamentState.ANNOUNCED,
             SLOT_TOURNAMENT_ENTERED: SlotTournamentState.ANNOUNCED,
             SLOT_TOURNAMENT_STARTED: SlotTournamentState.STARTED,
             SLOT_TOURNAMENT_FINISHED: SlotTournamentState.FINISHED}[event.type]
    return TournamentResult(p["tournament_id"], p["venue"], state,
                            p.get("entry_fee_minor", 0), p.get("prizes", {}), event.position,
                            replayed, p.get("paid", {}))


def _refused(payload: Mapping[str, Any], position: int | None) -> MachinesError:
    return MachinesError(Code.SLOT_TOURNAMENT_REJECTED, payload["message"],
                         tournament_id=payload["tournament_id"], rule=payload["rule"],
                         limit_minor=payload["limit_minor"], cite=payload["cite"],
                         rejection_position=position)


def _fee_rejection(stream: str, tournament_id: str, place: Venue, context, verdict,
                   at: dt.datetime, player_id: str | None = None) -> Rejection:
    f = verdict.failure
    payload = {"tournament_id": tournament_id, "venue": place.code, "player_id": player_id,
               "rule": f.code, "message": f.message, "amount_minor": f.amount_minor,
               "limit_minor": f.limit_minor, "rulebook": f.rulebook, "cite": f.cite,
               "hint": f.hint}
    event = NewEvent(stream=stream, type=SLOT_TOURNAMENT_REJECTED, payload=payload,
                     schema_version=SCHEMA_VERSION, occurred_at=at,
                     gaming_day=venue_day(place, at))
    return Rejection(event, lambda position: _refused(payload, position))


# ---------------------------------------------------------------------------
# Announce, publish prizes
# ---------------------------------------------------------------------------


def announce_slot_tournament(*, tournament_id: str, venue: str, name: str,
                             entry_fee_minor: int, prizes: Mapping[str, Any], actor: str,
                             idempotency_key: str | None = None) -> TournamentResult:
    """Announce a slot tournament with its entry fee and its prizes (published now).

    422 machines.slot_tournament_rejected (recorded, rule compliance.max_stake)
    for a fee over the venue's cap: EUR 20 halls (002:L3375), EUR 2,000 casino
    (L3445), EUR 500 online (L3487).
    """
    if not isinstance(tournament_id, str) or not TOURNAMENT_ID.match(tournament_id):
        raise _invalid("tournament_id: 1-40 letters, digits, '.', '_' or '-'",
                       field="tournament_id")
    if type(entry_fee_minor) is not int or not 0 < entry_fee_minor <= AMOUNT_MINOR_MAX:
        raise _invalid("entry_fee: a positive whole number of cents", field="entry_fee")
    arguments = {"tournament_id": tournament_id, "venue": venue, "name": str(name),
                 "entry_fee_minor": entry_fee_minor, "prizes": _prizes(prizes)}
    return run(ANNOUNCE, arguments, _call(actor, idempotency_key))


@dataclass(frozen=True, slots=True)
class AnnounceContext:
    arguments: Mapping[str, Any]
    place: Venue
    attempt: Any
    verdict: Any
    at: dt.datetime


class Announce(BaseCommand[AnnounceContext, TournamentResult]):
    name = "machines.announce_slot_tournament"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> AnnounceContext:
        if stream_version(slot_tournament_stream(arguments["tournament_id"])):
            raise MachinesError(Code.SLOT_TOURNAMENT_EXISTS,
                                f"slot tournament {arguments['tournament_id']} is announced",
                                tournament_id=arguments["tournament_id"])
        place = rules.venue(arguments["venue"])
        at = call.moment()
        attempt = load_context(Attempt(kind="stake", venue=place.code,
                                       amount_minor=arguments["entry_fee_minor"],
                                       currency=place.currency, game=GAME, bet_unit=BET_UNIT,
                                       at=at))
        return AnnounceContext(arguments, place, attempt, run_checks(attempt), at)

    def check(self, context: AnnounceContext) -> Rejection | None:
        if context.verdict.allowed:
            return None
        a = context.arguments
        return _fee_rejection(slot_tournament_stream(a["tournament_id"]), a["tournament_id"],
                              context.place, context.attempt, context.verdict, context.at)

    def decide(self, context: AnnounceContext) -> Decision:
        a, place = context.arguments, context.place
        stream = slot_tournament_stream(a["tournament_id"])
        event = NewEvent(stream=stream, type=SLOT_TOURNAMENT_ANNOUNCED,
                         payload={**a, "venue": place.code, "currency": place.currency,
                                  "cap": {"limit_minor": context.attempt.stake_limit.value,
                                          "cite": context.attempt.stake_limit.cite},
                                  "verdict": {"rulebook": context.verdict.rulebook,
                                              "checks_passed":
                                                  list(context.verdict.checks_passed)}},
                         schema_version=SCHEMA_VERSION, occurred_at=context.at,
                         gaming_day=venue_day(place, context.at))
        pool = dict(code=slot_tournament_pool(a["tournament_id"]), type=AccountType.LIABILITY,
                    currency=place.currency, must_not_go_negative=True,
                    name=f"Slot tournament {a['tournament_id']} prize pool")
        return Decision([event], {stream: 0}, accounts=[pool])

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> TournamentResult:
        if events[0].type == SLOT_TOURNAMENT_REJECTED:
            raise _refused(events[0].payload, events[0].position)
        return _result(events[0], replayed)


ANNOUNCE = Announce()


@dataclass(frozen=True, slots=True)
class StateContext:
    tournament: SlotTournament
    place: Venue
    version: int
    arguments: Mapping[str, Any]
    at: dt.datetime
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)


def _load_tournament(arguments: Mapping[str, Any], call: Call, *states: str) -> StateContext:
    tournament = SlotTournament.objects.filter(id=arguments["tournament_id"]).first()
    if tournament is None:
        raise MachinesError(Code.UNKNOWN_SLOT_TOURNAMENT,
                            f"no slot tournament {arguments['tournament_id']!r}",
                            tournament_id=arguments["tournament_id"])
    version = stream_version(slot_tournament_stream(tournament.id))
    if tournament.state not in states:
        raise MachinesError(Code.SLOT_TOURNAMENT_STATE,
                            f"slot tournament {tournament.id} is {tournament.state}",
                            tournament_id=tournament.id, state=tournament.state)
    return StateContext(tournament, rules.venue(tournament.venue), version, arguments,
                        call.moment())


def _event(context: StateContext, type_: str, payload: Mapping[str, Any],
           postings: Sequence[Posting] = ()) -> NewEvent:
    t = context.tournament
    return NewEvent(stream=slot_tournament_stream(t.id), type=type_,
                    payload={"tournament_id": t.id, "venue": t.venue,
                             "entry_fee_minor": t.entry_fee_minor, "prizes": t.prizes,
                             **payload},
                    postings=tuple(postings), schema_version=SCHEMA_VERSION,
                    occurred_at=context.at, gaming_day=venue_day(context.place, context.at))


class _StateCommand(BaseCommand[StateContext, TournamentResult]):
    source = SOURCE
    states: tuple[str, ...] = (SlotTournamentState.ANNOUNCED,)

    def load(self, arguments: Mapping[str, Any], call: Call) -> StateContext:
        return _load_tournament(arguments, call, *self.states)

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> TournamentResult:
        if events[0].type == SLOT_TOURNAMENT_REJECTED:
            raise _refused(events[0].payload, events[0].position)
        return _result(events[0], replayed)


class PublishPrizes(_StateCommand):
    name = "machines.publish_slot_tournament_prizes"

    def decide(self, context: StateContext) -> Decision:
        event = _event(context, SLOT_TOURNAMENT_PRIZES_PUBLISHED,
                       {"prizes": context.arguments["prizes"]})
        return Decision([event], {event.stream: context.version})


def publish_prizes(*, tournament_id: str, prizes: Mapping[str, Any], actor: str,
                   idempotency_key: str | None = None) -> TournamentResult:
    """Publish the tournament's prizes again; only before its start (002:L3375).

    409 machines.slot_tournament_state once it has started.
    """
    return run(PUBLISH, {"tournament_id": tournament_id, "prizes": _prizes(prizes)},
               _call(actor, idempotency_key))


PUBLISH = PublishPrizes()


# ---------------------------------------------------------------------------
# Enter, start, finish
# ---------------------------------------------------------------------------


def enter_slot_tournament(*, tournament_id: str, player_id: str, actor: str,
                          idempotency_key: str | None = None) -> TournamentResult:
    """Enter a player before the start, paying the fee (cash at the cage; online the account).

    The fee passes the pipeline for the player (age, self-exclusion, the
    cap again, online the player's limits); a refusal is recorded.
    """
    return run(ENTER, {"tournament_id": tournament_id, "player_id": player_id},
               _call(actor, idempotency_key))


class Enter(_StateCommand):
    name = "machines.enter_slot_tournament"

    def load(self, arguments: Mapping[str, Any], call: Call) -> StateContext:
        context = _load_tournament(arguments, call, *self.states)
        t = context.tournament
        attempt = load_context(Attempt(kind="stake", venue=t.venue,
                                       amount_minor=t.entry_fee_minor, currency=t.currency,
                                       player_id=arguments["player_id"], game=GAME,
                                       bet_unit=BET_UNIT, at=context.at))
        online = _venue_type(context.place, context.at) == VenueType.ONLINE
        balance = None
        if online:
            balance = Account.objects.filter(code=gaming_account(
                arguments["player_id"])).values_list("balance_minor", flat=True).first() or 0
        return dataclasses.replace(context, extra={
            "attempt": attempt, "verdict": run_checks(attempt), "online": online,
            "balance": balance})

    def check(self, context: StateContext) -> Rejection | None:
        verdict = context.extra["verdict"]
        if verdict.allowed:
            if (context.extra["online"]
                    and context.extra["balance"] < context.tournament.entry_fee_minor):
                raise MachinesError(Code.INVALID_REQUEST,
                                    "the gaming account does not hold the entry fee",
                                    field="player_id")
            return None
        t = context.tournament
        return _fee_rejection(slot_tournament_stream(t.id), t.id, context.place,
                              context.extra["attempt"], verdict, context.at,
                              context.arguments["player_id"])

    def decide(self, context: StateContext) -> Decision:
        t, player = context.tournament, context.arguments["player_id"]
        source = gaming_account(player) if context.extra["online"] else cage_cash(t.venue)
        postings = [Posting(source, t.entry_fee_minor, t.currency),
                    Posting(slot_tournament_pool(t.id), -t.entry_fee_minor, t.currency)]
        event = _event(context, SLOT_TOURNAMENT_ENTERED,
                       {"player_id": player, "paid_from": source}, postings)
        accounts = [] if context.extra["online"] else [
            dict(code=cage_cash(t.venue), type=AccountType.ASSET, currency=t.currency,
                 name=f"Cage cash at {t.venue}")]
        return Decision([event], {event.stream: context.version}, accounts=accounts)


ENTER = Enter()


def _venue_type(place: Venue, at: dt.datetime) -> str:
    return rules.rulebook_in_force(place.rulebook_id,
                                   at.astimezone(dt.timezone.utc).date()).venue_type


class Start(_StateCommand):
    name = "machines.start_slot_tournament"

    def decide(self, context: StateContext) -> Decision:
        event = _event(context, SLOT_TOURNAMENT_STARTED, {})
        return Decision([event], {event.stream: context.version})


START = Start()


def start_slot_tournament(*, tournament_id: str, actor: str,
                          idempotency_key: str | None = None) -> TournamentResult:
    """Start the tournament: entries and prize publications close (prizes are fixed)."""
    return run(START, {"tournament_id": tournament_id}, _call(actor, idempotency_key))


def prize_amounts(prizes: Mapping[str, list[int]], fees_minor: int) -> list[int]:
    """The prize per place: fixed, or its share of the fees rounded down (pure)."""
    if "fixed_minor" in prizes:
        return list(prizes["fixed_minor"])
    return [fees_minor * share // 10_000 for share in prizes["share_bp"]]


class Finish(_StateCommand):
    name = "machines.finish_slot_tournament"
    states = (SlotTournamentState.STARTED,)

    def load(self, arguments: Mapping[str, Any], call: Call) -> StateContext:
        context = _load_tournament(arguments, call, *self.states)
        t = context.tournament
        fees = Account.objects.filter(code=slot_tournament_pool(t.id)).values_list(
            "balance_minor", flat=True).first() or 0
        amounts = prize_amounts(t.prizes, fees)
        paid = {player: amount for player, amount in zip(arguments["ranking"], amounts)}
        online = _venue_type(context.place, context.at) == VenueType.ONLINE
        credits = (credit_players(paid, currency=t.currency, venue=t.venue,
                                  open_payouts_due=False) if online and paid else {})
        return dataclasses.replace(context, extra={"fees": fees, "paid": paid,
                                                   "credits": credits, "online": online})

    def decide(self, context: StateContext) -> Decision:
        t, extra = context.tournament, context.extra
        currency, pool = t.currency, slot_tournament_pool(t.id)
        total = sum(extra["paid"].values())
        from_pool = min(total, extra["fees"])
        postings = [Posting(pool, extra["fees"], currency)] if extra["fees"] else []
        accounts: list[Mapping[str, Any]] = []
        if total > extra["fees"]:   # decision machines.tournament.overlay
            overlay = f"house/{t.venue}/tournament_prizes"
            postings.append(Posting(overlay, total - from_pool, currency))
            accounts.append(dict(code=overlay, type=AccountType.EXPENSE, currency=currency,
                                 name=f"Tournament prize overlays at {t.venue}"))
        if extra["fees"] > total:
            revenue = f"house/{t.venue}/tournament_fees"
            postings.append(Posting(revenue, -(extra["fees"] - total), currency))
            accounts.append(dict(code=revenue, type=AccountType.REVENUE, currency=currency,
                                 name=f"Tournament fees at {t.venue}"))
        if extra["online"]:
            for credit in extra["credits"].values():
                postings += list(credit.postings)
            accounts += accounts_to_open(extra["credits"].values())
        elif total:
            postings.append(Posting(cage_cash(t.venue), -total, currency))
        event = _event(context, SLOT_TOURNAMENT_FINISHED,
                       {"ranking": list(context.arguments["ranking"]), "paid": extra["paid"],
                        "fees_minor": extra["fees"]}, postings)
        return Decision([event], {event.stream: context.version}, accounts=accounts)


FINISH = Finish()


def finish_slot_tournament(*, tournament_id: str, ranking: Sequence[str], actor: str,
                           idempotency_key: str | None = None) -> TournamentResult:
    """Finish with the ranking (best first) and pay the published prizes (002:L3317)."""
    ranking = [str(p) for p in ranking]
    if len(set(ranking)) != len(ranking) or len(ranking) > PLACES_MAX:
        raise _invalid("ranking: each player once", field="ranking")
    return run(FINISH, {"tournament_id": tournament_id, "ranking": ranking},
               _call(actor, idempotency_key))
