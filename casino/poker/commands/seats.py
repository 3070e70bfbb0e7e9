"""Seats: buy-ins and cash-outs, between hands (000:L281)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from casino.wallet import PlayerCredit, accounts_to_open, credit_players
from casino.accounts import OVERFLOW_KEY, chips_outstanding
from casino.compliance.checks import AttemptContext, Failure, Verdict, run_checks
from casino.compliance.checks import outside_transfer_blackout
from casino.compliance.pipeline import Attempt, load_context, rejection, verdict_record
from casino.rules import queries as rules
from casino.rules.models import RulebookVersion, Venue
from casino.rules.queries import venue_day
from casino.runner import BaseCommand, Call, Decision, Rejection, run
from ledger import NewEvent, Posting, RecordedEvent
from ledger import BalanceMaxExceeded, InsufficientFunds, LedgerError
from ledger.read import Account, AccountType

from .. import evening
from ..errors import PokerError, PokerErrorCode as Code
from ..events import (
    BUY_IN_REJECTED,
    PLAYER_BOUGHT_IN,
    PLAYER_CASHED_OUT,
    SCHEMA_VERSION,
    table_stacks,
    table_stream,
)
from ..models import PlayerBanzaiMove, PlayerEvening, Seat
from .base import (
    MEANS,
    PVP_GAME,
    REMOTE_VENUE_TYPES,
    SOURCE,
    SeatResult,
    TableContext,
    _account_terms,
    _call,
    _check_amount,
    _check_seat_number,
    _figures,
    _hand_running,
    _insufficient,
    load_table,
    _local_date,
    _means_account,
    _raise_recorded_refusal,
    _rejection,
    _rulebook,
    _seat_result,
)


# A seat is paid from (and cashed out to) the gaming account, banknotes, or
# the venue's chips bought at its cage ("plaques or cash chips", 003:L110):
# chips leave the chip float for the table's stacks and come back to it.
SEAT_MEANS = (*MEANS, "chips")
ACCOUNT_OFFERED_FIGURE = "cage.gaming_account.offered"
ACCOUNT_NOT_OFFERED = "compliance.gaming_account_not_offered"


def _check_seat_means(method: str, field: str, place: Venue, at: dt.datetime) -> None:
    if method not in SEAT_MEANS:
        raise PokerError(Code.INVALID_REQUEST,
                         f"{field} must be one of {', '.join(SEAT_MEANS)}", field=field)
    if method == "chips" and _rulebook(place, at).venue_type in REMOTE_VENUE_TYPES:
        raise PokerError(Code.INVALID_REQUEST,
                         f"{field} chips: an online table has no cage chips", field=field)


def _seat_means(method: str, player_id: str, venue: str) -> str:
    return chips_outstanding(venue) if method == "chips" else _means_account(
        method, player_id, venue)


def _seat_terms(code: str, *, venue: Venue, table_id: str, at: dt.datetime
                ) -> dict[str, Any]:
    if code == chips_outstanding(venue.code):
        # The cage's own terms for its chip float (casino/cage/commands.py).
        return dict(code=code, type=AccountType.LIABILITY, currency=venue.currency,
                    name=f"Chips outstanding at {venue.code}", must_not_go_negative=True)
    return _account_terms(code, venue=venue, table_id=table_id, at=at)


def _account_not_offered(place: Venue, at: dt.datetime, verdict: Verdict, *,
                         amount_minor: int) -> Verdict:
    """Refuse gaming-account money at a table of a venue that has no account (pure
    but for the cached rulebook).

    The same figure as the cage's (decision cage.gaming_account.offered): the
    gaming account is the RAY online service's (002:L3062-3066); the Tallinn
    and Ljubljana rooms are other operators', so their tables take no buy-in
    from it and pay no cash-out into it.
    """
    offered = rules.figures_in_force(_rulebook(place, at), _local_date(place, at)).get(
        ACCOUNT_OFFERED_FIGURE)
    if offered is None or offered.value:
        return verdict
    failure = Failure(
        code=ACCOUNT_NOT_OFFERED, amount_minor=amount_minor, limit_minor=None,
        message=(f"{place.code} is not a venue of the gaming account's operator: its"
                 " tables take no buy-in from the gaming account and pay none into it"),
        rulebook=verdict.rulebook, cite=offered.cite or f"decision {offered.decision}",
        hint="Buy in and cash out in cash or in the venue's chips.")
    return Verdict(False, verdict.checks_passed, failure, verdict.rulebook)


def buy_in(*, table_id: str, seat: int, player_id: str, amount_minor: int,
           paid_with: str = "account", actor: str, idempotency_key: str | None = None,
           at: dt.datetime | None = None) -> SeatResult:
    """Move money from the player's gaming account (or cash) onto a seat's stack.

    A first buy-in is between the table's minimum and maximum; a top-up
    between hands may not take the stack over the maximum (000:L545-546), and
    a stack under one big blind must be topped up by at least the minimum
    (000:L541-543). Refused while a hand runs (000:L281). A refusal by these
    rules is recorded (`poker.buy_in_rejected`) and raised as PokerError; the
    compliance pipeline's (identity, age, self-exclusion) as AttemptRejected.
    Not enough in the gaming account: `poker.insufficient_funds`, nothing
    written.
    """
    arguments = {"table_id": table_id, "seat": seat, "player_id": player_id,
                 "amount_minor": amount_minor, "paid_with": paid_with}
    return run(BUY_IN, arguments, _call(actor, idempotency_key, at))


@dataclass(frozen=True, slots=True)
class BuyInContext:
    """A buy-in: the table, the refusal by a poker or compliance rule, the means."""

    table: TableContext
    place: Venue
    at: dt.datetime
    day: dt.date
    seat: int
    player_id: str
    amount_minor: int
    paid_with: str
    means: str
    means_missing: bool
    failure: PokerError | None
    short: bool
    attempt: Attempt | None
    compliance: AttemptContext | None
    verdict: Verdict | None


class BuyIn(BaseCommand[BuyInContext, SeatResult]):
    name = "poker.buy_in"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> BuyInContext:
        seat, player_id = arguments["seat"], arguments["player_id"]
        amount_minor, paid_with = arguments["amount_minor"], arguments["paid_with"]
        _check_amount(amount_minor)
        at = call.moment()
        ctx = load_table(arguments["table_id"])
        table = ctx.table
        _check_seat_number(table, seat)
        place = rules.venue(table.venue)
        _check_seat_means(paid_with, "paid_with", place, at)
        day = venue_day(place, at)
        failure, short = _buy_in_refusal(ctx, seat=seat, player_id=player_id,
                                         amount_minor=amount_minor, paid_with=paid_with,
                                         at=at, day=day)
        means = _seat_means(paid_with, player_id, table.venue)
        attempt = compliance = verdict = None
        if failure is None:
            # Chips bought from the gaming account at a land table meet the
            # account's transfer ban (002:L3072; decision online.account.scope):
            # chips cashed at the cage would otherwise withdraw at night.
            # Online, a buy-in is play from the account, not a transfer.
            from_account = (paid_with == "account"
                            and _rulebook(place, at).venue_type not in REMOTE_VENUE_TYPES)
            attempt = Attempt(kind="buy_in", venue=table.venue, amount_minor=amount_minor,
                              currency=table.currency, player_id=player_id, game=PVP_GAME,
                              category="pvp", at=at,
                              account=means if from_account else None)
            compliance = load_context(attempt)
            verdict = run_checks(compliance)
            if verdict.allowed and paid_with == "account":
                verdict = _account_not_offered(place, at, verdict, amount_minor=amount_minor)
        means_missing = (paid_with == "account"
                         and not Account.objects.filter(code=means).exists())
        return BuyInContext(table=ctx, place=place, at=at, day=day, seat=seat,
                            player_id=player_id, amount_minor=amount_minor,
                            paid_with=paid_with, means=means, means_missing=means_missing,
                            failure=failure, short=short, attempt=attempt,
                            compliance=compliance, verdict=verdict)

    def check(self, context: BuyInContext) -> Rejection | None:
        if context.failure is not None:
            return _rejection(BUY_IN_REJECTED, table_stream(context.table.table.id),
                              context.failure,
                              {"table_id": context.table.table.id, "seat": context.seat,
                               "player_id": context.player_id,
                               "amount_minor": context.amount_minor},
                              place=context.place, at=context.at)
        if not context.verdict.allowed:
            return rejection(context.attempt, context.compliance, context.verdict)
        return None

    def decide(self, context: BuyInContext) -> Decision:
        if context.means_missing:
            raise _insufficient(context.means, 0, context.amount_minor)
        ctx, amount = context.table, context.amount_minor
        table = ctx.table
        event = NewEvent(
            stream=table_stream(table.id), type=PLAYER_BOUGHT_IN,
            payload={"table_id": table.id, "seat": context.seat,
                     "player_id": context.player_id, "amount_minor": amount,
                     "paid_with": context.paid_with,
                     "stack_minor_after": ctx.seats[context.seat].stack_minor + amount,
                     "short": context.short, "verdict": verdict_record(context.verdict)},
            postings=(Posting(context.means, amount, table.currency),
                      Posting(table_stacks(table.id), -amount, table.currency)),
            schema_version=SCHEMA_VERSION, occurred_at=context.at, gaming_day=context.day)
        return Decision([event], ctx.versions,
                        accounts=[_seat_terms(context.means, venue=context.place,
                                              table_id=table.id, at=context.at)])

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> SeatResult:
        if events[0].type == BUY_IN_REJECTED:
            _raise_recorded_refusal(events[0])
        return _seat_result(events[0], replayed=replayed)

    def refusal(self, context: BuyInContext, error: LedgerError) -> Exception | None:
        if isinstance(error, InsufficientFunds) and context.paid_with == "chips":
            return PokerError(Code.INSUFFICIENT_FUNDS,
                              f"the chip float at {context.place.code} holds"
                              f" {error.details.get('balance_minor', 0)}, less than the"
                              f" {context.amount_minor} in chips brought: chips are bought"
                              " at the venue's cage", account=context.means,
                              amount_minor=context.amount_minor)
        if isinstance(error, InsufficientFunds):
            return _insufficient(context.means, error.details.get("balance_minor", 0),
                                 context.amount_minor)
        return None


BUY_IN = BuyIn()


def _buy_in_refusal(ctx: TableContext, *, seat: int, player_id: str, amount_minor: int,
                    paid_with: str, at: dt.datetime, day: dt.date
                    ) -> tuple[PokerError | None, bool]:
    """Why this buy-in is refused, or (None, whether it is a short buy-in).

    The seat rules first (a hand running, the seat taken, the player at
    another seat), then the buy-in range and the evening's rules
    (casino/poker/evening.py) with the summary of the player's earlier moves,
    read by key from the projection, and only the parts the rulebook's rules
    need: the cost does not grow with the player's moves.
    """
    table = ctx.table
    if ctx.last_hand_running:
        return _hand_running(table.id, ctx.last_hand), False
    sitting = ctx.seats[seat]
    if sitting.player_id and sitting.player_id != player_id:
        return PokerError(Code.SEAT_TAKEN, f"seat {seat} is taken",
                          seat=seat), False
    elsewhere = [n for n, s in ctx.seats.items() if s.player_id == player_id and n != seat]
    if elsewhere:
        return PokerError(Code.NOT_SEATED_HERE,
                          f"the player sits at seat {elsewhere[0]} of this table",
                          seat=elsewhere[0]), False
    rulebook = RulebookVersion.objects.get(key=table.rulebook)
    figures = _figures(rulebook, day)
    cash_refusal = _cash_limit_refusal(figures, paid_with=paid_with,
                                       amount_minor=amount_minor, rulebook=table.rulebook)
    if cash_refusal is not None:
        return cash_refusal, False
    rules_tonight = evening.EveningRules.from_figures(figures)
    terms = evening.TableTerms(
        table_id=table.id, structure=table.structure,
        small_blind_minor=table.stakes["small_blind_minor"],
        big_blind_minor=evening.opening_unit(table.stakes),
        buy_in_minor_min=table.buy_in_minor_min, buy_in_minor_max=table.buy_in_minor_max,
        banzai=table.banzai, rulebook=table.rulebook)
    tonight, banzai_now = evening.Evening(), 0
    if (rules_tonight.one_stack is not None or rules_tonight.short is not None
            or rules_tonight.comeback is not None):
        row = PlayerEvening.objects.filter(
            key=PlayerEvening.key_of(player_id, table.venue, day)).first()
        if row is not None:
            tonight = evening.Evening(row.buy_ins, row.short_buy_ins,
                                      {s: evening.move_from(m)
                                       for s, m in row.last_moves.items()})
    if table.banzai and rules_tonight.banzai is not None:
        last = PlayerBanzaiMove.objects.filter(
            key=PlayerBanzaiMove.key_of(player_id, table.venue)).first()
        if last is not None:
            tonight = replace(tonight, last_banzai=evening.move_from(last.move))
        banzai_now = Seat.objects.filter(
            player_id=player_id, table__banzai=True, table__venue=table.venue,
            table__stakes=table.stakes).exclude(table=table).count()
    try:
        verdict = evening.check_buy_in(
            rules_tonight, terms, amount_minor=amount_minor,
            stack_minor=sitting.stack_minor if sitting.player_id else 0,
            sitting_down=not sitting.player_id, evening=tonight,
            banzai_tables_now=banzai_now, at=at)
    except PokerError as refusal:
        return refusal, False
    return None, verdict.short


def _cash_limit_refusal(figures: Mapping[str, tuple[Any, str]], *, paid_with: str,
                        amount_minor: int, rulebook: str) -> PokerError | None:
    """A buy-in in banknotes at or over the rulebook's cash limit (pure).

    Tallinn: a buy-in in cash is under EUR 100; more is bought with plaques
    or cash chips (003:L110). A rulebook without the figure has no limit.
    """
    if paid_with != "cash" or "buy_in.cash_below" not in figures:
        return None
    below, cite = figures["buy_in.cash_below"]
    if amount_minor < below:
        return None
    return PokerError(Code.CASH_BUY_IN_TOO_LARGE,
                      f"a buy-in in cash is under {below}; {amount_minor} is bought with"
                      " plaques or cash chips", limit_minor=below, amount_minor=amount_minor,
                      cite=cite, rulebook=rulebook)


def cash_out(*, table_id: str, seat: int, player_id: str, paid_to: str = "account",
             actor: str, idempotency_key: str | None = None,
             at: dt.datetime | None = None) -> SeatResult:
    """Take a seat's whole stack off the table into the gaming account (or cash).

    The player leaves the seat. Refused while a hand runs (000:L281): 409,
    nothing written. Into the account, the stack is credited up to the
    account's ceiling and the rest goes to `bank/<venue>/payouts_due`, owed
    to the player's bank account, with an `overflow` block in the payload
    (ray-online decision online.account.balance_overflow, 002:L3068-3070).
    """
    arguments = {"table_id": table_id, "seat": seat, "player_id": player_id,
                 "paid_to": paid_to}
    return run(CASH_OUT, arguments, _call(actor, idempotency_key, at))


@dataclass(frozen=True, slots=True)
class CashOutContext:
    """A cash-out: the table, the seat's stack and how it is credited."""

    table: TableContext
    place: Venue
    at: dt.datetime
    seat: int
    player_id: str
    paid_to: str
    amount_minor: int
    means: str
    credit: PlayerCredit | None
    accounts: Sequence[Mapping[str, Any]]
    refused: Rejection | None = None


class CashOut(BaseCommand[CashOutContext, SeatResult]):
    name = "poker.cash_out"
    source = SOURCE
    # A deposit committed after the ceiling split was read
    # (casino/wallet.py): split again from a new read.
    retry_on = (BalanceMaxExceeded,)

    def load(self, arguments: Mapping[str, Any], call: Call) -> CashOutContext:
        seat, player_id, paid_to = arguments["seat"], arguments["player_id"], arguments["paid_to"]
        at = call.moment()
        ctx = load_table(arguments["table_id"])
        table = ctx.table
        _check_seat_number(table, seat)
        place = rules.venue(table.venue)
        _check_seat_means(paid_to, "paid_to", place, at)
        if ctx.last_hand_running:
            raise _hand_running(table.id, ctx.last_hand)
        sitting = ctx.seats[seat]
        if not sitting.player_id:
            raise PokerError(Code.SEAT_EMPTY, f"seat {seat} is empty", seat=seat)
        if sitting.player_id != player_id:
            raise PokerError(Code.NOT_SEATED_HERE, f"seat {seat} is not this player's",
                             seat=seat)
        amount = sitting.stack_minor
        means = _seat_means(paid_to, player_id, table.venue)
        if amount and paid_to == "account":
            refused = _cash_out_refusal(place, at, table.currency, player_id=player_id,
                                        amount_minor=amount, account=means)
            if refused is None and _rulebook(place, at).venue_type not in REMOTE_VENUE_TYPES:
                refused = _cash_out_blackout_refusal(place, at, table.currency,
                                                     player_id=player_id,
                                                     amount_minor=amount, account=means)
            if refused is not None:
                return CashOutContext(table=ctx, place=place, at=at, seat=seat,
                                      player_id=player_id, paid_to=paid_to,
                                      amount_minor=amount, means=means, credit=None,
                                      accounts=(), refused=refused)
        credit = None
        if amount and paid_to == "account":
            # Up to the ceiling into the account, the rest owed to the bank
            # account (decision online.account.balance_overflow, 002:L3068-3070).
            credit = credit_players({player_id: amount}, currency=table.currency,
                                    venue=table.venue, on=_local_date(place, at),
                                    open_payouts_due=False)[player_id]
        accounts: list[Mapping[str, Any]] = []
        if amount:
            accounts.append(_seat_terms(means, venue=place, table_id=table.id, at=at))
        if credit is not None:
            accounts += accounts_to_open([credit])
        return CashOutContext(table=ctx, place=place, at=at, seat=seat, player_id=player_id,
                              paid_to=paid_to, amount_minor=amount, means=means,
                              credit=credit, accounts=accounts)

    def check(self, context: CashOutContext) -> Rejection | None:
        return context.refused

    def decide(self, context: CashOutContext) -> Decision:
        table, amount = context.table.table, context.amount_minor
        payload: dict[str, Any] = {"table_id": table.id, "seat": context.seat,
                                   "player_id": context.player_id, "amount_minor": amount,
                                   "paid_to": context.paid_to}
        credits: tuple[Posting, ...] = ((Posting(context.means, -amount, table.currency),)
                                        if amount else ())
        if context.credit is not None:
            credits = context.credit.postings
            if context.credit.overflow is not None:
                payload[OVERFLOW_KEY] = [context.credit.overflow]
        postings = ((Posting(table_stacks(table.id), amount, table.currency), *credits)
                    if amount else ())
        event = NewEvent(
            stream=table_stream(table.id), type=PLAYER_CASHED_OUT, payload=payload,
            postings=postings, schema_version=SCHEMA_VERSION, occurred_at=context.at,
            gaming_day=venue_day(context.place, context.at))
        return Decision([event], context.table.versions, accounts=context.accounts)

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> SeatResult:
        return _seat_result(events[0], replayed=replayed)


CASH_OUT = CashOut()


def _cash_out_refusal(place: Venue, at: dt.datetime, currency: str, *, player_id: str,
                      amount_minor: int, account: str) -> Rejection | None:
    """The recorded refusal of a cash-out into the gaming account where the
    venue has none (decision cage.gaming_account.offered), or None.

    The figure comes from the cached rulebook; only a refusal loads the
    player's compliance context, which the recorded refusal names.
    """
    offered = rules.figures_in_force(_rulebook(place, at), _local_date(place, at)).get(
        ACCOUNT_OFFERED_FIGURE)
    if offered is None or offered.value:
        return None
    attempt = Attempt(kind="chip_redemption", venue=place.code, amount_minor=amount_minor,
                      currency=currency, player_id=player_id, game=PVP_GAME,
                      category="pvp", account=account, at=at)
    compliance = load_context(attempt)
    verdict = _account_not_offered(place, at, Verdict(True, (), None, compliance.rulebook),
                                   amount_minor=amount_minor)
    return rejection(attempt, compliance, verdict)


def _cash_out_blackout_refusal(place: Venue, at: dt.datetime, currency: str, *,
                               player_id: str, amount_minor: int, account: str
                               ) -> Rejection | None:
    """The recorded refusal of a cash-out into the gaming account at a land
    table during the account's transfer ban (002:L3072), or None.

    Chips redeemed into the account at a land table move its money, like the
    buy-in paid from it (decision online.account.scope): at 01:00 Helsinki
    time a hall table pays no stack into the account, or table -> account
    would be the transfer the ban stops. The stack may leave in cash or in
    the venue's chips instead. Online, a cash-out is the end of play from
    the account, not a transfer, and the caller does not ask. Only the ban
    is checked: a stack above the account's ceiling is split at it
    (decision online.account.balance_overflow), not refused.
    """
    attempt = Attempt(kind="chip_redemption", venue=place.code, amount_minor=amount_minor,
                      currency=currency, player_id=player_id, game=PVP_GAME,
                      category="pvp", account=account, at=at)
    compliance = load_context(attempt)
    failure = outside_transfer_blackout(compliance)
    if failure is None:
        return None
    return rejection(attempt, compliance,
                     Verdict(False, (), failure, compliance.rulebook))
