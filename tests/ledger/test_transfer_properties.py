"""Money between books as a property (issue 19, point 2): whatever the
transfers and wherever the protocol stops, the resolver finishes every one,
and no money is created, lost or left pending.

Random transfers among three books, atomic or two-phase, each stopped at a
random crash point: none; between the two books' appends (atomic); after
phase 1 (pending); after phase 2 (decided at the target); between the
target's refusal and the source's void. Then `resolve_pending` runs with a
`now` past every expiry, and once more. The test keeps its own model of
every account's natural balance and of each transfer's outcome, and never
asks the ledger what the answer should be. Each example runs inside a
savepoint rolled back afterwards (the log itself can never be emptied).
"""

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass

from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import append, open_account, verify_chain
from ledger.books import open_book
from ledger.errors import BalanceMaxExceeded, InsufficientFunds
from ledger.models import Account, Event
from ledger.transfers import (CLEARING_PREFIX, HOLD_PREFIX, TransferStatus, begin,
                              pending_transfers, receive, resolve, resolve_pending, status,
                              transfer_atomic)

from .factories import GAMING_DAY, transfer_event

T0 = dt.datetime(2026, 6, 16, 12, 0, tzinfo=dt.timezone.utc)
TIMEOUT_SECONDS = 60
AFTER_EVERY_EXPIRY = T0 + dt.timedelta(hours=1)
BOOKS = ("east", "north", "south")
CAP_MINOR = 2_000
# account suffix: (type, currency, must_not_go_negative, balance_max_minor, seeded from)
ACCOUNTS = {
    "cage": ("asset", "EUR", False, None, None),
    "player": ("liability", "EUR", True, None, "cage"),
    "capped": ("liability", "EUR", True, CAP_MINOR, None),  # only ever a target
    "sek-cash": ("asset", "SEK", False, None, None),
    "sek": ("liability", "SEK", True, None, "sek-cash"),
}
SEED_MINOR = 5_000
# (source suffix, target suffix): same currency, same natural side.
KINDS = (("player", "player"), ("player", "capped"), ("cage", "cage"), ("sek", "sek"),
         ("sek-cash", "sek-cash"))
ATOMIC_CRASHES = ("none", "between_books")
TWO_PHASE_CRASHES = ("none", "pending", "decided", "refused")


class Crash(Exception):
    """The process died here: nothing after this point ran."""


@dataclass(frozen=True)
class Move:
    source: int
    shift: int  # target book = (source + shift) % 3, never the source
    kind: int
    amount_minor: int
    two_phase: bool
    crash: str


@st.composite
def moves(draw):
    two_phase = draw(st.booleans())
    return Move(source=draw(st.integers(0, 2)), shift=draw(st.integers(1, 2)),
                kind=draw(st.integers(0, len(KINDS) - 1)),
                amount_minor=draw(st.integers(1, 4_000)), two_phase=two_phase,
                crash=draw(st.sampled_from(TWO_PHASE_CRASHES if two_phase
                                           else ATOMIC_CRASHES)))


def _crash_at(point):
    def hook(reached):
        if reached == point:
            raise Crash(point)
    return hook


def _open_books():
    for book in BOOKS:
        open_book(book)
        for suffix, (type_, currency, guarded, ceiling, _) in ACCOUNTS.items():
            open_account(code=f"{book}/{suffix}", type=type_, currency=currency,
                         must_not_go_negative=guarded, balance_max_minor=ceiling, book=book)
        for suffix, (_, currency, _, _, funder) in ACCOUNTS.items():
            if funder:
                append([transfer_event(f"{book}/{suffix}", f"{book}/{funder}", SEED_MINOR,
                                       currency)], book=book)


def _natural_balances():
    return dict(Account.objects.values_list("code", "balance_minor"))


def _run(move: Move, index: int, model: dict[str, int], outcomes: dict[str, TransferStatus],
         voids_left: list[tuple[str, int]]) -> None:
    """Run one transfer up to its crash point; update the model as the ledger must.

    A hold the crash leaves to be voided by the sweep goes to `voids_left`:
    its money is back in X only after the sweep.
    """
    source_book = BOOKS[move.source]
    target_book = BOOKS[(move.source + move.shift) % 3]
    source_suffix, target_suffix = KINDS[move.kind]
    x, y = f"{source_book}/{source_suffix}", f"{target_book}/{target_suffix}"
    currency = ACCOUNTS[source_suffix][1]
    amount = move.amount_minor
    transfer_id = f"p{index}"
    arguments = dict(transfer_id=transfer_id, source_book=source_book, source_account=x,
                     target_book=target_book, target_account=y, amount_minor=amount,
                     currency=currency, gaming_day=GAMING_DAY)
    x_short = ACCOUNTS[source_suffix][2] and model[x] < amount
    y_cap = ACCOUNTS[target_suffix][3]
    y_over = y_cap is not None and model[y] + amount > y_cap

    if not move.two_phase:
        crash = move.crash
        try:
            transfer_atomic(**arguments, hook=_crash_at(crash) if crash != "none" else None)
        except (InsufficientFunds, BalanceMaxExceeded) as error:
            assert x_short or y_over, error
            return
        except Crash:
            return
        assert not (x_short or y_over), (x, y, amount)
        assert crash == "none"
        model[x] -= amount
        model[y] += amount
        outcomes[transfer_id] = TransferStatus.POSTED
        return

    try:
        begin(**arguments, now=T0, timeout_seconds=TIMEOUT_SECONDS)
    except InsufficientFunds:
        assert x_short
        return
    assert not x_short
    model[x] -= amount  # held
    if move.crash == "pending":
        outcomes[transfer_id] = TransferStatus.VOIDED  # the sweep finds it expired
        voids_left.append((x, amount))
        return
    if move.crash == "refused":
        # The expiry sweep refuses at the target, then dies before the void.
        try:
            resolve(transfer_id, AFTER_EVERY_EXPIRY, hook=_crash_at("refused"))
        except Crash:
            outcomes[transfer_id] = TransferStatus.VOIDED
            voids_left.append((x, amount))
            return
        raise AssertionError("the refusal must have been reached")
    receive(transfer_id, now=T0)
    if y_over:
        outcomes[transfer_id] = TransferStatus.VOIDED
    else:
        model[y] += amount
        outcomes[transfer_id] = TransferStatus.POSTED
    if move.crash == "decided":
        if y_over:
            voids_left.append((x, amount))
        return
    assert resolve(transfer_id, T0).status == outcomes[transfer_id]
    if y_over:
        model[x] += amount  # voided now


def _check_settled(model, outcomes, seeded_totals):
    balances = _natural_balances()
    for code, expected in model.items():
        assert balances[code] == expected, (code, balances[code], expected)
    for transfer_id, outcome in outcomes.items():
        assert status(transfer_id).status == outcome, transfer_id
    # Voided transfers moved nothing, posted ones moved their amount from X
    # to Y: per currency, the sum of natural balances is what was seeded.
    totals = defaultdict(int)
    for code, currency, balance in Account.objects.values_list("code", "currency",
                                                               "balance_minor"):
        if not code.startswith((CLEARING_PREFIX, HOLD_PREFIX)):
            totals[currency] += balance
    assert dict(totals) == seeded_totals
    holds = dict(Account.objects.filter(code__startswith=HOLD_PREFIX)
                 .values_list("code", "balance_minor"))
    assert all(balance == 0 for balance in holds.values()), holds
    clearing = dict(Account.objects.filter(code__startswith=CLEARING_PREFIX)
                    .values_list("code", "balance_minor"))
    for code, balance in clearing.items():
        _, mine, theirs, currency = code.split("/")
        assert balance + clearing.get(f"clearing/{theirs}/{mine}/{currency}", 0) == 0, code
    assert pending_transfers() == []
    result = verify_chain()
    assert result.ok, result


def test_no_money_is_created_lost_or_left_pending(db):
    """For any transfers and crash points, the resolver leaves every hold at 0,
    every clearing pair cancelling, nothing pending, and each balance as the model says."""
    _open_books()
    seeded = _natural_balances()
    seeded_totals = defaultdict(int)
    for code, currency, balance in Account.objects.values_list("code", "currency",
                                                               "balance_minor"):
        seeded_totals[currency] += balance
    seeded_totals = dict(seeded_totals)

    @settings(max_examples=40, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.lists(moves(), min_size=1, max_size=8))
    def run(drawn):
        savepoint = transaction.savepoint()
        try:
            model = dict(seeded)
            outcomes: dict[str, TransferStatus] = {}
            voids_left: list[tuple[str, int]] = []
            for index, move in enumerate(drawn):
                _run(move, index, model, outcomes, voids_left)
            first = resolve_pending(AFTER_EVERY_EXPIRY)
            assert (first["pending"], first["blocked"]) == (0, 0)
            for x, amount in voids_left:
                model[x] += amount
            events = Event.objects.count()
            assert resolve_pending(AFTER_EVERY_EXPIRY) == {"pending": 0, "posted": 0,
                                                           "voided": 0, "blocked": 0}
            assert Event.objects.count() == events
            _check_settled(model, outcomes, seeded_totals)
        finally:
            transaction.savepoint_rollback(savepoint)

    run()
