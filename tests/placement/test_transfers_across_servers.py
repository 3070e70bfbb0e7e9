"""Money between books on different PostgreSQL servers (issue 19, points 2 and 4).

No transaction spans two servers, so `transfer` takes the two-phase path
by itself when the directory places the books apart: pending in the source
book's server, received or refused in the target's, posted or voided back
in the source's. The servers are this folder's (conftest.py): `online`
lives in `default`, `tallinn` in `server2`.
"""

from __future__ import annotations

import datetime as dt

import pytest
from ledger import open_account, verify_chain
from ledger.books import open_book
from ledger.models import Account, Event
from ledger.transfers import (TRANSFER_PENDING, TRANSFER_POSTED, TRANSFER_RECEIVED,
                              TRANSFER_REFUSED, TRANSFER_VOIDED, TransferStatus,
                              clearing_account, hold_account, pending_transfers, receive,
                              resolve_pending, status, transfer, transfer_two_phase)
from tests.ledger.factories import GAMING_DAY, transfer_event

from .conftest import THREE_SERVERS

pytestmark = THREE_SERVERS

T0 = dt.datetime(2026, 6, 16, 12, 0, tzinfo=dt.timezone.utc)
PLAYER_ONLINE, PLAYER_TALLINN = "online/player", "tallinn/player"


@pytest.fixture
def apart(three_servers):
    """`online` in default with a player holding 20,000; `tallinn` in server2."""
    from ledger import append

    open_book("online", "default")
    open_book("tallinn", "server2")
    for key in ("online", "tallinn"):
        open_account(code=f"{key}/cash", type="asset", currency="EUR", book=key)
        open_account(code=f"{key}/player", type="liability", currency="EUR",
                     must_not_go_negative=True, balance_max_minor=50_000, book=key)
    append([transfer_event(PLAYER_ONLINE, "online/cash", 20_000)], book="online")


def _balance(code: str, alias: str) -> int | None:
    return (Account.objects.using(alias).filter(code=code)
            .values_list("balance_minor", flat=True).first())


def _types(stream: str, alias: str) -> list[str]:
    return list(Event.objects.using(alias).filter(stream=stream).order_by("version")
                .values_list("type", flat=True))


def _move(transfer_id: str, amount_minor: int = 3_000) -> dict:
    return dict(transfer_id=transfer_id, source_book="online", source_account=PLAYER_ONLINE,
                target_book="tallinn", target_account=PLAYER_TALLINN,
                amount_minor=amount_minor, currency="EUR", gaming_day=GAMING_DAY)


def _crash_at(point: str):
    def hook(reached: str) -> None:
        if reached == point:
            raise RuntimeError(f"crash after {point}")
    return hook


def test_books_on_two_servers_move_money_in_two_phases(apart):
    """transfer() sees the books apart and goes pending -> received -> posted, each
    event in its own book's server; the clearing pair across servers sums to zero."""
    result = transfer(**_move("x-1"), now=T0)
    assert result.status == TransferStatus.POSTED
    assert _types("transfer/x-1/out", "default") == [TRANSFER_PENDING, TRANSFER_POSTED]
    assert _types("transfer/x-1/in", "server2") == [TRANSFER_RECEIVED]
    assert _types("transfer/x-1/in", "default") == []
    assert (_balance(PLAYER_ONLINE, "default"), _balance(PLAYER_TALLINN, "server2")) == (
        17_000, 3_000)
    assert _balance(hold_account("online", "tallinn", "EUR"), "default") == 0
    assert (_balance(clearing_account("online", "tallinn", "EUR"), "default")
            + _balance(clearing_account("tallinn", "online", "EUR"), "server2")) == 0
    assert verify_chain(using="default").ok
    assert verify_chain(using="server2").ok


def test_a_crash_between_servers_is_finished_by_the_sweep(apart):
    """One transfer stops after its hold (and the target receives it late, still
    within the hold), one after the target's decision: the sweep posts both."""
    with pytest.raises(RuntimeError):
        transfer_two_phase(**_move("x-held"), now=T0, timeout_seconds=60,
                           hook=_crash_at("pending"))
    transfer_two_phase(**_move("x-received", 2_000), now=T0, timeout_seconds=60)
    with pytest.raises(RuntimeError):
        transfer_two_phase(**_move("x-decided", 1_000), now=T0, timeout_seconds=60,
                           hook=_crash_at("decided"))
    assert [t for _, t in pending_transfers(using="default")] == ["x-held", "x-decided"]
    assert receive("x-held", now=T0 - dt.timedelta(seconds=1)).status == (
        TransferStatus.PENDING)  # the target received it after all
    counts = resolve_pending(T0 + dt.timedelta(hours=1))
    assert counts == {"pending": 0, "posted": 2, "voided": 0, "blocked": 0}
    assert resolve_pending(T0 + dt.timedelta(hours=1)) == {"pending": 0, "posted": 0,
                                                           "voided": 0, "blocked": 0}
    assert (_balance(PLAYER_ONLINE, "default"), _balance(PLAYER_TALLINN, "server2")) == (
        14_000, 6_000)
    assert {t: status(t).status for t in ("x-held", "x-received", "x-decided")} == dict.fromkeys(
        ("x-held", "x-received", "x-decided"), TransferStatus.POSTED)
    assert verify_chain(using="default").ok and verify_chain(using="server2").ok


def test_an_expired_hold_across_servers_is_refused_there_and_voided_here(apart):
    """Nothing reached tallinn before the expiry: the sweep records the refusal in
    server2, then voids in default; the player has every cent back."""
    with pytest.raises(RuntimeError):
        transfer_two_phase(**_move("x-late"), now=T0, timeout_seconds=60,
                           hook=_crash_at("pending"))
    assert _balance(PLAYER_ONLINE, "default") == 17_000
    assert resolve_pending(T0 + dt.timedelta(seconds=59))["pending"] == 1
    assert resolve_pending(T0 + dt.timedelta(seconds=60)) == {"pending": 0, "posted": 0,
                                                              "voided": 1, "blocked": 0}
    assert _types("transfer/x-late/in", "server2") == [TRANSFER_REFUSED]
    assert _types("transfer/x-late/out", "default") == [TRANSFER_PENDING, TRANSFER_VOIDED]
    assert _balance(PLAYER_ONLINE, "default") == 20_000
    assert _balance(PLAYER_TALLINN, "server2") == 0
