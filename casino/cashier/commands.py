"""Write side of the cashier windows: shifts, counts, handovers, transfers.

Every write goes through the command runner (casino.runner.run): load the
window's stream version and open shift, check, decide the events and
postings (pure), append expecting that version, so two cashiers opening the
same window, or a close racing a transfer, cannot both win.

Counts are by denomination: `{denomination_minor: pieces}`, e.g.
`{"5000": 10, "2000": 5}` is EUR 600.00 in 50s and 20s. The expected amount
of a window at its close is its account's balance (the bank, plus every
transfer in, less every transfer out); the count against it gives the
over (+) or short (-), which needs the cashier's reason.

Decision (cashier.short.alert_threshold, ray-casino rulebook, asked by
002:L1551, the casino's cash desk): a short larger than the figure
`cashier.short.alert_threshold` (EUR 50.00) raises a `compliance.alert_raised`
of kind `cash_short` in the same append. No seed fixes it; a venue whose
rulebook lacks the figure records the over/short and raises no alert.

Decision (two signatures): a transfer names two different people who
signed its slip; the actor who records it must be one of them. Reason: cash
moved between the vault, a window and a table is counted by the one handing
it over and the one taking it (the cage and the table for a fill or credit).

Decision (a handover changes hands): a handover passes the window to
another cashier; the outgoing and the incoming cashier count it together,
so a handover to the shift's own cashier is refused (invalid_request,
nothing written). The same commands serve the API and the admin's shift
forms (casino/cashier/admin.py).

Decision (the vault has no floor yet): the vault's opening inventory is
not modelled, so `cage/<venue>/vault` may go below zero as banks are issued.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from casino import accounts, counting
from casino.compliance.events import ALERT_RAISED
from casino.rules import queries as rules
from casino.rules.models import Venue
from casino.runner import BaseCommand, Call, Decision, run
from ledger import NewEvent, Posting, RecordedEvent
from ledger.read import balances, stream_version

from .errors import CashierError, CashierErrorCode
from .events import (
    SCHEMA_VERSION,
    SHIFT_CLOSED,
    SHIFT_OPENED,
    SOURCE,
    TRANSFER_MADE,
    transfers_stream,
    window_stream,
)
from .models import Shift, ShiftState

ALERT_FIGURE = "cashier.short.alert_threshold"
ALERT_KIND = "cash_short"
REASON_CHARS_MIN = 5


# --- pure helpers ---------------------------------------------------------------

def count_total(count: Mapping[str, Any]) -> tuple[dict[str, int], int]:
    """Validate a count by denomination and return it normalised and its total."""
    try:
        return counting.count_total(count)
    except counting.CountError as error:
        raise CashierError(CashierErrorCode.INVALID_REQUEST, str(error)) from None


def _money(minor: int, currency: str) -> str:
    sign = "-" if minor < 0 else ""
    return f"{currency} {sign}{abs(minor) // 100:,}.{abs(minor) % 100:02d}"


def _venue(code: str) -> Venue:
    venue = Venue.objects.filter(code=code).first()
    if venue is None:
        raise CashierError(CashierErrorCode.UNKNOWN_VENUE, f"no venue {code!r}", venue=code)
    return venue


def _window_id(window: str) -> str:
    window = (window or "").strip()
    if not window or "/" in window or ":" in window or len(window) > 40:
        raise CashierError(CashierErrorCode.INVALID_REQUEST,
                           "a window id is 1-40 characters without '/' or ':'")
    return window


def _open_shift(venue: str, window: str) -> Shift | None:
    return Shift.objects.filter(venue=venue, window=window, state=ShiftState.OPEN).first()


def _accounts(venue: Venue, *codes_types: tuple[str, str]) -> list[dict[str, Any]]:
    return [{"code": code, "type": kind, "currency": venue.currency}
            for code, kind in codes_types]


# --- open a shift ---------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class OpenContext:
    venue: Venue
    window: str
    cashier: str
    bank: dict[str, int]
    bank_minor: int
    version: int
    at: dt.datetime
    shift_id: str


class OpenShift(BaseCommand[OpenContext, Shift]):
    name = "cashier.open_shift"
    source = SOURCE

    def load(self, arguments, call: Call) -> OpenContext:
        venue = _venue(arguments["venue"])
        window = _window_id(arguments["window"])
        bank, bank_minor = count_total(arguments["bank"])
        cashier = (arguments.get("cashier") or call.actor).strip()
        open_shift = _open_shift(venue.code, window)
        if open_shift is not None:
            raise CashierError(CashierErrorCode.WINDOW_BUSY,
                               f"window {window} has an open shift ({open_shift.cashier});"
                               " close it or hand it over first", shift_id=open_shift.id)
        stream = window_stream(venue.code, window)
        return OpenContext(venue=venue, window=window, cashier=cashier, bank=bank,
                           bank_minor=bank_minor, version=stream_version(stream),
                           at=call.moment(), shift_id=arguments["shift_id"])

    def decide(self, context: OpenContext) -> Decision:
        venue, currency = context.venue, context.venue.currency
        window_account = accounts.cage_window(venue.code, context.window)
        vault = accounts.cage_vault(venue.code)
        postings = ((Posting(window_account, context.bank_minor, currency),
                     Posting(vault, -context.bank_minor, currency))
                    if context.bank_minor else ())
        stream = window_stream(venue.code, context.window)
        event = NewEvent(stream=stream, type=SHIFT_OPENED, payload={
            "venue": venue.code, "window": context.window, "shift_id": context.shift_id,
            "cashier": context.cashier, "bank": context.bank,
            "bank_minor": context.bank_minor, "currency": currency},
            postings=postings, schema_version=SCHEMA_VERSION, occurred_at=context.at,
            gaming_day=rules.venue_day(venue, context.at))
        return Decision([event], {stream: context.version}, accounts=_accounts(
            venue, (window_account, "asset"), (vault, "asset")))

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> Shift:
        return Shift.objects.get(id=events[0].payload["shift_id"])


# --- close a shift --------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class CloseContext:
    venue: Venue
    shift: Shift
    count: dict[str, int]
    counted_minor: int
    expected_minor: int
    reason: str
    threshold_minor: int | None
    threshold_cite: str
    version: int
    at: dt.datetime


class CloseShift(BaseCommand[CloseContext, Shift]):
    name = "cashier.close_shift"
    source = SOURCE

    def load(self, arguments, call: Call) -> CloseContext:
        venue = _venue(arguments["venue"])
        window = _window_id(arguments["window"])
        count, counted = count_total(arguments["count"])
        shift = _open_shift(venue.code, window)
        if shift is None:
            raise CashierError(CashierErrorCode.NO_OPEN_SHIFT,
                               f"window {window} has no open shift", window=window)
        if "hand_to" in arguments and arguments["hand_to"].strip() in ("", shift.cashier):
            raise CashierError(CashierErrorCode.INVALID_REQUEST,
                               f"a handover passes window {window} from {shift.cashier} to"
                               " another cashier", cashier=shift.cashier)
        at = call.moment()
        expected = balances([accounts.cage_window(venue.code, window)]).get(
            accounts.cage_window(venue.code, window), 0)
        rulebook = rules.rulebook_in_force(venue.rulebook_id, rules.venue_day(venue, at))
        figure = rules.figure(rulebook, ALERT_FIGURE, rules.venue_day(venue, at))
        reason = (arguments.get("reason") or "").strip()
        if counted != expected and len(reason) < REASON_CHARS_MIN:
            raise CashierError(
                CashierErrorCode.REASON_REQUIRED,
                f"the count {_money(counted, venue.currency)} is"
                f" {'over' if counted > expected else 'short'} by"
                f" {_money(abs(counted - expected), venue.currency)}: give the reason",
                counted_minor=counted, expected_minor=expected,
                over_short_minor=counted - expected)
        return CloseContext(
            venue=venue, shift=shift, count=count, counted_minor=counted,
            expected_minor=expected, reason=reason,
            threshold_minor=figure.value if figure is not None else None,
            threshold_cite=(f"decision {figure.decision}" if figure is not None
                            and figure.decision else ""),
            version=stream_version(window_stream(venue.code, window)), at=at)

    def decide(self, context: CloseContext) -> Decision:
        venue, shift, currency = context.venue, context.shift, context.venue.currency
        window_account = accounts.cage_window(venue.code, shift.window)
        vault = accounts.cage_vault(venue.code)
        over_short_account = accounts.cage_over_short(venue.code)
        difference = context.counted_minor - context.expected_minor
        postings = []
        if difference:
            postings += [Posting(window_account, difference, currency),
                         Posting(over_short_account, -difference, currency)]
        if context.counted_minor:
            postings += [Posting(vault, context.counted_minor, currency),
                         Posting(window_account, -context.counted_minor, currency)]
        day = rules.venue_day(venue, context.at)
        stream = window_stream(venue.code, shift.window)
        payload = {
            "venue": venue.code, "window": shift.window, "shift_id": shift.id,
            "cashier": shift.cashier, "count": context.count,
            "counted_minor": context.counted_minor, "expected_minor": context.expected_minor,
            "over_short_minor": difference, "reason": context.reason,
            "alert_threshold_minor": context.threshold_minor, "currency": currency}
        events = [NewEvent(stream=stream, type=SHIFT_CLOSED, payload=payload,
                           postings=tuple(postings), schema_version=SCHEMA_VERSION,
                           occurred_at=context.at, gaming_day=day)]
        if context.threshold_minor is not None and -difference > context.threshold_minor:
            events.append(NewEvent(stream=stream, type=ALERT_RAISED, payload={
                "kind": ALERT_KIND,
                "summary": (f"window {shift.window} at {venue.code} closed"
                            f" {_money(-difference, currency)} short, above the threshold"
                            f" {_money(context.threshold_minor, currency)}"),
                "player_id": "", "venue": venue.code,
                "details": {"shift_id": shift.id, "cashier": shift.cashier,
                            "window": shift.window, "gaming_day": day.isoformat(),
                            "counted_minor": context.counted_minor,
                            "expected_minor": context.expected_minor,
                            "short_minor": -difference,
                            "threshold_minor": context.threshold_minor,
                            "currency": currency, "reason": context.reason,
                            "rule": ALERT_FIGURE, "cite": context.threshold_cite}},
                occurred_at=context.at, gaming_day=day))
        return Decision(events, {stream: context.version}, accounts=_accounts(
            venue, (window_account, "asset"), (vault, "asset"),
            (over_short_account, "expense")))

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> Shift:
        return Shift.objects.get(id=events[0].payload["shift_id"])


# --- transfers ------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class TransferContext:
    venue: Venue
    source: str
    target: str
    count: dict[str, int]
    amount_minor: int
    signed_by: tuple[str, str]
    note: str
    versions: dict[str, int]
    at: dt.datetime
    transfer_id: str


def place_account(venue: Venue, place: str) -> tuple[str, str | None]:
    """The account of a place (`vault`, `window:<id>`, `table:<id>`) and its window."""
    kind, _, name = (place or "").partition(":")
    if kind == "vault" and not name:
        return accounts.cage_vault(venue.code), None
    if kind == "window" and name:
        return accounts.cage_window(venue.code, _window_id(name)), name
    if kind == "table" and name and "/" not in name:
        return accounts.table_tray(venue.code, name), None
    raise CashierError(CashierErrorCode.INVALID_REQUEST,
                       f"place {place!r} is not vault, window:<id> or table:<id>", place=place)


class MakeTransfer(BaseCommand[TransferContext, dict]):
    name = "cashier.transfer"
    source = SOURCE

    def load(self, arguments, call: Call) -> TransferContext:
        venue = _venue(arguments["venue"])
        source, target = arguments["source"], arguments["target"]
        _, source_window = place_account(venue, source)
        _, target_window = place_account(venue, target)
        if source == target:
            raise CashierError(CashierErrorCode.INVALID_REQUEST,
                               "a transfer moves cash between two different places")
        count, amount = count_total(arguments["count"])
        if amount <= 0:
            raise CashierError(CashierErrorCode.INVALID_REQUEST,
                               "a transfer moves a positive amount")
        signed = tuple((name or "").strip() for name in arguments.get("signed_by") or ())
        if len(signed) != 2 or not all(signed) or signed[0] == signed[1]:
            raise CashierError(CashierErrorCode.SIGNATURES_REQUIRED,
                               "a transfer slip is signed by two different people",
                               signed_by=list(signed))
        if call.actor not in signed:
            raise CashierError(CashierErrorCode.SIGNATURES_REQUIRED,
                               f"{call.actor} records the slip and must be one of its signers",
                               signed_by=list(signed))
        versions = {transfers_stream(venue.code): stream_version(transfers_stream(venue.code))}
        for window in (source_window, target_window):
            if window is None:
                continue
            if _open_shift(venue.code, window) is None:
                raise CashierError(CashierErrorCode.NO_OPEN_SHIFT,
                                   f"window {window} has no open shift", window=window)
            stream = window_stream(venue.code, window)
            versions[stream] = stream_version(stream)
        return TransferContext(venue=venue, source=source, target=target, count=count,
                               amount_minor=amount, signed_by=(signed[0], signed[1]),
                               note=(arguments.get("note") or "").strip(), versions=versions,
                               at=call.moment(), transfer_id=arguments["transfer_id"])

    def decide(self, context: TransferContext) -> Decision:
        venue, currency = context.venue, context.venue.currency
        source_account, _ = place_account(venue, context.source)
        target_account, _ = place_account(venue, context.target)
        event = NewEvent(
            stream=transfers_stream(venue.code), type=TRANSFER_MADE, payload={
                "venue": venue.code, "transfer_id": context.transfer_id,
                "source": context.source, "target": context.target, "count": context.count,
                "amount_minor": context.amount_minor, "signed_by": list(context.signed_by),
                "currency": currency, "note": context.note},
            postings=(Posting(target_account, context.amount_minor, currency),
                      Posting(source_account, -context.amount_minor, currency)),
            schema_version=SCHEMA_VERSION, occurred_at=context.at,
            gaming_day=rules.venue_day(venue, context.at))
        return Decision([event], dict(context.versions), accounts=_accounts(
            venue, (source_account, "asset"), (target_account, "asset")))

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> dict:
        return {**events[0].payload, "position": events[0].position, "replayed": replayed}


OPEN_SHIFT = OpenShift()
CLOSE_SHIFT = CloseShift()
TRANSFER = MakeTransfer()


# --- the commands as functions ----------------------------------------------------

def open_shift(*, venue: str, window: str, bank: Mapping[str, int], actor: str,
               cashier: str = "", idempotency_key: str | None = None,
               at: dt.datetime | None = None) -> Shift:
    """Open a shift at a window with a bank counted by denomination (from the vault).

    Raises CashierError window_busy (409), invalid_request (400), unknown_venue (404).
    """
    shift_id = f"shift-{uuid.uuid5(uuid.NAMESPACE_URL, idempotency_key).hex[:12]}" \
        if idempotency_key else f"shift-{uuid.uuid4().hex[:12]}"
    return run(OPEN_SHIFT, {"venue": venue, "window": window, "bank": dict(bank),
                            "cashier": cashier or actor, "shift_id": shift_id},
               Call(actor=actor, key=idempotency_key, at=at, source=SOURCE))


def close_shift(*, venue: str, window: str, count: Mapping[str, int], actor: str,
                reason: str = "", hand_to: str | None = None,
                idempotency_key: str | None = None,
                at: dt.datetime | None = None) -> Shift:
    """Close a window's shift with its count; the over or short needs a reason.

    `hand_to` (from `hand_over`) names the incoming cashier, who must not be
    the shift's own. Raises CashierError no_open_shift (409),
    reason_required (400), invalid_request (400).
    """
    arguments = {"venue": venue, "window": window, "count": dict(count), "reason": reason}
    if hand_to is not None:
        arguments["hand_to"] = hand_to
    return run(CLOSE_SHIFT, arguments,
               Call(actor=actor, key=idempotency_key, at=at, source=SOURCE))


def hand_over(*, venue: str, window: str, count: Mapping[str, int],
              bank: Mapping[str, int], to_cashier: str, actor: str, reason: str = "",
              idempotency_key: str | None = None, at: dt.datetime | None = None
              ) -> tuple[Shift, Shift]:
    """Hand a window to the next cashier: close with a count, then open with a bank.

    Raises CashierError invalid_request (400) when the incoming cashier is the
    outgoing one, no_open_shift (409), and whatever close and open raise.
    """
    incoming = (to_cashier or "").strip()
    closed = close_shift(venue=venue, window=window, count=count, actor=actor, reason=reason,
                         hand_to=incoming,
                         idempotency_key=f"{idempotency_key}:close" if idempotency_key
                         else None, at=at)
    opened = open_shift(venue=venue, window=window, bank=bank, actor=actor,
                        cashier=incoming,
                        idempotency_key=f"{idempotency_key}:open" if idempotency_key
                        else None, at=at)
    return closed, opened


def transfer(*, venue: str, source: str, target: str, count: Mapping[str, int],
             signed_by: Sequence[str], actor: str, note: str = "",
             idempotency_key: str | None = None, at: dt.datetime | None = None) -> dict:
    """Move cash between the vault, a window and a table, on a slip signed by two.

    Raises CashierError signatures_required (400), no_open_shift (409),
    invalid_request (400).
    """
    transfer_id = f"transfer-{uuid.uuid5(uuid.NAMESPACE_URL, idempotency_key).hex[:12]}" \
        if idempotency_key else f"transfer-{uuid.uuid4().hex[:12]}"
    return run(TRANSFER, {"venue": venue, "source": source, "target": target,
                          "count": dict(count), "signed_by": list(signed_by), "note": note,
                          "transfer_id": transfer_id},
               Call(actor=actor, key=idempotency_key, at=at, source=SOURCE))
