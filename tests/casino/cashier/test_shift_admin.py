"""Issue 17 item 2: cashiers open, close and hand over a shift from the admin.

The forms call the same commands as the API (casino.cashier.commands,
through the runner) as the signed-in user: the cage role only (as the
API's writes); a count over or short needs a reason; a short above the
threshold (decision cashier.short.alert_threshold, EUR 50, asked by
002:L1551) raises its alert; a handover goes to another cashier; a resent
form (the same form token) writes once.
"""

from __future__ import annotations

from django.contrib.admin.utils import quote
from django.urls import reverse

from casino.cashier.commands import open_shift
from casino.cashier.forms import EURO_DENOMINATIONS_MINOR
from casino.cashier.models import Shift, ShiftState
from casino.compliance.models import Alert
from casino.roles import Role
from ledger.models import Account, Event
from tests.casino.officers.conftest import signed_in, staff

VENUE = "casino-helsinki"


def _pieces(prefix: str, count: dict[int, int]) -> dict[str, int]:
    return {f"{prefix}_{denomination}": pieces for denomination, pieces in count.items()}


def _balance(code: str) -> int:
    account = Account.objects.filter(code=code).first()
    return account.balance_minor if account else 0


def _open(client, window="w1", **more):
    return client.post(reverse("admin:cashier_shift_open"), {
        "venue": VENUE, "window": window, "cashier": "", "form_token": f"open-{window}",
        **_pieces("bank", {5000: 20, 2000: 25, 1000: 50}), **more})


def test_a_cashier_opens_a_shift_with_a_counted_bank(venues):
    staff("cara", Role.CAGE)
    client = signed_in("cara")
    page = client.get(reverse("admin:cashier_shift_open"))
    assert page.status_code == 200
    assert 'name="bank_50000"' in page.content.decode()
    response = _open(client)
    shift = Shift.objects.get(window="w1")
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:cashier_shift_change",
                                           args=[quote(shift.pk)])
    assert (shift.state, shift.cashier, shift.bank_minor) == (ShiftState.OPEN, "cara",
                                                              2_000_00)
    assert shift.bank == {"5000": 20, "2000": 25, "1000": 50}
    assert _balance(f"cage/{VENUE}/windows/w1") == 2_000_00
    opened = Event.objects.get(type="cashier.shift_opened")
    assert opened.metadata["actor"] == "cara"


def test_a_resent_form_opens_once(venues):
    staff("cara", Role.CAGE)
    client = signed_in("cara")
    _open(client)
    events = Event.objects.count()
    again = _open(client)
    assert again.status_code == 302
    assert Event.objects.count() == events


def test_a_short_close_needs_a_reason_and_raises_the_alert(venues):
    staff("cara", Role.CAGE)
    client = signed_in("cara")
    _open(client)
    shift = Shift.objects.get()
    url = reverse("admin:cashier_shift_close", args=[quote(shift.pk)])
    short = _pieces("count", {5000: 20, 2000: 25, 1000: 44})      # EUR 60 short
    refused = client.post(url, {**short, "reason": "", "form_token": "c-1"}, follow=True)
    assert "cashier.reason_required" in refused.content.decode()
    assert Shift.objects.get().state == ShiftState.OPEN
    closed = client.post(url, {**short, "reason": "Miscounted change", "form_token": "c-2"},
                         follow=True)
    shift = Shift.objects.get()
    assert (shift.state, shift.over_short_minor, shift.reason) == (
        ShiftState.CLOSED, -60_00, "Miscounted change")
    assert "short by EUR 60.00" in closed.content.decode()
    alert = Alert.objects.get(kind="cash_short")
    assert alert.details["short_minor"] == 60_00


def test_a_handover_goes_to_another_cashier(venues):
    staff("cara", Role.CAGE)
    client = signed_in("cara")
    _open(client)
    shift = Shift.objects.get()
    url = reverse("admin:cashier_shift_hand_over", args=[quote(shift.pk)])
    count = {**_pieces("count", {5000: 20, 2000: 25, 1000: 50}),
             **_pieces("bank", {5000: 20, 2000: 25, 1000: 50})}
    to_self = client.post(url, {**count, "to_cashier": "cara", "form_token": "h-1"},
                          follow=True)
    assert "cashier.invalid_request" in to_self.content.decode()
    assert Shift.objects.get().state == ShiftState.OPEN
    response = client.post(url, {**count, "to_cashier": "cecil", "form_token": "h-2"})
    assert response.status_code == 302
    closed, opened = Shift.objects.order_by("opened_position")
    assert (closed.cashier, closed.state, closed.over_short_minor) == (
        "cara", ShiftState.CLOSED, 0)
    assert (opened.cashier, opened.state, opened.bank_minor) == (
        "cecil", ShiftState.OPEN, 2_000_00)
    assert response["Location"] == reverse("admin:cashier_shift_change",
                                           args=[quote(opened.pk)])
    events = Event.objects.count()
    resent = client.post(url, {**count, "to_cashier": "cecil", "form_token": "h-2"})
    assert resent.status_code == 302 and resent["Location"] == response["Location"]
    assert Event.objects.count() == events
    # A new form on the closed shift does not close the incoming cashier's.
    stale = client.post(reverse("admin:cashier_shift_close", args=[quote(closed.pk)]),
                        {**_pieces("count", {5000: 40}), "form_token": "h-3"}, follow=True)
    assert "is closed already" in stale.content.decode()
    assert Shift.objects.get(pk=opened.pk).state == ShiftState.OPEN
    assert Event.objects.count() == events


def test_only_the_cage_role_acts(venues):
    """Officers, accountants and auditors read shifts; they cannot open or close."""
    shift = open_shift(venue=VENUE, window="w1", bank={"5000": 2}, actor="cara")
    staff("olli", Role.COMPLIANCE_OFFICER)
    staff("cara", Role.CAGE)
    officer = signed_in("olli")
    change = reverse("admin:cashier_shift_change", args=[quote(shift.pk)])
    page = officer.get(change).content.decode()
    assert officer.get(change).status_code == 200
    assert "shift-close-link" not in page and "shift-hand-over-link" not in page
    assert "shift-open-link" not in officer.get(
        reverse("admin:cashier_shift_changelist")).content.decode()
    for url in (reverse("admin:cashier_shift_open"),
                reverse("admin:cashier_shift_close", args=[quote(shift.pk)]),
                reverse("admin:cashier_shift_hand_over", args=[quote(shift.pk)])):
        assert officer.get(url).status_code == 403
        assert officer.post(url, {"form_token": "x"}).status_code == 403
    cashier = signed_in("cara")
    page = cashier.get(change).content.decode()
    assert "shift-close-link" in page and "shift-hand-over-link" in page
    assert "shift-open-link" in cashier.get(
        reverse("admin:cashier_shift_changelist")).content.decode()
    assert Shift.objects.get().state == ShiftState.OPEN


def test_the_form_counts_every_euro_note_and_coin():
    assert EURO_DENOMINATIONS_MINOR[0] == 50000 and EURO_DENOMINATIONS_MINOR[-1] == 1
    assert len(EURO_DENOMINATIONS_MINOR) == 15


def test_the_command_refuses_a_handover_to_the_same_cashier(venues):
    """Decision (a handover changes hands), in casino/cashier/commands.py."""
    import pytest

    from casino.cashier.commands import hand_over
    from casino.cashier.errors import CashierError

    open_shift(venue=VENUE, window="w1", bank={"5000": 2}, actor="cara")
    events = Event.objects.count()
    with pytest.raises(CashierError) as refused:
        hand_over(venue=VENUE, window="w1", count={"5000": 2}, bank={"5000": 2},
                  to_cashier=" cara ", actor="cara", idempotency_key="self")
    assert refused.value.code == "cashier.invalid_request"
    assert Event.objects.count() == events
    assert Shift.objects.count() == 1

