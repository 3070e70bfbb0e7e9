"""Write side of the cage: deposits, withdrawals, chip purchases, redemptions.

Each command, in order: replay a request whose idempotency key is recorded
(its result, or its recorded refusal); read the player stream's version;
`authorize` through the compliance pipeline (identity, age, self-exclusion,
transfer blackout, account ceiling: casino/compliance/checks.py), then the
cash payment cap (below), a refusal of either recorded before it is raised; decide the events and postings (pure);
one `append` expecting that version, so nothing decided from the player's
state (the AML totals included) can race. A stale version is retried from
the read. `at` is the business time: tests pass it, API views never do.

Accounts, opened in the same transaction as their first posting, so that a
refused request leaves none behind:

    cage/<venue>/cash       asset      notes and coins in the cage
    cage/<venue>/chips      liability  chips outstanding (the chip float);
                                       never negative
    bank/<venue>/clearing   asset      bank transfers not yet settled
    player/<id>/account     liability  the player's gaming account; never
                                       negative

Postings, debit positive, for an amount A ("means" is the cage's cash for
cash, bank clearing for bank, the gaming account for account):

    deposit        means +A    account -A
    withdraw       account +A  means -A
    buy_chips      means +A    chips -A
    redeem_chips   chips +A    means -A

Decision (one gaming account per person, 002:L3064): a player has one
gaming account with the operator, whichever venue moves money in or out. It
never goes negative: no credit online (002:L3033), no chips on credit
(002:L1541). Its ledger maximum is the online ceiling (002:L3070), the
strictest `online.account.balance_max` among the rulebooks in force when it
opens. Reason: a ledger account's constraints are fixed when it opens, and
taking the ceiling from whichever venue opens it would leave an account
first used at a land-based cage without one.

Decision (online.account.scope, ray-online rulebook; issue 14 item 3): that
account is the RAY online service's gaming account (002 Part III, 7.4,
002:L3062-3072), and its two rules, the EUR 5,000 ceiling (002:L3070) and
the 00:00-06:00 transfer ban (002:L3072), are rules of the account, not of
the venue where the cage stands:

- they apply to every operation that moves the account's money, wherever
  it is asked for: deposits and withdrawals (bank or cash), chips bought
  with `paid_with="account"` and chips redeemed with `paid_to="account"`;
  so account -> chips -> cash is not a way round the ban, and chips
  redeemed into the account are refused over the ceiling and recorded like
  a deposit;
- the ban is read on the clock of the rulebook that states it
  (Europe/Helsinki), not in venue time: 23:30 in Ljubljana is 00:30 in
  Helsinki;
- chips bought or redeemed for cash do not touch the account, so neither
  rule applies to them: this is how a land casino takes stakes above the
  online ceiling in chips (002:L3421: EUR 7,000 a punto banco placement).
  Reason: the ceiling and the ban stand in the online section's account
  rules (7.4) and name the gaming account (pelitili) only. A cash deposit
  at a land cage is still a deposit into that account (the ledger has no
  other player account), so it meets both rules; refusing it in the
  pipeline records the refusal, where the ledger's maximum alone would not.
  The cages of other operators (olympic-tallinn, pslive) pay into the same
  account for now: a player account per operator is not modelled.

Decision (a cage needs a place): cash and chips are refused at online venues
(venue types online and online_poker); they take bank transfers only.
Reason: there are no notes or chips there to count.

Decision (cage cash has no floor): the cash a cage starts a day with (fills
from the vault) is not modelled yet, so `cage/<venue>/cash` is the net cash
the cage took in and may go below zero.

AML (EU 2015/849 art. 11(d); `aml.cdd.transaction_threshold` of the venue's
rulebook, a dated figure read for the gaming day):

- Every cash transaction (deposit or withdrawal in cash, chips bought or
  redeemed for cash) carries the `cash` block that compliance sums per
  player, venue and gaming day (CashActivity). Decision: money in and money
  out count together, as art. 11(d) names both wagering a stake and
  collecting winnings.
- When a transaction takes the day's total from below the threshold to at
  or above it, the same append writes one `compliance.alert_raised` of kind
  aml_threshold. Totals only grow, so this happens once per player, venue
  and gaming day; the next gaming day starts again from zero.
- Customer due diligence: the pipeline already refuses money in from a
  player whose identity is not verified (002:L3031), so identity is known
  before the threshold can be reached by money in. The alert records
  `cdd_required`, whether the identity is verified, and asks the officer
  for the further measures due at the threshold (purpose and source of the
  funds, sanctions and PEP screening).
- Cash payment cap (EU 2024/1624 art. 80; `aml.cash_payment.max` of the
  venue's rulebook, dated 2027-07-10 by its effective_from and read for
  the venue's local date): a cash payment, accepted or made (a deposit or
  withdrawal in cash, chips bought or redeemed for cash), exceeding the cap
  is refused and recorded as `compliance.cash_payment_cap`; exactly the cap
  (EUR 10,000.00) is a payment the article allows, EUR 10,000.01 is not.
  It is checked here, after the pipeline's verdict, because only the cage
  knows the means of payment. Decision: each payment is capped on its own;
  payments that appear linked are the structuring alert's concern below.
- Decision (structuring): a cash transaction is near the threshold when it
  is at least 90% of it and below it. A near-threshold transaction when the
  player made another at any of the operator's venues in the same or the six
  previous gaming days raises `aml_structuring`, once per player, venue and
  gaming day. Reason: splits within one gaming day are already summed into
  the threshold alert; what that sum cannot see is amounts kept just under
  the threshold across days or venues, the "operations which appear to be
  linked" of art. 11(d). The 90% and the seven days are constants here
  until the rulebooks carry them as figures.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from casino.compliance import pipeline as compliance_pipeline
from casino.compliance.events import ALERT_RAISED
from casino.compliance.models import AlertKind
from casino.compliance.checks import AttemptContext, Failure, Verdict, run_checks
from casino.compliance.pipeline import (
    Attempt,
    load_context,
    rejection,
    venue_day,
    verdict_record,
)
from casino.accounts import cage_window
from casino.players.events import player_stream
from casino.rules import queries as rules
from casino.rules.models import Figure as RuleFigure
from casino.rules.models import RulebookVersion, Venue, VenueType
from casino.runner import BaseCommand, Call, Decision, Rejection, run
from casino.accounts import bank_clearing, cage_cash, chips_outstanding, gaming_account
from casino.wallet import CREDIT_FIGURE, account_ceiling, account_credit_allowed
from ledger import InvariantViolation, NewEvent, Posting, RecordedEvent
from ledger import BalanceMaxExceeded, InsufficientFunds, LedgerError
from ledger.read import AccountType, Event, stream_version
from ledger.read import balances_after

from .errors import CageError, CageErrorCode
from .events import (
    CASH_DEPOSITED,
    CASH_WITHDRAWN,
    CHIPS_PURCHASED,
    CHIPS_REDEEMED,
    SCHEMA_VERSION,
)

# A concurrent change to the player's stream between the read and the append
# makes the append stale; the command then starts again from the read. Of n
# requests racing on one player at least one wins each round, so each needs at
# most n tries: five covers a player served at the cage and online at once.
ATTEMPTS_MAX = 5
THRESHOLD_FIGURE = "aml.cdd.transaction_threshold"
CASH_PAYMENT_FIGURE = "aml.cash_payment.max"
NEAR_THRESHOLD_PERCENT = 90
STRUCTURING_WINDOW_DAYS = compliance_pipeline.STRUCTURING_WINDOW_DAYS
REMOTE_VENUE_TYPES = frozenset({VenueType.ONLINE, VenueType.ONLINE_POKER})
SOURCE = "casino.cage"
CASH_PAYMENT_CAP = "compliance.cash_payment_cap"
# Whether the venue's cage may move the (RAY online) gaming account's money:
# false at the Tallinn and Ljubljana rooms (decision
# cage.gaming_account.offered); a rulebook without the figure is a Finnish
# venue of the account's own operator.
ACCOUNT_OFFERED_FIGURE = "cage.gaming_account.offered"
ACCOUNT_NOT_OFFERED = "compliance.gaming_account_not_offered"


@dataclass(frozen=True, slots=True)
class Operation:
    """What one kind of cage request does: its attempt, event and postings."""

    name: str
    attempt_kind: str
    event_type: str
    methods: tuple[str, ...]
    method_field: str       # the argument and API field naming the method
    debit: str              # "means" | "account" | "chips"
    credit: str
    direction: str          # of cash, for the AML block: "in" | "out"


DEPOSIT = Operation("deposit", "deposit", CASH_DEPOSITED, ("cash", "bank"), "method",
                    debit="means", credit="account", direction="in")
WITHDRAWAL = Operation("withdraw", "withdrawal", CASH_WITHDRAWN, ("cash", "bank"), "method",
                       debit="account", credit="means", direction="out")
CHIP_PURCHASE = Operation("buy_chips", "chip_purchase", CHIPS_PURCHASED, ("cash", "account"),
                          "paid_with", debit="means", credit="chips", direction="in")
CHIP_REDEMPTION = Operation("redeem_chips", "chip_redemption", CHIPS_REDEEMED,
                            ("cash", "account"), "paid_to", debit="chips", credit="means",
                            direction="out")


@dataclass(frozen=True, slots=True)
class CageResult:
    """What one cage request wrote (or, replayed, had written).

    Balances are as of the cage event, so a replay shows what the original
    request left, not what the accounts hold today.
    """

    event_type: str
    position: int
    positions: tuple[int, ...]      # the cage event, then any alerts
    player_id: str
    venue: str
    amount_minor: int
    currency: str
    method: str
    gaming_day: dt.date
    account_balance_minor: int
    cage_cash_minor: int
    chips_outstanding_minor: int
    alerts: tuple[str, ...]         # kinds of the alerts raised
    replayed: bool = False


@dataclass(frozen=True, slots=True)
class CashContext:
    """What the AML decision reads about the player's cash so far."""

    threshold_minor: int | None
    cite: str
    total_before_minor: int             # this player, venue and gaming day
    transactions_before: int
    near_in_window_before: int          # any venue, this and the previous 6 days
    structuring_raised: bool            # this player, venue and gaming day
    identity_verified: bool


def deposit(*, player_id: str, venue: str, amount_minor: int, currency: str,
            method: str = "cash", actor: str, idempotency_key: str | None = None,
            at: dt.datetime | None = None, window: str = "") -> CageResult:
    """Credit the player's gaming account with cash at the cage or a bank transfer.

    Raises AttemptRejected (the rule is recorded), CageError, ComplianceError
    (unknown player: 404; bad amount or currency: 400), RulesError (unknown
    venue: 404), IdempotencyConflict.
    """
    return _transact(DEPOSIT, player_id=player_id, venue_code=venue, amount_minor=amount_minor,
                     currency=currency, method=method, actor=actor,
                     idempotency_key=idempotency_key, at=at, window=window)


def withdraw(*, player_id: str, venue: str, amount_minor: int, currency: str,
             method: str = "cash", actor: str, idempotency_key: str | None = None,
             at: dt.datetime | None = None, window: str = "") -> CageResult:
    """Pay out of the player's gaming account in cash or by bank transfer.

    More than the balance is refused with `cage.insufficient_funds` (no credit,
    002:L3033) and writes nothing. Raises as `deposit` does.
    """
    return _transact(WITHDRAWAL, player_id=player_id, venue_code=venue,
                     amount_minor=amount_minor, currency=currency, method=method, actor=actor,
                     idempotency_key=idempotency_key, at=at, window=window)


def buy_chips(*, player_id: str, venue: str, amount_minor: int, currency: str,
              paid_with: str = "cash", actor: str, idempotency_key: str | None = None,
              at: dt.datetime | None = None, window: str = "") -> CageResult:
    """Sell chips for cash or from the gaming account; the chip float grows.

    Chips are never sold on credit (002:L1541): paid from the account, more
    than the balance is refused with `cage.insufficient_funds`. Raises as
    `deposit` does.
    """
    return _transact(CHIP_PURCHASE, player_id=player_id, venue_code=venue,
                     amount_minor=amount_minor, currency=currency, method=paid_with,
                     actor=actor, idempotency_key=idempotency_key, at=at, window=window)


def redeem_chips(*, player_id: str, venue: str, amount_minor: int, currency: str,
                 paid_to: str = "cash", actor: str, idempotency_key: str | None = None,
                 at: dt.datetime | None = None, window: str = "") -> CageResult:
    """Take chips back for cash or into the gaming account (002:L1551).

    More than the venue's chips outstanding is refused with
    `cage.chips_not_outstanding`; into the account, over its ceiling with
    `cage.account_ceiling`. Raises as `deposit` does.
    """
    return _transact(CHIP_REDEMPTION, player_id=player_id, venue_code=venue,
                     amount_minor=amount_minor, currency=currency, method=paid_to,
                     actor=actor, idempotency_key=idempotency_key, at=at, window=window)


def _transact(operation: Operation, *, player_id: str, venue_code: str, amount_minor: int,
              currency: str, method: str, actor: str, idempotency_key: str | None,
              at: dt.datetime | None, window: str = "") -> CageResult:
    arguments = {"player_id": player_id, "venue": venue_code, "amount_minor": amount_minor,
                 "currency": currency, "method": method}
    if window:
        # Only when named, so a request without a window keeps its fingerprint.
        arguments["window"] = window
    return run(COMMANDS[operation.name], arguments,
               Call(actor=actor, key=idempotency_key, at=at, source=SOURCE))


@dataclass(frozen=True, slots=True)
class CageContext:
    """What a cage command decides from: the request, the venue, the verdict."""

    operation: Operation
    player_id: str
    venue: Venue
    amount_minor: int
    currency: str
    method: str
    at: dt.datetime
    day: dt.date
    local_day: dt.date
    debit: str
    credit: str
    version: int
    attempt: Attempt
    compliance: AttemptContext
    verdict: Verdict
    cash: CashContext | None
    cash_payment_max: RuleFigure | None     # in force on local_day, cash only
    account_offered: RuleFigure | None = None   # only when the account is touched
    window: str = ""                        # the cashier window that served it
    window_version: int | None = None       # its stream, read with its open shift
    # The venue's credit.allowed, for chips bought from the gaming account.
    chips_on_credit: RuleFigure | None = None


class CageCommand(BaseCommand[CageContext, CageResult]):
    """One of the four cage operations, run by casino.runner."""

    source = SOURCE

    def __init__(self, operation: Operation) -> None:
        self.operation = operation
        self.name = f"cage.{operation.name}"

    def load(self, arguments: Mapping[str, Any], call: Call) -> CageContext:
        operation = self.operation
        method = arguments["method"]
        if method not in operation.methods:
            raise CageError(CageErrorCode.INVALID_REQUEST,
                            f"{operation.method_field} must be one of"
                            f" {', '.join(operation.methods)}",
                            field=operation.method_field)
        venue = rules.venue(arguments["venue"])
        at = call.moment()
        local_day = at.astimezone(zoneinfo.ZoneInfo(venue.time_zone)).date()
        rulebook = rules.rulebook_in_force(venue.rulebook_id, local_day)
        if rulebook.venue_type in REMOTE_VENUE_TYPES and (method == "cash" or "chips" in (
                operation.debit, operation.credit)):
            raise CageError(CageErrorCode.METHOD_NOT_OFFERED,
                            f"{venue.code} is an online venue: it has no cage for cash or"
                            " chips, only bank transfers", venue=venue.code, method=method)
        player_id = arguments["player_id"]
        day = venue_day(venue, at)
        window = arguments.get("window") or ""
        window_version = _open_window_version(venue.code, window) if window else None
        debit, credit = _legs(operation, method, venue.code, player_id, window)
        # Only an operation that moves gaming-account money meets the
        # account's ceiling and transfer ban (decision online.account.scope).
        moves_account = gaming_account(player_id) in (debit, credit)
        attempt = Attempt(kind=operation.attempt_kind, venue=venue.code,
                          amount_minor=arguments["amount_minor"],
                          currency=arguments["currency"], player_id=player_id,
                          account=gaming_account(player_id) if moves_account else None,
                          at=at)
        # One statement: the player's stream version with the state, the
        # limits, the counters and the AML cash totals (one snapshot, so any
        # change after it makes the append stale, L6).
        compliance = load_context(attempt)
        version = compliance.player_version
        verdict = run_checks(compliance)
        cash = (_cash_context(rulebook, day, compliance)
                if method == "cash" and verdict.allowed else None)
        cash_payment_max = (rules.figure(rulebook, CASH_PAYMENT_FIGURE, on=local_day)
                            if method == "cash" else None)
        account_offered = (rules.figure(rulebook, ACCOUNT_OFFERED_FIGURE, on=local_day)
                           if moves_account else None)
        chips_on_credit = (rules.figure(rulebook, CREDIT_FIGURE, on=local_day)
                           if operation is CHIP_PURCHASE and moves_account else None)
        return CageContext(operation=operation, player_id=player_id, venue=venue,
                           amount_minor=arguments["amount_minor"],
                           currency=arguments["currency"], method=method, at=at, day=day,
                           local_day=local_day, debit=debit, credit=credit, version=version,
                           attempt=attempt, compliance=compliance, verdict=verdict, cash=cash,
                           cash_payment_max=cash_payment_max,
                           account_offered=account_offered, window=window,
                           window_version=window_version, chips_on_credit=chips_on_credit)

    def check(self, context: CageContext) -> Rejection | None:
        verdict = context.verdict
        if verdict.allowed:
            verdict = account_offered_verdict(context)
        if verdict.allowed:
            verdict = cash_payment_verdict(context)
        if verdict.allowed:
            _no_chips_on_credit(context)
            return None
        return rejection(context.attempt, context.compliance, verdict)

    def decide(self, context: CageContext) -> Decision:
        events = decide(context.operation, player_id=context.player_id,
                        venue_code=context.venue.code, amount_minor=context.amount_minor,
                        currency=context.currency, method=context.method,
                        debit=context.debit, credit=context.credit, at=context.at,
                        day=context.day, verdict=verdict_record(context.verdict),
                        cash=context.cash, window=context.window)
        accounts = [_account_terms(code, venue=context.venue, player_id=context.player_id,
                                   on=context.local_day)
                    for code in (context.debit, context.credit)]
        versions = {player_stream(context.player_id): context.version}
        if context.window:
            # A shift closing meanwhile makes this append stale: never a cash
            # movement at a window after its count.
            versions[window_stream(context.venue.code, context.window)] = (
                context.window_version)
        return Decision(events, versions,
                        accounts=accounts,
                        report_balances=_answer_accounts(context.player_id, context.venue.code))

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> CageResult:
        return _result(events, replayed=replayed)

    def refusal(self, context: CageContext, error: LedgerError) -> Exception | None:
        if isinstance(error, (InsufficientFunds, BalanceMaxExceeded)):
            return _refusal(error, amount_minor=context.amount_minor,
                            currency=context.currency, venue_code=context.venue.code)
        return None


def _no_chips_on_credit(context: CageContext) -> None:
    """Chips are never sold on credit where the venue's rulebook says so (pure).

    002:L135 (halls), 002:L1541 (casino) "Pelimerkkejä ei myydä velaksi eikä
    luotolla": chips paid from the gaming account for more than it holds are
    refused with `cage.insufficient_funds` citing the venue's row, nothing
    written, even where the account itself would allow credit. A venue
    whose `credit.allowed` is true leaves it to the account's own terms.
    """
    rule, balance = context.chips_on_credit, context.compliance.account_balance_minor
    if rule is None or rule.value is not False or balance is None:
        return
    if context.amount_minor > balance:
        raise CageError(
            CageErrorCode.INSUFFICIENT_FUNDS,
            f"the gaming account holds {_money(balance, context.currency)}, less than the"
            f" {_money(context.amount_minor, context.currency)} asked; chips are not sold on"
            f" credit ({rule.cite})", account=gaming_account(context.player_id),
            balance_minor=balance, amount_minor=context.amount_minor, cite=rule.cite)


def account_offered_verdict(context: CageContext) -> Verdict:
    """Refuse a movement of gaming-account money at a cage that has none (pure).

    The gaming account is the RAY online service's (002:L3062-3066); the
    Tallinn and Ljubljana rooms are other operators, so their cages take
    cash for chips only (decision cage.gaming_account.offered).
    """
    offered, verdict = context.account_offered, context.verdict
    if offered is None or offered.value:
        return verdict
    failure = Failure(
        code=ACCOUNT_NOT_OFFERED, amount_minor=context.amount_minor, limit_minor=None,
        message=(f"{context.venue.code} is not a venue of the gaming account's operator:"
                 " its cage moves no money into or out of the gaming account"),
        rulebook=verdict.rulebook, cite=offered.cite or f"decision {offered.decision}",
        hint="Pay or take cash for chips at this cage; the gaming account is served"
             " online and at the account operator's own venues.")
    return Verdict(False, verdict.checks_passed, failure, verdict.rulebook)


def cash_payment_verdict(context: CageContext) -> Verdict:
    """Refuse a cash payment exceeding `aml.cash_payment.max` (pure).

    EU 2024/1624 art. 80: no cash payment above the cap, from the date the
    figure is in force; "above" is strict, so exactly the cap passes.
    """
    cap, verdict = context.cash_payment_max, context.verdict
    if context.method != "cash" or cap is None or context.amount_minor <= cap.value:
        return verdict
    failure = Failure(
        code=CASH_PAYMENT_CAP, amount_minor=context.amount_minor, limit_minor=cap.value,
        message=(f"a cash payment of {_money(context.amount_minor, context.currency)} is over"
                 f" the cash payment cap {_money(cap.value, context.currency)}"),
        rulebook=verdict.rulebook, cite=cap.cite,
        hint="Pay the amount above the cap by bank transfer, or split it by means, not"
             " by cash payments.")
    return Verdict(False, verdict.checks_passed, failure, verdict.rulebook)


COMMANDS = {operation.name: CageCommand(operation)
            for operation in (DEPOSIT, WITHDRAWAL, CHIP_PURCHASE, CHIP_REDEMPTION)}


def decide(operation: Operation, *, player_id: str, venue_code: str, amount_minor: int,
           currency: str, method: str, debit: str, credit: str, at: dt.datetime,
           day: dt.date, verdict: Mapping[str, Any], cash: CashContext | None,
           window: str = "") -> list[NewEvent]:
    """Return the cage event and any AML alerts (pure: no reads, no writes)."""
    stream = player_stream(player_id)
    payload: dict[str, Any] = {
        "player_id": player_id, "venue": venue_code, "amount_minor": amount_minor,
        "currency": currency, "method": method, "account": gaming_account(player_id),
        "gaming_day": day.isoformat(), "verdict": dict(verdict),
    }
    if window:
        payload["window"] = window
    alerts: list[dict[str, Any]] = []
    if cash is not None:
        near = _near_threshold(amount_minor, cash.threshold_minor)
        payload["cash"] = {"player": player_id, "venue": venue_code,
                           "gaming_day": day.isoformat(), "amount_minor": amount_minor,
                           "direction": operation.direction}
        if near:
            payload["cash"]["near_threshold"] = True
        alerts = aml_alerts(cash, amount_minor=amount_minor, near=near, currency=currency,
                            player_id=player_id, venue_code=venue_code, day=day,
                            rulebook=verdict["rulebook"])
    postings = (Posting(debit, amount_minor, currency),
                Posting(credit, -amount_minor, currency))
    events = [NewEvent(stream=stream, type=operation.event_type, payload=payload,
                       postings=postings, schema_version=SCHEMA_VERSION, occurred_at=at,
                       gaming_day=day)]
    events += [NewEvent(stream=stream, type=ALERT_RAISED, payload=alert, occurred_at=at,
                        gaming_day=day) for alert in alerts]
    return events


def aml_alerts(cash: CashContext, *, amount_minor: int, near: bool, currency: str,
               player_id: str, venue_code: str, day: dt.date, rulebook: str
               ) -> list[dict[str, Any]]:
    """Return the payloads of the AML alerts this cash transaction raises (pure)."""
    threshold = cash.threshold_minor
    if threshold is None:
        return []
    alerts = []
    total = cash.total_before_minor + amount_minor
    common = {"gaming_day": day.isoformat(), "amount_minor": amount_minor, "currency": currency,
              "threshold_minor": threshold, "rulebook": rulebook, "cite": cash.cite}
    if cash.total_before_minor < threshold <= total:
        alerts.append({
            "kind": AlertKind.AML_THRESHOLD.value,
            "summary": (f"cash of {_money(total, currency)} at {venue_code} on"
                        f" {day.isoformat()} reached the due diligence threshold"
                        f" {_money(threshold, currency)} ({cash.cite})"),
            "player_id": player_id,
            "venue": venue_code,
            "details": {
                **common,
                "total_minor": total,
                "transactions": cash.transactions_before + 1,
                "cdd_required": True,
                "identity_verified": cash.identity_verified,
                "hint": ("Customer due diligence is required: confirm the identity and"
                         " record the purpose and source of the funds; screen for"
                         " sanctions and politically exposed persons."),
            },
        })
    if near and cash.near_in_window_before >= 1 and not cash.structuring_raised:
        alerts.append({
            "kind": AlertKind.AML_STRUCTURING.value,
            "summary": (f"{cash.near_in_window_before + 1} cash transactions just under"
                        f" the threshold {_money(threshold, currency)} within"
                        f" {STRUCTURING_WINDOW_DAYS} gaming days, the last at {venue_code}"
                        f" on {day.isoformat()}"),
            "player_id": player_id,
            "venue": venue_code,
            "details": {
                **common,
                "near_threshold_minor": threshold * NEAR_THRESHOLD_PERCENT // 100,
                "near_transactions": cash.near_in_window_before + 1,
                "window_days": STRUCTURING_WINDOW_DAYS,
                "hint": ("Amounts kept just under the threshold may be split to avoid"
                         " due diligence; review the player's cash history and consider"
                         " a suspicious transaction report."),
            },
        })
    return alerts


SHIFT_OPENED = "cashier.shift_opened"      # casino.cashier.events (read, not imported)
SHIFT_CLOSED = "cashier.shift_closed"


def window_stream(venue_code: str, window: str) -> str:
    return f"cashier/{venue_code}/{window}"


def _open_window_version(venue_code: str, window: str) -> int:
    """The window's stream version, if a shift is open on it; else refuse (409)."""
    stream = window_stream(venue_code, window)
    last = (Event.objects.filter(stream=stream, type__in=(SHIFT_OPENED, SHIFT_CLOSED))
            .order_by("-position").values_list("type", flat=True).first())
    if last != SHIFT_OPENED:
        raise CageError(CageErrorCode.WINDOW_NOT_OPEN,
                        f"cashier window {window} at {venue_code} has no open shift",
                        venue=venue_code, window=window)
    return stream_version(stream)


def _near_threshold(amount_minor: int, threshold_minor: int | None) -> bool:
    if threshold_minor is None:
        return False
    share = amount_minor * 100
    return threshold_minor * NEAR_THRESHOLD_PERCENT <= share < threshold_minor * 100


def _legs(operation: Operation, method: str, venue_code: str, player_id: str,
          window: str = "") -> tuple[str, str]:
    """Return the (debit, credit) account codes of the operation's posting pair.

    Cash served at a named cashier window moves that window's cash
    (casino.accounts.cage_window), so its shift's count expects it.
    """
    cash = cage_window(venue_code, window) if window else cage_cash(venue_code)
    means = {"cash": cash, "bank": bank_clearing(venue_code),
             "account": gaming_account(player_id)}[method]
    codes = {"means": means, "account": gaming_account(player_id),
             "chips": chips_outstanding(venue_code)}
    return codes[operation.debit], codes[operation.credit]


def _cash_context(rulebook: RulebookVersion, day: dt.date,
                  compliance: AttemptContext) -> CashContext:
    """The AML context of a cash operation: the threshold and the totals compliance read."""
    threshold = rules.figure(rulebook, THRESHOLD_FIGURE, on=day)
    totals = compliance.cash
    return CashContext(
        threshold_minor=threshold.value if threshold is not None else None,
        cite=threshold.cite if threshold is not None else "",
        total_before_minor=totals.total_before_minor,
        transactions_before=totals.transactions_before,
        near_in_window_before=totals.near_in_window_before,
        structuring_raised=totals.structuring_raised,
        identity_verified=bool(compliance.player_verified),
    )


def _account_terms(code: str, *, venue: Venue, player_id: str, on: dt.date) -> dict[str, Any]:
    """Return the type, name and constraints an account of the cage opens with."""
    if code == gaming_account(player_id):
        return dict(code=code, type=AccountType.LIABILITY, currency=venue.currency,
                    name=f"Gaming account of player {player_id}",
                    must_not_go_negative=not account_credit_allowed(on),
                    balance_max_minor=account_ceiling(on))
    if code == chips_outstanding(venue.code):
        return dict(code=code, type=AccountType.LIABILITY, currency=venue.currency,
                    name=f"Chips outstanding at {venue.code}", must_not_go_negative=True)
    if code == cage_cash(venue.code):
        return dict(code=code, type=AccountType.ASSET, currency=venue.currency,
                    name=f"Cage cash at {venue.code}")
    if code == bank_clearing(venue.code):
        return dict(code=code, type=AccountType.ASSET, currency=venue.currency,
                    name=f"Bank clearing for {venue.code}")
    if code.startswith(cage_window(venue.code, "")):
        return dict(code=code, type=AccountType.ASSET, currency=venue.currency,
                    name=f"Cashier window {code.rsplit('/', 1)[1]} at {venue.code}")
    raise InvariantViolation(f"the cage does not open account {code}")


def _refusal(error: LedgerError, *, amount_minor: int, currency: str,
             venue_code: str) -> CageError:
    """Turn the ledger's refusal of an account constraint into the cage's error."""
    account = error.details["account"]
    if isinstance(error, BalanceMaxExceeded):
        ceiling = error.details["balance_max_minor"]
        after = error.details["balance_after_minor"]
        return CageError(
            CageErrorCode.ACCOUNT_CEILING,
            f"the gaming account would hold {_money(after, currency)}, over its ceiling"
            f" {_money(ceiling, currency)} (002:L3070)",
            account=account, limit_minor=ceiling, amount_minor=amount_minor, cite="002:L3070")
    balance = error.details["balance_minor"]
    if account == chips_outstanding(venue_code):
        return CageError(
            CageErrorCode.CHIPS_NOT_OUTSTANDING,
            f"the cage at {venue_code} has {_money(balance, currency)} of chips outstanding,"
            f" less than the {_money(amount_minor, currency)} to redeem",
            account=account, balance_minor=balance, amount_minor=amount_minor)
    return CageError(
        CageErrorCode.INSUFFICIENT_FUNDS,
        f"the gaming account holds {_money(balance, currency)}, less than the"
        f" {_money(amount_minor, currency)} asked; there is no credit (002:L3033)",
        account=account, balance_minor=balance, amount_minor=amount_minor, cite="002:L3033")


def _answer_accounts(player_id: str, venue_code: str) -> tuple[str, str, str]:
    """The accounts a cage answer reports: the gaming account, the cage's cash and chips."""
    return gaming_account(player_id), cage_cash(venue_code), chips_outstanding(venue_code)


def _result(events: Sequence[RecordedEvent], *, replayed: bool) -> CageResult:
    event = events[0]
    p = event.payload
    codes = _answer_accounts(p["player_id"], p["venue"])
    balances = balances_after(event, codes)
    return CageResult(
        event_type=event.type,
        position=event.position,
        positions=tuple(e.position for e in events),
        player_id=p["player_id"],
        venue=p["venue"],
        amount_minor=p["amount_minor"],
        currency=p["currency"],
        method=p["method"],
        gaming_day=dt.date.fromisoformat(p["gaming_day"]),
        account_balance_minor=balances[codes[0]],
        cage_cash_minor=balances[codes[1]],
        chips_outstanding_minor=balances[codes[2]],
        alerts=tuple(e.payload["kind"] for e in events if e.type == ALERT_RAISED),
        replayed=replayed,
    )


def _money(minor: int, currency: str) -> str:
    sign = "-" if minor < 0 else ""
    return f"{currency} {sign}{abs(minor) // 100:,}.{abs(minor) % 100:02d}"
