"""Cage commands: postings, accounts, the chip float, refusals and retries."""

import datetime as dt

from dataclasses import replace

import pytest
from django.db import connection

from casino.cage import commands
from casino.cage.commands import buy_chips, deposit, redeem_chips, withdraw
from casino.cage.errors import CageError, CageErrorCode
from casino.cage.models import CageDay
from casino.cage.queries import venue_float
from casino.compliance.errors import AttemptRejected, ComplianceError
from casino.players.errors import PlayerError
from casino.rules.errors import RulesError
from ledger import NewEvent, Posting, append, open_account, rebuild_projections
from casino.runner import RunnerError
from ledger.models import Account, Event
from tests.casino.conftest import NOON, make_player

from .conftest import event_count, request_postings

CASINO = "casino-helsinki"
ONLINE = "ray-online"


def _postings(position: int) -> list[tuple[str, int]]:
    # The request's postings in every book (venue books: the cage's on the
    # venue's book, the gaming account's on main), clearing left out; sorted.
    return request_postings(position)


def _balance(code: str) -> int:
    return Account.objects.get(code=code).balance_minor


def test_cash_deposit_debits_cage_cash_and_credits_the_gaming_account(player):
    """A cash deposit: the cage holds the notes, the operator owes the player."""
    result = deposit(player_id=player.id, venue=CASINO, amount_minor=15_000, currency="EUR",
                     method="cash", actor="cashier-1", idempotency_key="dep-1", at=NOON)
    event = Event.objects.get(position=result.position)
    assert event.type == "cage.cash_deposited"
    assert event.stream == f"player/{player.id}"
    assert event.gaming_day == dt.date(2026, 6, 16)
    assert event.metadata == {"actor": "cashier-1", "source": "casino.cage"}
    assert _postings(result.position) == sorted([
        (f"cage/{CASINO}/cash", 15_000),
        (f"player/{player.id}/account", -15_000),
    ])
    assert event.payload["verdict"] == {
        "rulebook": "ray-casino@1",
        "checks_passed": ["compliance.identity_unverified", "compliance.underage",
                          "compliance.self_excluded", "compliance.transfer_blackout",
                          "compliance.account_ceiling", "compliance.game_not_offered",
                          "compliance.max_stake", "compliance.limits_required",
                          "compliance.daily_spend_limit", "compliance.monthly_spend_limit",
                          "compliance.loss_cap", "compliance.max_win"],
    }
    assert event.payload["cash"] == {"player": player.id, "venue": CASINO,
                                     "gaming_day": "2026-06-16", "amount_minor": 15_000,
                                     "direction": "in"}
    assert (result.account_balance_minor, result.cage_cash_minor,
            result.chips_outstanding_minor) == (15_000, 15_000, 0)
    assert result.positions == (result.position,)
    assert result.alerts == ()
    assert result.replayed is False


POSTING_PAIRS = [
    ("deposit_cash_case", deposit, {"method": "cash"},
     "cage/{venue}/cash", "player/{player}/account"),
    ("deposit_bank_case", deposit, {"method": "bank"},
     "bank/{venue}/clearing", "player/{player}/account"),
    ("withdraw_cash_case", withdraw, {"method": "cash"},
     "player/{player}/account", "cage/{venue}/cash"),
    ("withdraw_bank_case", withdraw, {"method": "bank"},
     "player/{player}/account", "bank/{venue}/clearing"),
    ("buy_chips_cash_case", buy_chips, {"paid_with": "cash"},
     "cage/{venue}/cash", "cage/{venue}/chips"),
    ("buy_chips_account_case", buy_chips, {"paid_with": "account"},
     "player/{player}/account", "cage/{venue}/chips"),
    ("redeem_chips_cash_case", redeem_chips, {"paid_to": "cash"},
     "cage/{venue}/chips", "cage/{venue}/cash"),
    ("redeem_chips_account_case", redeem_chips, {"paid_to": "account"},
     "cage/{venue}/chips", "player/{player}/account"),
]


@pytest.mark.parametrize("case, command, method, debit, credit", POSTING_PAIRS,
                         ids=[row[0] for row in POSTING_PAIRS])
def test_each_operation_posts_one_balanced_pair(player, case, command, method, debit, credit):
    """Every cage operation debits one account and credits another by the amount."""
    deposit(player_id=player.id, venue=CASINO, amount_minor=50_000, currency="EUR",
            actor="cashier", at=NOON)
    buy_chips(player_id=player.id, venue=CASINO, amount_minor=20_000, currency="EUR",
              actor="cashier", at=NOON)
    result = command(player_id=player.id, venue=CASINO, amount_minor=1_234, currency="EUR",
                     actor="cashier", at=NOON, **method)
    names = {"venue": CASINO, "player": player.id}
    assert _postings(result.position) == sorted([(debit.format(**names), 1_234),
                                                 (credit.format(**names), -1_234)])


def test_accounts_open_with_their_constraints_on_first_use(player):
    """The cage's accounts and the gaming account open lazily, with their rules.

    The gaming account opened at a land-based cage still carries the online
    ceiling (002:L3070): one account per person with the operator.
    """
    deposit(player_id=player.id, venue=CASINO, amount_minor=10_000, currency="EUR",
            actor="cashier", at=NOON)
    buy_chips(player_id=player.id, venue=CASINO, amount_minor=5_000, currency="EUR",
              actor="cashier", at=NOON)
    deposit(player_id=player.id, venue=CASINO, amount_minor=1_000, currency="EUR",
            method="bank", actor="cashier", at=NOON)
    accounts = {
        a.code: (a.type, a.currency, a.must_not_go_negative, a.balance_max_minor)
        # Clearing accounts are the ledger's, between books (venue books only).
        for a in Account.objects.exclude(code__startswith="clearing/")
    }
    assert accounts == {
        f"cage/{CASINO}/cash": ("asset", "EUR", False, None),
        f"cage/{CASINO}/chips": ("liability", "EUR", True, None),
        f"bank/{CASINO}/clearing": ("asset", "EUR", False, None),
        f"player/{player.id}/account": ("liability", "EUR", True, 500_000),
    }


def test_withdrawal_beyond_the_balance_is_refused_and_writes_nothing(player):
    """No credit: one cent more than the balance is a coded 422, nothing written."""
    deposit(player_id=player.id, venue=CASINO, amount_minor=10_000, currency="EUR",
            actor="cashier", at=NOON)
    before = event_count()
    with pytest.raises(CageError) as refused:
        withdraw(player_id=player.id, venue=CASINO, amount_minor=10_001, currency="EUR",
                 actor="cashier", idempotency_key="wd-1", at=NOON)
    assert refused.value.code == CageErrorCode.INSUFFICIENT_FUNDS
    assert refused.value.status == 422
    assert refused.value.message == ("the gaming account holds EUR 100.00, less than the"
                                     " EUR 100.01 asked; there is no credit (002:L3033)")
    assert refused.value.details == {"account": f"player/{player.id}/account",
                                     "balance_minor": 10_000, "amount_minor": 10_001,
                                     "cite": "002:L3033"}
    assert event_count() == before
    assert _balance(f"player/{player.id}/account") == 10_000


def test_withdrawing_the_whole_balance_leaves_zero(player):
    """The balance may reach zero exactly."""
    deposit(player_id=player.id, venue=CASINO, amount_minor=10_000, currency="EUR",
            actor="cashier", at=NOON)
    result = withdraw(player_id=player.id, venue=CASINO, amount_minor=10_000, currency="EUR",
                      actor="cashier", at=NOON)
    assert result.account_balance_minor == 0
    assert result.cage_cash_minor == 0


def test_a_refused_first_withdrawal_leaves_no_account_opened(player):
    """Accounts open in the transaction of their first posting, or not at all."""
    before = event_count()
    with pytest.raises(CageError) as refused:
        withdraw(player_id=player.id, venue=CASINO, amount_minor=1, currency="EUR",
                 actor="cashier", at=NOON)
    assert refused.value.code == CageErrorCode.INSUFFICIENT_FUNDS
    assert event_count() == before
    assert not Account.objects.exists()


def test_chips_bought_from_the_account_beyond_its_balance_are_refused(player):
    """Chips are never sold on credit (002:L1541)."""
    deposit(player_id=player.id, venue=CASINO, amount_minor=2_000, currency="EUR",
            actor="cashier", at=NOON)
    before = event_count()
    with pytest.raises(CageError) as refused:
        buy_chips(player_id=player.id, venue=CASINO, amount_minor=2_001, currency="EUR",
                  paid_with="account", actor="cashier", at=NOON)
    assert refused.value.code == CageErrorCode.INSUFFICIENT_FUNDS
    assert event_count() == before
    assert venue_float(CASINO).chips_outstanding_minor == 0


def test_redeeming_more_chips_than_outstanding_is_refused(player):
    """The chip float never goes negative: the cage cannot take back chips it never sold."""
    buy_chips(player_id=player.id, venue=CASINO, amount_minor=5_000, currency="EUR",
              actor="cashier", at=NOON)
    before = event_count()
    with pytest.raises(CageError) as refused:
        redeem_chips(player_id=player.id, venue=CASINO, amount_minor=5_001, currency="EUR",
                     actor="cashier", at=NOON)
    assert refused.value.code == CageErrorCode.CHIPS_NOT_OUTSTANDING
    assert refused.value.message == ("the cage at casino-helsinki has EUR 50.00 of chips"
                                     " outstanding, less than the EUR 50.01 to redeem")
    assert event_count() == before


def test_chip_float_follows_purchases_and_redemptions(player):
    """Chips outstanding = sold - redeemed, whatever paid for them."""
    other = make_player()
    deposit(player_id=player.id, venue=CASINO, amount_minor=30_000, currency="EUR",
            actor="cashier", at=NOON)
    steps = [
        (buy_chips, player.id, 50_000, {"paid_with": "cash"}, 50_000),
        (buy_chips, other.id, 20_000, {"paid_with": "cash"}, 70_000),
        (buy_chips, player.id, 30_000, {"paid_with": "account"}, 100_000),
        (redeem_chips, other.id, 25_000, {"paid_to": "cash"}, 75_000),
        (redeem_chips, player.id, 10_000, {"paid_to": "account"}, 65_000),
    ]
    for command, player_id, amount, method, float_after in steps:
        result = command(player_id=player_id, venue=CASINO, amount_minor=amount,
                         currency="EUR", actor="cashier", at=NOON, **method)
        assert result.chips_outstanding_minor == float_after
    assert venue_float(CASINO).chips_outstanding_minor == 65_000
    assert venue_float(CASINO).cage_cash_minor == 30_000 + 50_000 + 20_000 - 25_000
    assert _balance(f"player/{player.id}/account") == 30_000 - 30_000 + 10_000


def test_the_cage_reconciles_and_every_cage_posting_balances(player):
    """Cash in the cage = deposits - withdrawals + chips sold - chips redeemed, in cash.

    Checked against the ledger's balance and against the CageDay projection
    (two paths), over two gaming days.
    """
    other = make_player()
    day_two = NOON + dt.timedelta(days=1)
    script = [
        (deposit, player.id, 40_000, {"method": "cash"}, NOON),
        (deposit, other.id, 25_000, {"method": "bank"}, NOON),
        (buy_chips, player.id, 15_000, {"paid_with": "cash"}, NOON),
        (buy_chips, other.id, 10_000, {"paid_with": "account"}, NOON),
        (redeem_chips, other.id, 12_000, {"paid_to": "cash"}, NOON),
        (withdraw, player.id, 9_000, {"method": "cash"}, day_two),
        (redeem_chips, player.id, 8_000, {"paid_to": "account"}, day_two),
        (withdraw, other.id, 5_000, {"method": "bank"}, day_two),
    ]
    for command, player_id, amount, method, at in script:
        command(player_id=player_id, venue=CASINO, amount_minor=amount, currency="EUR",
                actor="cashier", at=at, **method)
    cash = 40_000 - 9_000 + 15_000 - 12_000
    chips = 15_000 + 10_000 - 12_000 - 8_000
    assert venue_float(CASINO).cage_cash_minor == cash
    assert venue_float(CASINO).chips_outstanding_minor == chips
    days = list(CageDay.objects.filter(venue=CASINO))
    assert [(d.gaming_day, d.transactions) for d in days] == [
        (dt.date(2026, 6, 16), 5), (dt.date(2026, 6, 17), 3)]
    assert sum(d.cash_net_minor for d in days) == cash
    assert sum(d.chips_net_minor for d in days) == chips
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT e.position, p.currency, SUM(p.amount_minor) FROM ledger_posting p"
            " JOIN ledger_event e ON e.position = p.event_id"
            " WHERE e.type LIKE 'cage.%%' OR e.type = 'ledger.crossbook_leg'"
            " GROUP BY e.position, p.currency")
        sums = cursor.fetchall()
    # Every event balances in its own book (a cage event and each of its legs).
    assert {total for _, _, total in sums} == {0}
    # And each request, its legs in other books included, is one balanced pair
    # moving the amount (clearing between books left out).
    cage_events = list(Event.objects.filter(type__startswith="cage.").order_by("position"))
    assert len(cage_events) == len(script)
    for event, (_, _, amount, _, _) in zip(cage_events, script):
        assert sorted(moved for _, moved in _postings(event.position)) == [-amount, amount]


def test_rebuild_reproduces_the_cage_days_exactly(player):
    """CageDay is a function of the log (L9)."""
    deposit(player_id=player.id, venue=CASINO, amount_minor=9_000, currency="EUR",
            actor="cashier", at=NOON)
    buy_chips(player_id=player.id, venue=CASINO, amount_minor=4_000, currency="EUR",
              paid_with="account", actor="cashier", at=NOON)
    redeem_chips(player_id=player.id, venue=CASINO, amount_minor=1_000, currency="EUR",
                 actor="cashier", at=NOON + dt.timedelta(days=1))
    live = list(CageDay.objects.values())
    assert len(live) == 2
    rebuild_projections()
    assert list(CageDay.objects.values()) == live


def test_cage_events_of_the_pre_cage_shape_belong_to_no_cage_day(player):
    """Schema 1 (the demo's {player, amount_minor}) stays in the log, unprojected."""
    open_account(code="cage/demo/cash", type="asset", currency="EUR")
    open_account(code="player/demo", type="liability", currency="EUR")
    append([NewEvent(stream="player/demo", type="cage.cash_deposited",
                     payload={"player": "player/demo", "amount_minor": 5_000},
                     postings=(Posting("cage/demo/cash", 5_000, "EUR"),
                               Posting("player/demo", -5_000, "EUR")),
                     gaming_day=NOON.date())])
    deposit(player_id=player.id, venue=CASINO, amount_minor=1_000, currency="EUR",
            actor="cashier", at=NOON)
    live = list(CageDay.objects.values("key", "deposits_cash_minor", "transactions"))
    assert live == [{"key": f"{CASINO}/2026-06-16", "deposits_cash_minor": 1_000,
                     "transactions": 1}]
    rebuild_projections()
    assert list(CageDay.objects.values("key", "deposits_cash_minor", "transactions")) == live


def test_a_retry_under_the_same_key_returns_the_first_result(player):
    """Same key and request: the original result, marked replayed, one event."""
    first = deposit(player_id=player.id, venue=CASINO, amount_minor=7_500, currency="EUR",
                    actor="cashier", idempotency_key="dep-7", at=NOON)
    buy_chips(player_id=player.id, venue=CASINO, amount_minor=2_500, currency="EUR",
              paid_with="account", actor="cashier", at=NOON)
    before = event_count()
    again = deposit(player_id=player.id, venue=CASINO, amount_minor=7_500, currency="EUR",
                    actor="cashier", idempotency_key="dep-7", at=NOON + dt.timedelta(hours=1))
    assert event_count() == before
    assert Event.objects.filter(idempotency_key="dep-7").count() == 1
    assert again.replayed is True
    # The balances are those the first request left, not today's.
    assert again == commands.CageResult(**{**_fields(first), "replayed": True})
    assert again.account_balance_minor == 7_500


def _fields(result) -> dict:
    return {name: getattr(result, name) for name in result.__dataclass_fields__}


def test_a_key_reused_for_another_request_is_refused(player):
    """A different amount under a recorded key is a conflict, not a replay."""
    deposit(player_id=player.id, venue=CASINO, amount_minor=7_500, currency="EUR",
            actor="cashier", idempotency_key="dep-8", at=NOON)
    before = event_count()
    with pytest.raises(RunnerError) as reused:
        deposit(player_id=player.id, venue=CASINO, amount_minor=7_600, currency="EUR",
                actor="cashier", idempotency_key="dep-8", at=NOON)
    assert reused.value.code == "request.idempotency_key_reused" and reused.value.status == 409
    with pytest.raises(RunnerError, match="already used for a different request"):
        withdraw(player_id=player.id, venue=CASINO, amount_minor=7_500, currency="EUR",
                 actor="cashier", idempotency_key="dep-8", at=NOON)
    assert event_count() == before


def test_a_refusal_writes_only_its_rejection_event(venues):
    """A rule refusal records what was tried and nothing else: no account opens."""
    unverified = make_player(verified=False)
    before = event_count()
    with pytest.raises(AttemptRejected) as refused:
        buy_chips(player_id=unverified.id, venue=CASINO, amount_minor=10_000, currency="EUR",
                  actor="cashier", idempotency_key="buy-1", at=NOON)
    assert refused.value.details["rule"] == "compliance.identity_unverified"
    assert event_count() == before + 1
    rejection = Event.objects.get(position=refused.value.details["rejection_position"])
    assert rejection.type == "compliance.attempt_rejected"
    assert rejection.payload["attempt"]["kind"] == "chip_purchase"
    assert not Account.objects.exists()


def test_a_refused_request_retried_gets_the_same_refusal_and_one_record(venues):
    """The recorded refusal is raised again, even after the player is verified."""
    from casino.players.commands import verify_identity

    unverified = make_player(verified=False)
    with pytest.raises(AttemptRejected) as first:
        deposit(player_id=unverified.id, venue=CASINO, amount_minor=10_000, currency="EUR",
                actor="cashier", idempotency_key="dep-9", at=NOON)
    verify_identity(player_id=unverified.id, method="passport", actor="officer", at=NOON)
    before = event_count()
    with pytest.raises(AttemptRejected) as again:
        deposit(player_id=unverified.id, venue=CASINO, amount_minor=10_000, currency="EUR",
                actor="cashier", idempotency_key="dep-9", at=NOON)
    assert again.value.details == first.value.details
    assert event_count() == before
    assert Event.objects.filter(type="compliance.attempt_rejected").count() == 1


@pytest.mark.parametrize(
    "command, arguments, code, status",
    [
        (deposit, {"venue": CASINO, "method": "card"}, CageErrorCode.INVALID_REQUEST, 400),
        (buy_chips, {"venue": CASINO, "paid_with": "bank"}, CageErrorCode.INVALID_REQUEST, 400),
        (deposit, {"venue": ONLINE, "method": "cash"}, CageErrorCode.METHOD_NOT_OFFERED, 422),
        (buy_chips, {"venue": ONLINE, "paid_with": "account"},
         CageErrorCode.METHOD_NOT_OFFERED, 422),
        (redeem_chips, {"venue": ONLINE, "paid_to": "account"},
         CageErrorCode.METHOD_NOT_OFFERED, 422),
    ],
    ids=["unknown_method", "chips_by_bank", "cash_online", "chips_online", "redeem_online"],
)
def test_a_method_the_venue_cannot_take_is_refused_before_the_checks(
        player, command, arguments, code, status):
    """Bad methods, and cash or chips at an online venue, write nothing at all."""
    before = event_count()
    with pytest.raises(CageError) as refused:
        command(player_id=player.id, amount_minor=1_000, currency="EUR", actor="cashier",
                at=NOON, **arguments)
    assert (refused.value.code, refused.value.status) == (code, status)
    assert event_count() == before


@pytest.mark.parametrize(
    "arguments, code, status",
    [
        ({"venue": "atlantis"}, "rules.unknown_venue", 404),
        ({"player_id": "nobody"}, "players.unknown_player", 404),
        ({"currency": "USD"}, "compliance.invalid_attempt", 400),
        ({"amount_minor": 0}, "compliance.invalid_attempt", 400),
        ({"amount_minor": -100}, "compliance.invalid_attempt", 400),
    ],
    ids=["rules.unknown_venue", "players.unknown_player", "wrong_currency", "zero", "negative"],
)
def test_bad_input_is_refused_and_writes_nothing(player, arguments, code, status):
    """Unknown venue or player, wrong currency, non-positive amounts: a 4xx, no event."""
    request = {"player_id": player.id, "venue": CASINO, "amount_minor": 1_000,
               "currency": "EUR", **arguments}
    before = event_count()
    with pytest.raises((RulesError, PlayerError, ComplianceError)) as refused:
        deposit(actor="cashier", at=NOON, **request)
    assert (refused.value.code, refused.value.status) == (code, status)
    assert event_count() == before


def test_a_concurrent_change_to_the_player_is_retried(player, monkeypatch):
    """A stale stream version is read again and the request goes through once."""
    real, reads = commands.load_context, []

    def stale_once(attempt):
        context = real(attempt)
        reads.append(context.player_version)
        return replace(context, player_version=0) if len(reads) == 1 else context

    monkeypatch.setattr(commands, "load_context", stale_once)
    result = deposit(player_id=player.id, venue=CASINO, amount_minor=1_000, currency="EUR",
                     actor="cashier", at=NOON)
    assert len(reads) == 2 and reads[0] == reads[1] > 0
    assert result.account_balance_minor == 1_000
    assert Event.objects.filter(type="cage.cash_deposited").count() == 1


def test_a_player_changing_on_every_attempt_gives_a_conflict(player, monkeypatch):
    """After ATTEMPTS_MAX stale reads the request is refused with 409, nothing written."""
    real = commands.load_context
    monkeypatch.setattr(commands, "load_context",
                        lambda attempt: replace(real(attempt), player_version=0))
    before = event_count()
    with pytest.raises(RunnerError) as refused:
        deposit(player_id=player.id, venue=CASINO, amount_minor=1_000, currency="EUR",
                actor="cashier", at=NOON)
    assert (refused.value.code, refused.value.status) == ("request.concurrent_update", 409)
    assert event_count() == before
