"""Fixtures for the jackpot tests: pools and contributions on given gaming days.

Contributions are real ledger events posting to the pool's pending account,
as poker's hand_settled does (a drop of EUR 1 from the table); here they
come from a test drop account so that a test can place them on any gaming
day, e.g. both sides of a DST change, without playing hands.
"""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
from django.db import transaction

from casino.books import venue_book
from casino.jackpots import commands
from casino.jackpots.accounts import BAD_BEAT, pending_account
from casino.jackpots.commands import ensure_pool
from casino.poker import commands as poker
from ledger import NewEvent, Posting, open_account
from ledger.crossbook import append_across
from ledger.models import Account
from tests.casino.poker.conftest import check_down, open_helsinki_table, seat_players
from tests.casino.poker.conftest import key as poker_key

_keys = itertools.count(1)


def key(prefix: str = "k") -> str:
    return f"{prefix}-{next(_keys)}"


def drops_account(venue: str) -> str:
    return f"test/{venue}/drops"


def contribute(venue: str, gaming_day: dt.date, amounts: list[int] | int = 100, *,
               kind: str = BAD_BEAT, at: dt.datetime | None = None) -> list[int]:
    """Append one contribution event per amount on `gaming_day`; return positions."""
    source = drops_account(venue)
    # On the venue's book, where its commands put its jackpot accounts
    # (casino.books: the main book unless venues have books of their own).
    book = venue_book(venue)
    if not Account.objects.filter(code=source).exists():
        open_account(code=source, type="asset", currency="EUR", name="test drops", book=book)
    if not Account.objects.filter(code=pending_account(venue, kind)).exists():
        open_account(code=pending_account(venue, kind), type="liability", currency="EUR",
                     must_not_go_negative=True, name="pending", book=book)
    amounts = [amounts] if isinstance(amounts, int) else amounts
    events = [NewEvent(stream=f"test/hand/{venue}/{next(_keys)}", type="test.hand_settled",
                       payload={"drop_minor": amount},
                       postings=(Posting(source, amount, "EUR"),
                                 Posting(pending_account(venue, kind), -amount, "EUR")),
                       gaming_day=gaming_day, occurred_at=at)
              for amount in amounts]
    # Across books, as the runner appends: with venue books (issue 19) the pool's
    # pending account may already be open on another book than the venue's (a games
    # settlement, whose home book is main, opens it there), and the drop then
    # reaches it by a companion leg.
    written = append_across(events, home_book=book).events
    return [e.position for e in written if e.type == "test.hand_settled"]


def balance(code: str) -> int:
    account = Account.objects.filter(code=code).first()
    return account.balance_minor if account else 0


def pool_at(venue: str, first_day: dt.date, zone: str = "Europe/Helsinki"):
    """Open a venue's pool whose first gaming day is `first_day` (noon that day)."""
    from zoneinfo import ZoneInfo

    return ensure_pool(venue=venue, at=dt.datetime.combine(
        first_day, dt.time(12), tzinfo=ZoneInfo(zone)))


BOARD = "As Ks Kd 7c 2h"
CARDS = {1: "Ah Ad", 2: "Kc Kh", 3: "2c 3d", 4: "4h 5h", 5: "6d 8s", 6: "9h Tc"}


class _Rollback(Exception):
    pass


def settle_showdown(hand_id: str, board: str, hands: dict[int, str]):
    """Show down with the verified awards as the claim, so the hand settles.

    The awards come from a probe showdown rolled back in a savepoint (the
    pots net of rake and drop are poker's to compute).
    """
    awards = {}
    try:
        with transaction.atomic():
            probe = poker.showdown(hand_id=hand_id, board=board, hands=hands,
                                   claimed_awards={}, actor="dealer", idempotency_key=poker_key())
            awards = dict(probe.awards_verified)
            raise _Rollback
    except _Rollback:
        pass
    return poker.showdown(hand_id=hand_id, board=board, hands=hands, claimed_awards=awards,
                          actor="dealer", idempotency_key=poker_key("showdown"))


def play_hand(table_id: str, board: str = BOARD, cards: dict[int, str] = CARDS):
    hand = poker.start_hand(table_id=table_id, button=6, actor="dealer",
                            idempotency_key=poker_key())
    ctx = check_down(hand.hand_id)
    hands = {seat: cards[seat] for seat in ctx.state.live_seats}
    return hand.hand_id, settle_showdown(hand.hand_id, board, hands)


@pytest.fixture
def table(venues):
    """A six-handed jackpot table and a pool holding EUR 2,000.00 posted."""
    pool_at("poker-helsinki", dt.date(2026, 6, 15))
    contribute("poker-helsinki", dt.date(2026, 6, 15), [100_000, 100_000])
    commands.rollup_closed_days(venue="poker-helsinki")
    opened = open_helsinki_table()
    seat_players(opened.table_id, {seat: 20_000 for seat in range(1, 7)})
    return opened.table_id


