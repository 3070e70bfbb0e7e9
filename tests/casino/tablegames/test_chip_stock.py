"""Issue 17 (chips by denomination in the chip float): the cage's chips are
tracked by denomination at the chip bank, each table's tray and with the
players; the chip bank is counted by denomination, signed by two, against
the expected stock, and any denomination off needs a reason and posts its
value to the cage's over/short (decisions tablegames.chips_unissued and
"a chip bank count" in casino/tablegames/commands.py).
"""

from __future__ import annotations

import pytest

from casino.tablegames.commands import (
    close_table,
    count_chip_bank,
    credit,
    fill,
    open_table,
    receive_chips,
)
from casino.tablegames.errors import TableGamesError
from casino.tablegames.models import ChipBankCount, ChipReceipt, ChipStock
from casino.tablegames.projections import stock_of
from ledger.models import Account, Event

VENUE = "casino-helsinki"
DELIVERY = {"10000": 100, "2500": 200, "500": 400}        # 10,000 + 5,000 + 2,000


def balance(code: str) -> int:
    account = Account.objects.filter(code=code).first()
    return account.balance_minor if account else 0


def _stock(place: str) -> dict[int, int]:
    return stock_of(VENUE, place)


def _cage_value() -> int:
    """Chips received, plus the chip bank's balance (the net issued, negative,
    and any count's difference)."""
    received = sum(r.amount_minor for r in ChipReceipt.objects.filter(venue=VENUE))
    return received + balance(f"cage/{VENUE}/chip_bank")


def _session():
    receive_chips(venue=VENUE, chips=DELIVERY, signed_by=["cage-carl", "vera"],
                  actor="cage-carl", note="from the manufacturer", idempotency_key="rc")
    open_table(venue=VENUE, table="bj-1", inventory={"10000": 20, "2500": 40, "500": 100},
               signed_by=["dora", "pit-pia"], actor="dora", idempotency_key="open")
    fill(venue=VENUE, table="bj-1", chips={"10000": 10}, signed_by=["cage-carl", "dora"],
         actor="cage-carl", idempotency_key="fill")
    credit(venue=VENUE, table="bj-1", chips={"2500": 20}, signed_by=["cage-carl", "dora"],
           actor="dora", idempotency_key="credit")


def test_a_receipt_posts_nothing_and_stocks_the_chip_bank(venues):
    receive_chips(venue=VENUE, chips=DELIVERY, signed_by=["cage-carl", "vera"],
                  actor="cage-carl", idempotency_key="rc")
    event = Event.objects.get(type="tablegames.chips_received")
    assert event.postings.count() == 0
    assert event.payload["amount_minor"] == 17_000_00
    assert _stock("chip_bank") == {10000: 100, 2500: 200, 500: 400}
    assert ChipReceipt.objects.get().second_signature == "vera"


def test_fills_credits_and_inventories_move_chips_by_denomination(venues):
    """Open takes 20 x 100, 40 x 25, 100 x 5 from the cage; a fill 10 x 100;
    a credit returns 20 x 25; the close counts 15 x 100 and 20 x 25: the
    chips missing from the tray (15 x 100, 100 x 5) went to the players."""
    _session()
    assert _stock("chip_bank") == {10000: 70, 2500: 180, 500: 300}
    assert _stock("tray:bj-1") == {10000: 30, 2500: 20, 500: 100}
    close_table(venue=VENUE, table="bj-1", inventory={"10000": 15, "2500": 20},
                signed_by=["dora", "pit-pia"], actor="dora", idempotency_key="close")
    assert _stock("tray:bj-1") == {10000: 15, 2500: 20}
    assert _stock("players") == {10000: 15, 500: 100}
    # Reconciled to the ledger, place by place: each tray's pieces are its
    # account's balance, and the cage's chips are the chips received plus
    # the chip bank's balance.
    for place, account in (("tray:bj-1", f"cage/{VENUE}/trays/bj-1"),):
        assert sum(d * n for d, n in _stock(place).items()) == balance(account)
    assert sum(d * n for d, n in _stock("chip_bank").items()) == _cage_value()


def test_a_count_as_expected_needs_no_reason_and_posts_nothing(venues):
    _session()
    result = count_chip_bank(venue=VENUE, count={"10000": 70, "2500": 180, "500": 300},
                             signed_by=["cage-carl", "vera"], actor="vera",
                             idempotency_key="count")
    assert (result["over_short_minor"], result["differences"]) == (0, {})
    assert result["expected_minor"] == result["counted_minor"] == 7_000_00 + 4_500_00 + 1_500_00
    assert Event.objects.get(type="tablegames.chip_bank_counted").postings.count() == 0


def test_a_denomination_off_needs_a_reason_and_posts_the_short(venues):
    _session()
    short = {"10000": 69, "2500": 180, "500": 300}
    events = Event.objects.count()
    with pytest.raises(TableGamesError) as refused:
        count_chip_bank(venue=VENUE, count=short, signed_by=["cage-carl", "vera"],
                        actor="vera")
    assert refused.value.code == "tablegames.invalid_request"
    assert Event.objects.count() == events
    result = count_chip_bank(venue=VENUE, count=short, signed_by=["cage-carl", "vera"],
                             actor="vera", reason="one EUR 100 chip missing",
                             idempotency_key="count")
    assert (result["over_short_minor"], result["differences"]) == (-100_00, {"10000": -1})
    assert balance(f"cage/{VENUE}/over_short") == 100_00
    assert _stock("chip_bank") == {10000: 69, 2500: 180, 500: 300}
    assert sum(d * n for d, n in _stock("chip_bank").items()) == (
        17_000_00 + balance(f"cage/{VENUE}/chip_bank"))
    count = ChipBankCount.objects.get()
    assert (count.reason, count.first_signature, count.count_differences) == (
        "one EUR 100 chip missing", "cage-carl", {"10000": -1})


def test_a_swap_of_denominations_needs_a_reason_though_the_value_holds(venues):
    """Four 25s where one 100 should be: equal value, still off by denomination."""
    _session()
    swapped = {"10000": 69, "2500": 184, "500": 300}
    with pytest.raises(TableGamesError):
        count_chip_bank(venue=VENUE, count=swapped, signed_by=["cage-carl", "vera"],
                        actor="vera")
    result = count_chip_bank(venue=VENUE, count=swapped, signed_by=["cage-carl", "vera"],
                             actor="vera", reason="a 100 changed at the window",
                             idempotency_key="swap")
    assert result["over_short_minor"] == 0
    assert result["differences"] == {"10000": -1, "2500": 4}


def test_a_count_and_a_receipt_are_signed_by_two(venues):
    for command, arguments in ((receive_chips, {"chips": DELIVERY}),
                               (count_chip_bank, {"count": {}})):
        with pytest.raises(TableGamesError) as refused:
            command(venue=VENUE, signed_by=["vera", "vera"], actor="vera", **arguments)
        assert refused.value.code == "tablegames.signatures_required"


def test_the_stock_rebuilds_from_the_log(venues):
    from ledger import rebuild_projections

    _session()
    count_chip_bank(venue=VENUE, count={"10000": 69, "2500": 180, "500": 300},
                    signed_by=["cage-carl", "vera"], actor="vera", reason="one chip gone")
    before = sorted(ChipStock.objects.values_list("key", "pieces"))
    rebuild_projections()
    assert sorted(ChipStock.objects.values_list("key", "pieces")) == before
    assert ChipBankCount.objects.count() == 1 and ChipReceipt.objects.count() == 1


def test_the_chip_pages_read_in_euros(venues):
    from django.contrib.admin.utils import quote
    from django.urls import reverse

    from casino.roles import Role
    from tests.casino.officers.conftest import signed_in, staff
    from tests.casino.officers.test_readable_admin import JSON_OBJECT, MINOR, visible_text

    _session()
    count_chip_bank(venue=VENUE, count={"10000": 69, "2500": 180, "500": 300},
                    signed_by=["cage-carl", "vera"], actor="vera", reason="one chip gone")
    staff("anna", Role.ACCOUNTANT)
    client = signed_in("anna")
    pages = []
    for model, obj in (("chipstock", ChipStock.objects.get(key=f"{VENUE}/chip_bank/10000")),
                       ("chipbankcount", ChipBankCount.objects.get()),
                       ("chipreceipt", ChipReceipt.objects.get())):
        for url in (reverse(f"admin:tablegames_{model}_changelist"),
                    reverse(f"admin:tablegames_{model}_change", args=[quote(obj.pk)])):
            response = client.get(url)
            assert response.status_code == 200, url
            text = visible_text(response.content.decode())
            assert not MINOR.search(text) and not JSON_OBJECT.search(text), url
            pages.append(text)
    assert "EUR 100.00" in pages[0] and "69" in pages[0]
    assert "-1 pieces, EUR -100.00" in pages[3]


def test_the_cage_receives_and_counts_chips_from_the_admin(venues):
    """The forms call the same commands as the signed-in cashier, who signs first;
    an officer reads the pages but has no forms."""
    from django.urls import reverse

    from casino.roles import Role
    from tests.casino.officers.conftest import signed_in, staff

    staff("vera", Role.CAGE)
    staff("olli", Role.COMPLIANCE_OFFICER)
    cage = signed_in("vera")
    receive = reverse("admin:tablegames_chipreceipt_receive")
    assert 'name="chips_10000"' in cage.get(receive).content.decode()
    done = cage.post(receive, {"venue": VENUE, "second_signer": "carl", "note": "delivery",
                               "chips_10000": 100, "chips_2500": 200, "form_token": "r1"},
                     follow=True)
    assert "EUR 15,000.00 received" in done.content.decode()
    receipt = ChipReceipt.objects.get()
    assert (receipt.first_signature, receipt.second_signature) == ("vera", "carl")
    count = reverse("admin:tablegames_chipbankcount_count")
    short = {"venue": VENUE, "second_signer": "carl", "chips_10000": 99, "chips_2500": 200}
    refused = cage.post(count, {**short, "form_token": "c1"}, follow=True)
    assert "tablegames.invalid_request" in refused.content.decode()
    assert ChipBankCount.objects.count() == 0
    counted = cage.post(count, {**short, "reason": "one chip missing", "form_token": "c2"},
                        follow=True)
    assert "short by EUR 100.00" in counted.content.decode()
    again = cage.post(count, {**short, "reason": "one chip missing", "form_token": "c2"})
    assert again.status_code == 302 and ChipBankCount.objects.count() == 1
    assert balance(f"cage/{VENUE}/over_short") == 100_00
    officer = signed_in("olli")
    assert officer.get(receive).status_code == 403
    assert officer.post(count, {**short, "form_token": "x"}).status_code == 403
    page = officer.get(reverse("admin:tablegames_chipbankcount_changelist")).content.decode()
    assert "chips-action-link" not in page and "one chip missing" in page
