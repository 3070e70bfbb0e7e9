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


def showdown(*, hand_id: str, board: str | Sequence[str] | None = None,
             hands: Mapping[int, Any], claimed_awards: Mapping[int, int], actor: str,
             runs: Sequence[str] | None = None, agreed_by: Sequence[int] | None = None,
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

    With `runs` instead of a board, the board was run twice after an
    all-in (Tallinn, 003:L132-136): `runs` are the two complete boards and
    `agreed_by` the seats that agreed, every player in the hand (RunTwice).

    Raises PokerError: the betting is not over (409), the hand is finished
    or disputed (409), cards the evaluator refuses (400; nothing written).
    """
    arguments = {"hand_id": hand_id,
                 **_showdown_record(board, hands, claimed_awards, runs, agreed_by)}
    return run(SHOWDOWN, arguments, _call(actor, idempotency_key, at))


def _showdown_record(board: str | Sequence[str] | None, hands: Mapping[int, Any],
                     claimed_awards: Mapping[int, int], runs: Sequence[str] | None = None,
                     agreed_by: Sequence[int] | None = None) -> dict[str, Any]:
    """A showdown as a request records it: JSON, seats as strings, no zero awards."""
    record = {"board": board if board is None or isinstance(board, str) else list(board),
              "hands": {str(seat): (c if isinstance(c, str) else list(c))
                        for seat, c in hands.items()},
              "claimed": {str(int(seat)): int(amount)
                          for seat, amount in claimed_awards.items() if amount}}
    if runs is not None or agreed_by is not None:
        # Only then: a one-board showdown keeps the fingerprint it always had.
        record["runs"] = None if runs is None else list(runs)
        record["agreed_by"] = sorted({int(seat) for seat in agreed_by or ()})
    return record


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
        place = rules.venue(ctx.table.venue)
        at = call.moment()
        run_twice = (RunTwice.of(arguments, run_twice_terms(place, at))
                     if "runs" in arguments else None)
        return HandStep(ctx, place, at, {**arguments, "run_twice": run_twice})

    def decide(self, context: HandStep) -> Decision:
        ctx, a = context.hand, context.arguments
        events, _, _ = _showdown_events(ctx, ctx.state, a["board"], a["hands"],
                                        _claimed(a["claimed"]), at=context.at,
                                        day=context.day, run_twice=a["run_twice"])
        return Decision(events, {ctx.stream: ctx.version})


SHOWDOWN = ShowDown()


@dataclass(frozen=True, slots=True)
class Showdown:
    board: str | Sequence[str] | None
    hands: Mapping[int, Any]
    claimed_awards: Mapping[int, int]
    runs: Sequence[str] | None = None      # the board run twice (RunTwice)
    agreed_by: Sequence[int] | None = None


# ---------------------------------------------------------------------------
# Running the board twice (Tallinn, 003:L132-136)
# ---------------------------------------------------------------------------

RUN_TWICE_MIN_BIG_BLIND = "run_it_twice.min_big_blind"
RUN_TWICE_FULL_BOARD_MAX = "run_it_twice.full_board_max_players.omaha5_courchevel"
# 003:L134: at 5 Card Omaha and Courchevel the whole board runs twice only
# with few enough players at the table.
FULL_BOARD_LIMITED = frozenset({"omaha5", "courchevel"})
# The board cards out when the betting closed, by the street it closed on:
# both runs share them (003:L133).
SHARED_CARDS = {"preflop": 0, "flop": 3, "turn": 4}
BOARD_CARDS = 5


@dataclass(frozen=True, slots=True)
class RunTwiceTerms:
    """A rulebook's terms for running it twice: offering them is having them."""

    min_big_blind_minor: int
    min_big_blind_cite: str
    full_board_max_players: int | None
    full_board_cite: str


def run_twice_terms(place: Venue, at: dt.datetime) -> RunTwiceTerms | None:
    """The venue's terms in force (process cache), or None where it is not offered."""
    from .base import _local_date, _rulebook

    figures = rules.figures_in_force(_rulebook(place, at), _local_date(place, at))
    minimum = figures.get(RUN_TWICE_MIN_BIG_BLIND)
    if minimum is None:
        return None
    full = figures.get(RUN_TWICE_FULL_BOARD_MAX)
    return RunTwiceTerms(int(minimum.value), minimum.cite,
                         None if full is None else int(full.value),
                         "" if full is None else full.cite)


@dataclass(frozen=True, slots=True)
class RunTwice:
    """The two runs of a board and who agreed, with the room's terms."""

    runs: tuple[str, str]
    agreed_by: frozenset[int]
    terms: RunTwiceTerms | None

    @classmethod
    def of(cls, record: Mapping[str, Any], terms: RunTwiceTerms | None) -> "RunTwice":
        runs = record.get("runs")
        if (record.get("board") is not None or not isinstance(runs, list) or len(runs) != 2
                or not all(isinstance(r, str) for r in runs)):
            raise PokerError(Code.INVALID_SHOWDOWN,
                             "running it twice takes the two runs' boards and no board",
                             cite="003:L133")
        return cls((runs[0], runs[1]), frozenset(record.get("agreed_by") or ()), terms)

    def pots(self, ctx: HandContext, state: engine.HandState,
             contested: Sequence[engine.Pot]) -> tuple[list, list]:
        """Check the terms; return each run's half of every contested pot."""
        terms = self.terms
        if terms is None:
            raise PokerError(Code.INVALID_SHOWDOWN,
                             f"{ctx.table.venue} does not run the board twice",
                             venue=ctx.table.venue)
        big_blind = int(ctx.table.stakes.get("big_blind_minor") or 0)
        if big_blind < terms.min_big_blind_minor:
            raise PokerError(Code.INVALID_SHOWDOWN,
                             "the board runs twice only from the posted blinds up",
                             big_blind_minor=big_blind,
                             min_big_blind_minor=terms.min_big_blind_minor,
                             cite=terms.min_big_blind_cite)
        if state.family is not engine.Family.BOARD or state.variant == "double_flop":
            raise PokerError(Code.INVALID_SHOWDOWN, "only a one-board game runs twice",
                             variant=state.variant, cite="003:L133")
        closed_on = state.log[-1].street if state.log else ""
        shared = SHARED_CARDS.get(closed_on)
        if shared is None or not any(state.player(seat).all_in
                                     for seat in state.holding_seats):
            raise PokerError(Code.INVALID_SHOWDOWN,
                             "the board runs twice after an all-in with cards still to come",
                             closed_on=closed_on, cite="003:L132")
        if self.agreed_by != set(state.holding_seats):
            raise PokerError(Code.INVALID_SHOWDOWN,
                             "every player in the hand to the end must agree",
                             agreed_by=sorted(self.agreed_by),
                             holding_seats=list(state.holding_seats), cite="003:L135")
        if (shared == 0 and state.variant in FULL_BOARD_LIMITED
                and terms.full_board_max_players is not None
                and len(state.players) > terms.full_board_max_players):
            raise PokerError(Code.INVALID_SHOWDOWN,
                             "with this many players only the turn and river run twice",
                             players=len(state.players),
                             full_board_max_players=terms.full_board_max_players,
                             cite=terms.full_board_cite)
        first, second = (run.split() for run in self.runs)
        if (len(first) != BOARD_CARDS or len(second) != BOARD_CARDS
                or first[:shared] != second[:shared]
                or set(first[shared:]) & set(second[shared:])):
            raise PokerError(Code.INVALID_SHOWDOWN,
                             f"the runs share the {shared} cards out before the all-in and"
                             " then differ card by card (one deck)",
                             shared_cards=shared, cite="003:L133")
        # Decision poker.run_it_twice.odd_chip: each pot is halved, the first
        # run's half taking an odd chip.
        halves = [(pot.amount_minor - pot.amount_minor // 2, pot.amount_minor // 2, pot)
                  for pot in contested]
        return ([(a, p.eligible_seats) for a, _, p in halves if a],
                [(b, p.eligible_seats) for _, b, p in halves if b])


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


def _showdown_events(ctx: HandContext, state: engine.HandState,
                     board: str | Sequence[str] | None,
                     hands: Mapping[int, Any], claimed: Mapping[int, int], *,
                     at: dt.datetime, day: dt.date, run_twice: RunTwice | None = None
                     ) -> tuple[list[NewEvent], Any, Any]:
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
    if run_twice is not None:
        boards = list(zip(run_twice.runs, run_twice.pots(ctx, state, contested)))
    elif board is None:
        raise PokerError(Code.INVALID_SHOWDOWN, "give the board")
    else:
        boards = [(board, [(pot.amount_minor, pot.eligible_seats) for pot in contested])]
    for cards_out, pots_of_run in boards:
        if not pots_of_run:
            continue
        try:
            verified_result = native_eval.showdown(state.variant, cards_out, shown,
                                                   pots_of_run, state.button)
        except ValueError as error:
            raise PokerError(Code.INVALID_SHOWDOWN, str(error)) from None
        for seat, amount in verified_result.awards.items():
            awarded[seat] = awarded.get(seat, 0) + amount
    verified = {seat: amount for seat, amount in sorted(awarded.items()) if amount}
    board_record = (list(run_twice.runs) if run_twice is not None
                    else board if isinstance(board, str) else list(board))
    cards_record = {str(seat): (c if isinstance(c, str) else list(c))
                    for seat, c in shown.items()}
    if claimed == verified:
        events = [_settled_event(ctx, state, decided, verified, claimed=claimed,
                                 board=board_record, hands=cards_record, at=at, day=day)]
    else:
        events = _disputed_events(ctx, state, decided, verified, claimed, board_record,
                                  cards_record, at=at, day=day)
    if run_twice is not None:
        # The two runs are the board; who agreed is on the record (003:L135).
        events[0].payload["run_twice"] = {"agreed_by": sorted(run_twice.agreed_by)}
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
