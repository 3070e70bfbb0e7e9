"""Hands: dealing, player actions and complete hand histories."""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass
from typing import Any, Mapping, Sequence

from casino.rules import queries as rules
from casino.rules.models import Venue
from casino.rules.queries import venue_day
from casino.runner import Call, Decision, Rejection, run
from ledger import NewEvent

from .. import engine
from ..errors import PokerError, PokerErrorCode as Code
from ..events import (
    ACTION_REJECTED,
    ACTION_TAKEN,
    HAND_HISTORY_REJECTED,
    HAND_STARTED,
    MUCK,
    SCHEMA_VERSION,
    hand_id_of,
    hand_stream,
    table_stream,
)
from .base import (
    OPENING_STAKES,
    Deal,
    OpeningStake,
    HandContext,
    HandResult,
    Step,
    TableContext,
    _advance,
    _call,
    _check_running,
    _check_seat_number,
    _hand_running,
    _HandCommand,
    _live,
    load_hand,
    load_table,
    _rejection,
    _start_state,
    max_win_check,
    opening_stake_check,
    opening_stake_game,
)
from .settlement import (
    RunTwice,
    Showdown,
    _claimed,
    _decide_settlement,
    _settled_event,
    _showdown_events,
    _showdown_record,
    _voided_event,
    run_twice_terms,
)


def start_hand(*, table_id: str, button: int, actor: str,
               blind_seats: tuple[int | None, int] | None = None, straddles: int = 0,
               first_seat: int | None = None,
               missed_blinds: Mapping[int, str] | None = None,
               idempotency_key: str | None = None,
               at: dt.datetime | None = None) -> HandResult:
    """Deal a hand to every seated player with chips; post the forced bets.

    The previous hand must be settled or voided; two players with chips are
    needed (000:L495). Refusals are 409s and write nothing.
    """
    deal = Deal(button, blind_seats, straddles, first_seat, missed_blinds)
    return run(START_HAND, {"table_id": table_id, **deal.record()},
               _call(actor, idempotency_key, at))


@dataclass(frozen=True, slots=True)
class DealContext:
    """A table about to deal: the table, the deal, the venue and the time."""

    table: TableContext
    deal: Deal
    place: Venue
    at: dt.datetime
    opening_stake: OpeningStake | None = None


class StartHand(_HandCommand):
    name = "poker.start_hand"

    def load(self, arguments: Mapping[str, Any], call: Call) -> DealContext:
        ctx = load_table(arguments["table_id"])
        deal, place, at = _deal_from(arguments), rules.venue(ctx.table.venue), call.moment()
        hand, _ = _deal(ctx, deal, place, at)
        return DealContext(ctx, deal, place, at, _hand_opening_stake(hand, place, at))

    def check(self, context: DealContext) -> Rejection | None:
        if context.opening_stake is None:
            return None
        return context.opening_stake.rejection()

    def decide(self, context: DealContext) -> Decision:
        _, event = _deal(context.table, context.deal, context.place, context.at)
        return Decision([event], context.table.versions)


START_HAND = StartHand()


def _hand_opening_stake(hand: HandContext, place: Venue, at: dt.datetime
                        ) -> OpeningStake | None:
    """Check a dealt hand's forced bets, straddles included, under the cap in force,
    and the most a player could win in it under the maximum win (section 11).

    A table opened before the cap was checked, or under an earlier rulebook
    version, deals no hand over it (002:L3347, L3405, L3467).
    """
    table = hand.table
    checked = opening_stake_check(
        venue=place.code, currency=table.currency, at=at,
        game=opening_stake_game(place, at, electronic=table.electronic),
        forced_bets_minor=[*_forced_bets(hand.state),
                           *(table.stakes.get(name, 0) for name in OPENING_STAKES)])
    if checked is None or not checked.verdict.allowed:
        return checked
    # Section 11's maximum win (002:L3489-3499; decision poker_pvp.max_win).
    stacks = [stack for _, stack in hand.state.starting_stacks_minor]
    return max_win_check(checked, stacks) or checked


def _forced_bets(state: engine.HandState) -> list[int]:
    """Each forced bet of a dealt hand at its full size (a short stack's all-in aside).

    A straddle is a blind posted before the cards (000:L975-985), so it is an
    opening stake (decision poker_pvp.opening_stake.forced_bets); its size is
    the live bet it makes, `to_minor`.
    """
    posts = {kind.value for kind in engine.PostKind}
    return [record.to_minor if record.kind == engine.PostKind.STRADDLE else record.added_minor
            for record in state.log if record.kind in posts]


def _deal_from(record: Mapping[str, Any]) -> Deal:
    """The Deal a request recorded (`Deal.record`)."""
    blinds = record.get("blind_seats")
    missed = record.get("missed_blinds")
    return Deal(record["button"], tuple(blinds) if blinds else None,
                record.get("straddles", 0), record.get("first_seat"),
                {int(seat): value for seat, value in missed.items()} if missed else None)


def _deal(ctx: TableContext, deal: Deal, place: Venue, at: dt.datetime
          ) -> tuple[HandContext, NewEvent]:
    """The next hand of a table and its `hand_started` event (pure; raises PokerError)."""
    table = ctx.table
    _check_seat_number(table, deal.button, field="button")
    if ctx.last_hand_running:
        raise _hand_running(table.id, ctx.last_hand)
    stacks = {n: s.stack_minor for n, s in ctx.seats.items()
              if s.player_id and s.stack_minor > 0}
    if len(stacks) < 2:
        raise PokerError(Code.TOO_FEW_PLAYERS, "a hand needs two players with chips",
                         players=len(stacks), cite="000:L495")
    number = ctx.last_hand + 1
    started = {
        "hand_id": hand_id_of(table.id, number), "table_id": table.id, "number": number,
        "venue": table.venue, "currency": table.currency, "variant": table.variant,
        "structure": table.structure, "stakes": dict(table.stakes),
        **deal.record(),
        "stacks_minor": {str(n): v for n, v in stacks.items()},
        "players": {str(n): ctx.seats[n].player_id for n in stacks},
    }
    try:
        state = _start_state(started)
    except (engine.IllegalAction, ValueError) as error:
        raise PokerError(getattr(error, "code", Code.INVALID_REQUEST), str(error)) from None
    payload = {**started, **_live(state)}
    event = NewEvent(stream=hand_stream(table.id, number), type=HAND_STARTED,
                     payload=payload, schema_version=SCHEMA_VERSION, occurred_at=at,
                     gaming_day=venue_day(place, at))
    return HandContext(table, number, state, "running", 0), event


def act(*, hand_id: str, seat: int, kind: str, amount_minor: int | None = None,
        open_pair: bool = False, actor: str, idempotency_key: str | None = None,
        at: dt.datetime | None = None) -> HandResult:
    """Apply one player action; the engine decides whether it is legal.

    An illegal action is appended as `poker.action_rejected` (code, reason,
    limit) and raised as PokerError 422; nothing else changes. When every
    other player has folded, the same append settles the hand without a
    showdown: the uncalled bet goes back, rake and drop are taken, and the
    last player wins the pots, no cards needed (000:L192-195, L1824-1832).
    """
    arguments = {"hand_id": hand_id, "seat": seat, "kind": str(kind),
                 "amount_minor": amount_minor, "open_pair": open_pair}
    return run(ACT, arguments, _call(actor, idempotency_key, at))


@dataclass(frozen=True, slots=True)
class ActContext:
    """One action on a running hand: its events, or the engine's refusal."""

    hand: HandContext
    place: Venue
    at: dt.datetime
    request: Mapping[str, Any]
    events: Sequence[NewEvent]
    refusal: PokerError | None


class Act(_HandCommand):
    name = "poker.act"
    rejected = ACTION_REJECTED

    def load(self, arguments: Mapping[str, Any], call: Call) -> ActContext:
        at = call.moment()
        ctx = load_hand(arguments["hand_id"])
        _check_running(ctx)
        place = rules.venue(ctx.table.venue)
        action = Step(arguments["seat"], arguments["kind"], arguments["amount_minor"],
                      arguments["open_pair"])
        request = {"hand_id": ctx.hand_id, "seat": action.seat, "kind": action.kind,
                   "amount_minor": action.amount_minor}
        try:
            _, events = _step(ctx, ctx.state, action, at=at, day=venue_day(place, at))
        except engine.IllegalAction as illegal:
            refusal = PokerError(illegal.code, illegal.message,
                                 **illegal.details)
            return ActContext(ctx, place, at, request, (), refusal)
        return ActContext(ctx, place, at, request, events, None)

    def check(self, context: ActContext) -> Rejection | None:
        if context.refusal is None:
            return None
        return _rejection(ACTION_REJECTED, context.hand.stream, context.refusal,
                          context.request, place=context.place, at=context.at)

    def decide(self, context: ActContext) -> Decision:
        return Decision(context.events, {context.hand.stream: context.hand.version})


ACT = Act()


def record_hand(*, table_id: str, deal: Deal, steps: Sequence[Step],
                showdown: Showdown | None = None, void_reason: str | None = None,
                actor: str, idempotency_key: str | None = None,
                at: dt.datetime | None = None) -> HandResult:
    """Record a complete hand in one request (an electronic table's history).

    Every step goes through the same engine and the same event builders as
    `start_hand`, `act` and `showdown`, in memory first; only a history that
    is legal to the end is appended, all of it at once. So a history with an
    illegal step writes no hand and moves no money: the refusal alone is
    recorded (`poker.hand_history_rejected` on the table's stream, with the
    step's index, code and reason) and raised as a 422. The history must end
    the hand: every other player folded, or a showdown (verified, so it may
    end disputed), or a void (a misdeal, 000:L1093-1110).
    """
    arguments = {"table_id": table_id, **deal.record(),
                 "steps": [asdict(step) for step in steps],
                 "showdown": (None if showdown is None else _showdown_record(
                     showdown.board, showdown.hands, showdown.claimed_awards,
                     showdown.runs, showdown.agreed_by)),
                 "void_reason": void_reason}
    return run(RECORD_HAND, arguments, _call(actor, idempotency_key, at))


@dataclass(frozen=True, slots=True)
class HistoryContext:
    """A complete history played in memory: its events, or the step refused."""

    table: TableContext
    place: Venue
    at: dt.datetime
    events: Sequence[NewEvent]
    refusal: PokerError | None
    refused: Mapping[str, Any] | None     # the refused step, as recorded
    opening_stake: OpeningStake | None = None


class RecordHand(_HandCommand):
    name = "poker.record_hand"
    rejected = HAND_HISTORY_REJECTED

    def load(self, arguments: Mapping[str, Any], call: Call) -> HistoryContext:
        at = call.moment()
        table_ctx = load_table(arguments["table_id"])
        place = rules.venue(table_ctx.table.venue)
        day = venue_day(place, at)
        ctx, started = _deal(table_ctx, _deal_from(arguments), place, at)
        opening_stake = _hand_opening_stake(ctx, place, at)
        if opening_stake is not None and not opening_stake.verdict.allowed:
            return HistoryContext(table_ctx, place, at, (), None, None, opening_stake)
        events, state = [started], ctx.state
        for index, record in enumerate(arguments["steps"]):
            step = Step(**record)
            try:
                # After the betting only a muck may follow (engine.muck).
                if state.is_over and step.kind != MUCK:
                    raise engine.IllegalAction(engine.BettingErrorCode.HAND_OVER,
                                               "The hand is already over.")
                state, step_events = _step(ctx, state, step, at=at, day=day)
            except engine.IllegalAction as illegal:
                refusal = PokerError(illegal.code, f"step {index}: {illegal.message}",
                                     step=index, **illegal.details)
                refused = {"table_id": table_ctx.table.id, "step": index, "seat": step.seat,
                           "kind": step.kind, "amount_minor": step.amount_minor}
                return HistoryContext(table_ctx, place, at, (), refusal, refused)
            events.extend(step_events)
        shown = arguments["showdown"]
        run_twice = (RunTwice.of(shown, run_twice_terms(place, at))
                     if shown is not None and "runs" in shown else None)
        events.extend(_history_end(
            ctx, state, None if shown is None else Showdown(
                shown["board"], shown["hands"], _claimed(shown["claimed"])),
            arguments["void_reason"], at=at, day=day, run_twice=run_twice))
        return HistoryContext(table_ctx, place, at, events, None, None)

    def check(self, context: HistoryContext) -> Rejection | None:
        if context.opening_stake is not None and not context.opening_stake.verdict.allowed:
            return context.opening_stake.rejection()
        if context.refusal is None:
            return None
        return _rejection(HAND_HISTORY_REJECTED, table_stream(context.table.table.id),
                          context.refusal, context.refused, place=context.place,
                          at=context.at)

    def decide(self, context: HistoryContext) -> Decision:
        return Decision(context.events, context.table.versions)


RECORD_HAND = RecordHand()


def _history_end(ctx: HandContext, state: engine.HandState, showdown: Showdown | None,
                 void_reason: str | None, *, at: dt.datetime, day: dt.date,
                 run_twice: RunTwice | None = None) -> list[NewEvent]:
    """The events that close a recorded history, or a 400 if it does not end."""
    if void_reason is not None:
        if state.phase is engine.Phase.COMPLETE:
            raise PokerError(Code.INVALID_REQUEST, "a hand that ended cannot be voided")
        return [_voided_event(ctx, void_reason, at=at, day=day)]
    if state.phase is engine.Phase.COMPLETE:
        if showdown is not None:
            raise PokerError(Code.INVALID_REQUEST, "the hand ended without a showdown:"
                             " every other player folded or mucked")
        return []
    if state.phase is not engine.Phase.SHOWDOWN or showdown is None:
        raise PokerError(Code.INCOMPLETE_HISTORY,
                         "the history must end the hand: the betting is not over"
                         if state.phase is not engine.Phase.SHOWDOWN
                         else "the betting is over: give the showdown",
                         phase=str(state.phase), to_act=state.to_act)
    claimed = {int(seat): int(amount) for seat, amount in showdown.claimed_awards.items()
               if amount}
    events, _, _ = _showdown_events(ctx, state, showdown.board, showdown.hands, claimed,
                                    at=at, day=day, run_twice=run_twice)
    return events


def _step(ctx: HandContext, state: engine.HandState, step: Step, *, at: dt.datetime,
          day: dt.date) -> tuple[engine.HandState, list[NewEvent]]:
    """Apply one step; return the new state and its events (not yet appended).

    When the step ends the hand without a showdown (everyone else folded,
    or mucked at the showdown), the events include the settlement: the
    uncalled bet goes back, rake and drop are taken, and the last player
    holding cards wins the pots they are in, no cards needed (000:L192-195,
    L1824-1832); a side pot of players who all mucked goes to the last of
    them to muck (`engine.claimants`). Raises engine.IllegalAction.
    """
    state = _advance(state, step)
    payload = {"hand_id": ctx.hand_id, "seat": step.seat, "kind": step.kind,
               "amount_minor": step.amount_minor, "record": asdict(state.log[-1]),
               **_live(state)}
    if step.open_pair:
        payload["open_pair"] = True
    events = [NewEvent(stream=ctx.stream, type=ACTION_TAKEN, payload=payload,
                       schema_version=SCHEMA_VERSION, occurred_at=at, gaming_day=day)]
    if state.phase is engine.Phase.COMPLETE:
        decided = _decide_settlement(ctx, state)
        awards = engine.award_uncontested(engine.claimants(decided.pots_net,
                                                           state.mucked))
        events.append(_settled_event(ctx, state, decided, awards, claimed=None, board=None,
                                     hands=None, at=at, day=day))
    return state, events
