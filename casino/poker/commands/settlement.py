"""The end of a hand: showdown and settlement, disputes and their decisions, voids."""

from __future__ import annotations

import datetime as dt
from dataclasses import asdict, dataclass
from typing import Any, Mapping, Sequence

import native_eval
from django.contrib.auth import get_user_model

from casino.compliance.events import ALERT_RAISED
from casino.compliance.models import AlertKind
from casino.roles import Role, has_role
from casino.rules import queries as rules
from casino.rules.models import Venue
from casino.rules.queries import venue_day
from casino.runner import Call, Decision, run
from ledger import InvariantViolation, NewEvent, Posting
from ledger.read import Event

from .. import engine
from ..errors import PokerError, PokerErrorCode as Code
from ..events import (
    DISPUTE_DECIDED,
    HAND_DISPUTED,
    HAND_SETTLED,
    HAND_VOIDED,
    SCHEMA_VERSION,
    house_rake,
    table_stacks,
)
from .base import (
    DECISIONS,
    HandContext,
    HandResult,
    HandStep,
    _call,
    _check_running,
    _finished,
    _HandCommand,
    load_hand,
    _rule_from,
)


def showdown(*, hand_id: str, board: str | Sequence[str], hands: Mapping[int, Any],
             claimed_awards: Mapping[int, int], actor: str,
             idempotency_key: str | None = None, at: dt.datetime | None = None
             ) -> HandResult:
    """Verify the controller's showdown result with native_eval; settle or dispute.

    The pots are the engine's, from the contributions (never the client's),
    after the uncalled bet went back and the rake and drop were taken.
    `native_eval.showdown` awards them from the cards. When the claimed
    awards (seat -> amount) equal the verified ones the hand settles: the
    rake and drop are posted and the stacks paid. When they differ the hand
    is disputed: `poker.hand_disputed` and a `compliance.alert_raised`
    (showdown_mismatch) hold both results, and no money moves.

    Raises PokerError: the betting is not over (409), the hand is finished
    or disputed (409), cards the evaluator refuses (400; nothing written).
    """
    arguments = {"hand_id": hand_id, **_showdown_record(board, hands, claimed_awards)}
    return run(SHOWDOWN, arguments, _call(actor, idempotency_key, at))


def _showdown_record(board: str | Sequence[str], hands: Mapping[int, Any],
                     claimed_awards: Mapping[int, int]) -> dict[str, Any]:
    """A showdown as a request records it: JSON, seats as strings, no zero awards."""
    return {"board": board if isinstance(board, str) else list(board),
            "hands": {str(seat): (c if isinstance(c, str) else list(c))
                      for seat, c in hands.items()},
            "claimed": {str(int(seat)): int(amount)
                        for seat, amount in claimed_awards.items() if amount}}


def _claimed(record: Mapping[str, int]) -> dict[int, int]:
    return {int(seat): amount for seat, amount in record.items()}


class ShowDown(_HandCommand):
    name = "poker.showdown"

    def load(self, arguments: Mapping[str, Any], call: Call) -> HandStep:
        ctx = load_hand(arguments["hand_id"])
        _check_running(ctx)
        if ctx.state.phase is not engine.Phase.SHOWDOWN:
            raise PokerError(Code.HAND_NOT_AT_SHOWDOWN,
                             "the betting is not over: no showdown yet",
                             phase=str(ctx.state.phase))
        return HandStep(ctx, rules.venue(ctx.table.venue), call.moment(), arguments)

    def decide(self, context: HandStep) -> Decision:
        ctx, a = context.hand, context.arguments
        events, _, _ = _showdown_events(ctx, ctx.state, a["board"], a["hands"],
                                        _claimed(a["claimed"]), at=context.at,
                                        day=context.day)
        return Decision(events, {ctx.stream: ctx.version})


SHOWDOWN = ShowDown()


@dataclass(frozen=True, slots=True)
class Showdown:
    board: str | Sequence[str]
    hands: Mapping[int, Any]
    claimed_awards: Mapping[int, int]


def void_hand(*, hand_id: str, reason: str, actor: str,
              idempotency_key: str | None = None,
              at: dt.datetime | None = None) -> HandResult:
    """Void a running hand: every bet returned, stacks as at its start.

    No posting: the chips never left the table account. A settled or voided
    hand cannot be voided (409 `poker.hand_finished`), nor a disputed one
    (409 `poker.hand_disputed`: an officer decides it, `decide_dispute`).
    """
    return run(VOID_HAND, {"hand_id": hand_id, "reason": reason},
               _call(actor, idempotency_key, at))


class VoidHand(_HandCommand):
    name = "poker.void_hand"

    def load(self, arguments: Mapping[str, Any], call: Call) -> HandStep:
        reason = arguments["reason"]
        if not reason or not reason.strip():
            raise PokerError(Code.INVALID_REQUEST, "give the reason for voiding the hand",
                             field="reason")
        ctx = load_hand(arguments["hand_id"])
        _check_running(ctx)
        return HandStep(ctx, rules.venue(ctx.table.venue), call.moment(), arguments)

    def decide(self, context: HandStep) -> Decision:
        ctx = context.hand
        event = _voided_event(ctx, context.arguments["reason"], at=context.at,
                              day=context.day)
        return Decision([event], {ctx.stream: ctx.version})


VOID_HAND = VoidHand()


def _voided_event(ctx: HandContext, reason: str, *, at: dt.datetime,
                  day: dt.date) -> NewEvent:
    """Every bet returned: the stacks as at the start (no posting: the chips
    never left the table account)."""
    payload = {"hand_id": ctx.hand_id, "table_id": ctx.table.id, "reason": reason,
               "stacks_minor_after": ctx.starting_stacks_minor, "pot_minor": 0}
    return NewEvent(stream=ctx.stream, type=HAND_VOIDED, payload=payload,
                    schema_version=SCHEMA_VERSION, occurred_at=at, gaming_day=day)


def decide_dispute(*, hand_id: str, decision: str, note: str, actor: str,
                   idempotency_key: str | None = None,
                   at: dt.datetime | None = None) -> HandResult:
    """Record a compliance officer's decision on a disputed hand and carry it out.

    `settle_verified` settles the hand with the awards `native_eval`
    verified at the showdown, with the same postings as any settlement;
    `void` voids it (stacks back to the start of the hand). One append holds
    `poker.dispute_decided` (who, why, both results) and the settlement or
    void. Raises PokerError: a bad decision or an empty note (400), an actor
    who is not a compliance officer (403, nothing written), a hand that is
    not disputed (409 `poker.hand_not_disputed`) or already decided (409
    `poker.hand_finished`).
    """
    return run(DECIDE_DISPUTE, {"hand_id": hand_id, "decision": decision, "note": note},
               _call(actor, idempotency_key, at))


@dataclass(frozen=True, slots=True)
class DisputeContext:
    """A disputed hand, its recorded dispute and the officer's decision."""

    hand: HandContext
    place: Venue
    at: dt.datetime
    decision: str
    note: str
    actor: str
    disputed: Mapping[str, Any]


class DecideDispute(_HandCommand):
    name = "poker.decide_dispute"

    def load(self, arguments: Mapping[str, Any], call: Call) -> DisputeContext:
        decision, note = arguments["decision"], arguments["note"]
        if decision not in DECISIONS:
            raise PokerError(Code.INVALID_REQUEST,
                             f"decision must be one of {', '.join(DECISIONS)}",
                             field="decision")
        if not note or not note.strip():
            raise PokerError(Code.INVALID_REQUEST, "give the reason for the decision",
                             field="note")
        user = get_user_model().objects.filter(username=call.actor).first()
        if not has_role(user, Role.COMPLIANCE_OFFICER):
            raise PokerError(Code.NOT_COMPLIANCE_OFFICER,
                             "only a compliance officer may decide a disputed hand",
                             actor=call.actor)
        ctx = load_hand(arguments["hand_id"])
        if ctx.status in ("settled", "voided"):
            raise _finished(ctx)
        if ctx.status != "disputed":
            raise PokerError(Code.HAND_NOT_DISPUTED,
                             f"hand {ctx.hand_id} is not disputed: nothing to decide",
                             hand_id=ctx.hand_id, state=ctx.status)
        disputed = (Event.objects.filter(stream=ctx.stream, type=HAND_DISPUTED)
                    .values_list("payload", flat=True).get())
        return DisputeContext(ctx, rules.venue(ctx.table.venue), call.moment(), decision,
                              note, call.actor, disputed)

    def decide(self, context: DisputeContext) -> Decision:
        ctx, disputed, at = context.hand, context.disputed, context.at
        day = venue_day(context.place, at)
        decided_payload = {
            "hand_id": ctx.hand_id, "table_id": ctx.table.id, "decision": context.decision,
            "note": context.note, "decided_by": context.actor,
            "awards_verified": disputed["awards_verified"],
            "awards_claimed": disputed["awards_claimed"],
        }
        events = [NewEvent(stream=ctx.stream, type=DISPUTE_DECIDED, payload=decided_payload,
                           schema_version=SCHEMA_VERSION, occurred_at=at, gaming_day=day)]
        if context.decision == "settle_verified":
            verified = {int(k): v for k, v in disputed["awards_verified"].items()}
            claimed = {int(k): v for k, v in disputed["awards_claimed"].items()}
            events.append(_settled_event(ctx, ctx.state, _decide_settlement(ctx, ctx.state),
                                         verified, claimed=claimed, board=disputed["board"],
                                         hands=disputed["hands"], at=at, day=day))
        else:
            events.append(_voided_event(ctx, f"compliance decision: {context.note}", at=at,
                                        day=day))
        return Decision(events, {ctx.stream: ctx.version})


DECIDE_DISPUTE = DecideDispute()


def _showdown_events(ctx: HandContext, state: engine.HandState, board: str | Sequence[str],
                     hands: Mapping[int, Any], claimed: Mapping[int, int], *,
                     at: dt.datetime, day: dt.date) -> tuple[list[NewEvent], Any, Any]:
    """Verify a showdown with native_eval: the settlement, or the dispute and its alert.

    The cards are those of every player still holding cards; a player who
    mucked (`engine.muck`, recorded before the showdown) has a dead hand
    whose cards are not read, and the pots go to the best hands shown
    (000:L245-248, L192-195; `engine.claimants`).

    Returns (events, board as recorded, cards as recorded). Raises
    PokerError 400 for cards the evaluator refuses or a wrong set of hands.
    """
    decided = _decide_settlement(ctx, state)
    pots = engine.claimants(decided.pots_net, state.mucked)
    contested = [pot for pot in pots if len(pot.eligible_seats) > 1]
    must_show = {seat for pot in contested for seat in pot.eligible_seats}
    shown = {int(seat): cards for seat, cards in hands.items()}
    if set(shown) & set(state.mucked):
        raise PokerError(Code.INVALID_SHOWDOWN,
                         "a mucked hand is dead: its cards are not read",
                         mucked=list(state.mucked), seats_given=sorted(shown),
                         cite="000:L245-248")
    if not must_show <= set(shown) <= set(state.holding_seats):
        raise PokerError(Code.INVALID_SHOWDOWN,
                         "give the cards of every player still holding cards, and only"
                         " theirs (a player who does not show mucks)",
                         holding_seats=list(state.holding_seats),
                         seats_given=sorted(shown), cite="000:L192-195")
    awarded = engine.award_uncontested([p for p in pots if len(p.eligible_seats) == 1])
    if contested:
        try:
            verified_result = native_eval.showdown(
                state.variant, board, shown,
                [(pot.amount_minor, pot.eligible_seats) for pot in contested],
                state.button)
        except ValueError as error:
            raise PokerError(Code.INVALID_SHOWDOWN, str(error)) from None
        for seat, amount in verified_result.awards.items():
            awarded[seat] = awarded.get(seat, 0) + amount
    verified = {seat: amount for seat, amount in sorted(awarded.items()) if amount}
    board_record = board if isinstance(board, str) else list(board)
    cards_record = {str(seat): (c if isinstance(c, str) else list(c))
                    for seat, c in shown.items()}
    if claimed == verified:
        events = [_settled_event(ctx, state, decided, verified, claimed=claimed,
                                 board=board_record, hands=cards_record, at=at, day=day)]
    else:
        events = _disputed_events(ctx, state, decided, verified, claimed, board_record,
                                  cards_record, at=at, day=day)
    return events, board_record, cards_record


@dataclass(frozen=True, slots=True)
class Decided:
    """A finished hand's money: returned bet, pots, takes and the pots to award."""

    settlement: engine.Settlement
    rake: engine.RakeResult
    drop: engine.DropResult
    pots_net: tuple[engine.Pot, ...]
    winner: int | None


def _decide_settlement(ctx: HandContext, state: engine.HandState) -> Decided:
    """Return the uncalled bet, the pots, rake and drop of a finished hand (pure)."""
    settlement = engine.settle_hand(state)
    rake_rule = _rule_from(ctx.table.rake)
    rake = engine.rake_for(rake_rule, settlement.pots, reached_flop=state.reached_flop,
                           players_dealt=len(state.players))
    if ctx.table.drop:
        drop = engine.drop_for(_rule_from(ctx.table.drop), settlement.pots,
                               players_dealt=len(state.players),
                               betting_rounds_reached=state.betting_rounds_reached, rake=rake)
    else:
        zero = tuple(0 for _ in settlement.pots)
        drop = engine.DropResult(zero, 0, "no_jackpot", "")
    pots_net = engine.net_pots(settlement.pots, rake.per_pot_minor, drop.per_pot_minor)
    return Decided(settlement, rake, drop, pots_net, state.winner_without_showdown)


def _pots(pots: Sequence[engine.Pot]) -> list[dict[str, Any]]:
    return [{"amount_minor": p.amount_minor, "eligible_seats": list(p.eligible_seats)}
            for p in pots]


def _settled_event(ctx: HandContext, state: engine.HandState, decided: Decided,
                   awards: Mapping[int, int], *, claimed: Mapping[int, int] | None,
                   board: Any, hands: Any, at: dt.datetime, day: dt.date) -> NewEvent:
    """The settlement: stacks paid, rake to the house, drop to the jackpot."""
    stacks = {p.seat: p.stack_minor for p in state.players}
    for seat, amount in decided.settlement.returned_minor:
        stacks[seat] += amount
    for seat, amount in awards.items():
        stacks[seat] += amount
    start_total = sum(ctx.starting_stacks_minor.values())
    taken = decided.rake.total_minor + decided.drop.total_minor
    if sum(stacks.values()) + taken != start_total:
        raise InvariantViolation(
            f"hand {ctx.hand_id}: {sum(stacks.values())} in stacks + {taken} taken"
            f" != {start_total} at the start")
    table = ctx.table
    postings = []
    if taken:
        postings.append(Posting(table_stacks(table.id), taken, table.currency))
    if decided.rake.total_minor:
        postings.append(Posting(house_rake(table.venue), -decided.rake.total_minor,
                                table.currency))
    if decided.drop.total_minor:
        postings.append(Posting(table.jackpot, -decided.drop.total_minor, table.currency))
    payload = {
        "hand_id": ctx.hand_id, "table_id": table.id, "showdown": claimed is not None,
        "returned": [list(r) for r in decided.settlement.returned_minor],
        "pots": _pots(decided.settlement.pots),
        "rake": {**asdict(decided.rake), "per_pot_minor": list(decided.rake.per_pot_minor)},
        "drop": {**asdict(decided.drop), "per_pot_minor": list(decided.drop.per_pot_minor)},
        "pots_net": _pots(decided.pots_net),
        "awards_verified": {str(k): v for k, v in awards.items()},
        "awards_claimed": ({str(k): v for k, v in claimed.items()}
                           if claimed is not None else None),
        "board": board, "hands": hands,
        "stacks_minor_after": {str(k): v for k, v in stacks.items()},
        "pot_minor": 0,
    }
    if state.mucked:
        payload["mucked"] = list(state.mucked)
    return NewEvent(stream=ctx.stream, type=HAND_SETTLED, payload=payload,
                    postings=tuple(postings), schema_version=SCHEMA_VERSION,
                    occurred_at=at, gaming_day=day)


def _disputed_events(ctx: HandContext, state: engine.HandState, decided: Decided,
                     verified: Mapping[int, int],
                     claimed: Mapping[int, int], board: Any, hands: Any, *,
                     at: dt.datetime, day: dt.date) -> list[NewEvent]:
    """The dispute and its compliance alert, both results in each (no postings)."""
    verified_record = {str(k): v for k, v in verified.items()}
    claimed_record = {str(k): v for k, v in claimed.items()}
    payload = {"hand_id": ctx.hand_id, "table_id": ctx.table.id,
               "pots_net": _pots(decided.pots_net), "awards_verified": verified_record,
               "awards_claimed": claimed_record, "board": board, "hands": hands,
               "pot_minor": state.pot_minor}
    alert = {
        "kind": AlertKind.SHOWDOWN_MISMATCH.value,
        "summary": (f"hand {ctx.hand_id} at {ctx.table.venue}: the claimed showdown"
                    f" result {claimed_record} differs from the verified {verified_record}"),
        "player_id": "",
        "venue": ctx.table.venue,
        "details": {**payload,
                    "hint": ("The hand is held: compare the cards with the table's"
                             " surveillance, then decide or void the hand.")},
    }
    return [NewEvent(stream=ctx.stream, type=HAND_DISPUTED, payload=payload,
                     schema_version=SCHEMA_VERSION, occurred_at=at, gaming_day=day),
            NewEvent(stream=ctx.stream, type=ALERT_RAISED, payload=alert, occurred_at=at,
                     gaming_day=day)]
