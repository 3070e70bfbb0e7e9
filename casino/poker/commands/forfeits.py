"""Unresolved hands forfeited to charity after the rulebook's days (001:L110).

"Stakes of unfinished games on which the player made no decision and which
were never resolved are voided after 90 days; the stakes are then deemed
forfeited and directed to charity" (001:L110). The figure is the rulebook's
`unresolved_stakes.void_after` (days); a venue whose rulebook lacks it
forfeits nothing.

`forfeit_unresolved_hand` voids one running hand (started, betting or at the
showdown; a disputed hand waits for an officer's decision instead) once its
start (the `poker.hand_started` event's business time) lies the figure's days
or more before the command's time. Unlike `void_hand`, the bets are *not*
returned: the stacks stay as they stand (what each player had left behind)
and the pot, every chip put in, moves from the table account to the venue's
charity liability (`casino.accounts.charity_forfeits`), in the same
`poker.hand_voided` event (reason `unresolved_stakes_forfeited`), which
names the rule, its figure and each seat's forfeited stake. What the seed
leaves open (which chips, from when, disputed hands) is decision
`unresolved_stakes.forfeit` of the veikkaus-online-poker rulebook.

`forfeit_unresolved_hands` is the daily job (management command
`forfeit_unresolved_hands`, Celery task `casino.poker.tasks.forfeit_unresolved`
on beat): it voids every due hand, each under its own idempotency key, so a
rerun writes nothing more.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Mapping

from casino import clock
from casino.accounts import charity_forfeits
from casino.rules import queries as rules
from casino.rules.models import Venue
from casino.runner import Call, Decision, run
from ledger import InvariantViolation, NewEvent, Posting
from ledger.read import stream_events

from ..errors import PokerError, PokerErrorCode as Code
from ..events import HAND_VOIDED, SCHEMA_VERSION, hand_id_of, hand_stream, table_stacks
from ..models import Hand, HandStatus
from .base import (
    HandContext,
    HandResult,
    _account_terms,
    _call,
    _check_running,
    _HandCommand,
    _local_date,
    _rulebook,
    load_hand,
)

VOID_AFTER = "unresolved_stakes.void_after"
REASON = "unresolved_stakes_forfeited"
# Running hands the job looks at: a disputed hand is an officer's to decide.
UNRESOLVED = (HandStatus.STARTED, HandStatus.BETTING, HandStatus.SHOWDOWN)


@dataclass(frozen=True, slots=True)
class VoidRule:
    days: int
    cite: str


def void_rule(place: Venue, at: dt.datetime) -> VoidRule | None:
    """The venue's rule in force at `at`: days after which a hand is forfeited, or None."""
    figure = rules.figures_in_force(_rulebook(place, at), _local_date(place, at)).get(VOID_AFTER)
    return None if figure is None else VoidRule(int(figure.value), figure.cite)


def hand_started_at(table_id: str, number: int) -> dt.datetime:
    """The business time of the hand's `poker.hand_started` (its stream's first event)."""
    first = stream_events(hand_stream(table_id, number), 0, limit=1)
    if not first:
        raise InvariantViolation(f"hand {hand_id_of(table_id, number)} has no events")
    return first[0].occurred_at


def forfeit_unresolved_hand(*, hand_id: str, actor: str, idempotency_key: str | None = None,
                            at: dt.datetime | None = None) -> HandResult:
    """Void one unresolved hand with its pot to charity (001:L110).

    Raises PokerError: an unknown hand (404), a settled or voided one (409
    `poker.hand_finished`), a disputed one (409 `poker.hand_disputed`), or
    409 `poker.forfeit_not_due` when the venue's rulebook has no
    `unresolved_stakes.void_after` or the hand is younger than its days.
    """
    return run(FORFEIT_UNRESOLVED_HAND, {"hand_id": hand_id}, _call(actor, idempotency_key, at))


def due_hands(at: dt.datetime) -> list[str]:
    """Hand ids the rule forfeits at `at`, by table and number."""
    rules_by_venue: dict[str, VoidRule | None] = {}
    due = []
    for hand in (Hand.objects.filter(state__in=UNRESOLVED).select_related("table")
                 .order_by("table_id", "number")):
        venue = hand.table.venue
        if venue not in rules_by_venue:
            rules_by_venue[venue] = void_rule(rules.venue(venue), at)
        rule = rules_by_venue[venue]
        if rule is None:
            continue
        if at - hand_started_at(hand.table_id, hand.number) >= dt.timedelta(days=rule.days):
            due.append(hand_id_of(hand.table_id, hand.number))
    return due


def forfeit_unresolved_hands(*, actor: str, at: dt.datetime | None = None) -> list[HandResult]:
    """The daily job: forfeit every due hand, each under its own key (a rerun replays)."""
    at = at or clock.now()
    return [forfeit_unresolved_hand(hand_id=hand_id, actor=actor, at=at,
                                    idempotency_key=f"poker.forfeit_unresolved/{hand_id}")
            for hand_id in due_hands(at)]


@dataclass(frozen=True, slots=True)
class Forfeit:
    hand: HandContext
    place: Venue
    at: dt.datetime
    rule: VoidRule
    started_at: dt.datetime


class ForfeitUnresolvedHand(_HandCommand):
    name = "poker.forfeit_unresolved_hand"

    def load(self, arguments: Mapping[str, Any], call: Call) -> Forfeit:
        ctx = load_hand(arguments["hand_id"])
        _check_running(ctx)
        place = rules.venue(ctx.table.venue)
        at = call.moment()
        rule = void_rule(place, at)
        if rule is None:
            raise PokerError(Code.FORFEIT_NOT_DUE,
                             f"the rulebook of {place.code} forfeits no unresolved hand",
                             hand_id=ctx.hand_id, figure=VOID_AFTER)
        started = hand_started_at(ctx.table.id, ctx.number)
        if at - started < dt.timedelta(days=rule.days):
            raise PokerError(Code.FORFEIT_NOT_DUE,
                             f"hand {ctx.hand_id} started {started.isoformat()}: it is"
                             f" forfeited only {rule.days} days after its start",
                             hand_id=ctx.hand_id, figure=VOID_AFTER, days=rule.days,
                             cite=rule.cite)
        return Forfeit(ctx, place, at, rule, started)

    def decide(self, context: Forfeit) -> Decision:
        ctx, place = context.hand, context.place
        state = ctx.state
        stacks = {str(p.seat): p.stack_minor for p in state.players}
        pot = state.pot_minor
        if sum(stacks.values()) + pot != sum(ctx.starting_stacks_minor.values()):
            raise InvariantViolation(f"hand {ctx.hand_id}: stacks and pot do not add up"
                                     " to the stacks at its start")
        charity = charity_forfeits(place.code)
        payload = {
            "hand_id": ctx.hand_id, "table_id": ctx.table.id, "reason": REASON,
            "stacks_minor_after": stacks, "pot_minor": 0, "forfeited_minor": pot,
            "forfeited_by_seat": {str(p.seat): p.total_minor for p in state.players
                                  if p.total_minor},
            "to_account": charity, "started_at": context.started_at.isoformat(),
            "rule": {"key": VOID_AFTER, "days": context.rule.days, "cite": context.rule.cite},
        }
        postings = ()
        if pot:
            postings = (Posting(table_stacks(ctx.table.id), pot, ctx.table.currency),
                        Posting(charity, -pot, ctx.table.currency))
        event = NewEvent(stream=ctx.stream, type=HAND_VOIDED, payload=payload,
                         postings=postings, schema_version=SCHEMA_VERSION,
                         occurred_at=context.at, gaming_day=rules.venue_day(place, context.at))
        accounts = [_account_terms(charity, venue=place, table_id=ctx.table.id)] if pot else []
        return Decision([event], {ctx.stream: ctx.version}, accounts=accounts)


FORFEIT_UNRESOLVED_HAND = ForfeitUnresolvedHand()
