"""Machines: placement, round caps, credit and vouchers, by their seed lines."""

from __future__ import annotations

import datetime as dt

import pytest

from casino.compliance.pipeline import venue_day  # noqa: F401
from casino.machines import commands
from casino.machines.errors import MachinesError, PlacementRejected, RoundRejected
from casino.machines.events import (
    PLACEMENT_REJECTED,
    ROUND_REJECTED,
    coin_in_account,
    coin_out_account,
    credit_account,
    voucher_account,
)
from casino.machines.models import Machine, Voucher
from casino.players.commands import self_exclude
from ledger.models import Event
from tests.casino.conftest import NOON, make_player

from .conftest import CASINO, HALL, ONLINE, PARTNER, balance, key, machine, slot_round

pytestmark = pytest.mark.django_db


def _events() -> int:
    return Event.objects.count()


# Placement: 002:L1401 -------------------------------------------------------

@pytest.mark.parametrize("kind", ["terminal_roulette", "electronic_poker_table",
                                  "blackjack_machine"])
def test_special_machine_stands_in_a_hall(venues, kind):
    """002:L1401: a RAY gaming hall may hold a special machine."""
    assert Machine.objects.get(id=machine(HALL, kind)).kind == kind


@pytest.mark.parametrize("kind", ["terminal_roulette", "electronic_poker_table",
                                  "blackjack_machine"])
def test_special_machine_refused_at_open_entry_premises_and_recorded(venues, kind):
    """002:L1401: premises without an 18+ entry rule get no special machine."""
    with pytest.raises(PlacementRejected) as refused:
        machine(PARTNER, kind, machine_id="sp-1")
    assert refused.value.details["rule"] == "machines.special_machine_placement"
    assert refused.value.details["cite"] == "002:L1401"
    assert Event.objects.filter(type=PLACEMENT_REJECTED).count() == 1
    assert not Machine.objects.filter(id="sp-1").exists()


def test_special_machine_stands_at_posted_adults_only_premises(venues):
    """002:L1401: premises whose entry is 18+ may hold a special machine."""
    commands.post_premises_entry(venue=PARTNER, adults_only=True, actor="officer",
                                 idempotency_key=key())
    assert Machine.objects.get(id=machine(PARTNER, "terminal_roulette")).venue == PARTNER


def test_online_kinds_only_at_online_venues(venues):
    """Decision machines.placement.online: online kinds online, land kinds on premises."""
    machine(ONLINE, "online_slot")
    with pytest.raises(PlacementRejected):
        machine(HALL, "online_slot")
    with pytest.raises(PlacementRejected):
        machine(ONLINE, "slot")


def test_machine_id_registered_once(venues):
    machine_id = machine(HALL)
    with pytest.raises(MachinesError) as taken:
        machine(HALL, machine_id=machine_id)
    assert taken.value.code == "machines.machine_exists"


# Round caps: 002:L3371-3373 ---------------------------------------------------

CAP_CASES = [
    # venue, adults_only posted, stakes, allowed, rule
    ("hall_stake_at_cap", HALL, False, (200, 200, 200, 200), True, None),
    ("hall_stake_above_cap", HALL, False, (201,), False, "compliance.max_stake"),
    ("hall_round_at_cap", HALL, False, (200,) * 4, True, None),
    ("hall_round_above_cap", HALL, False, (200, 200, 200, 200, 1), False,
     "compliance.max_stake"),
    ("partner_stake_at_cap", PARTNER, False, (100, 100), True, None),
    ("partner_stake_above_cap", PARTNER, False, (101,), False, "compliance.max_stake"),
    ("partner_round_above_cap", PARTNER, False, (100, 100, 1), False,
     "compliance.max_stake"),
    ("adults_only_partner_stake_at_cap", PARTNER, True, (200, 200, 200, 200), True, None),
    ("adults_only_partner_stake_above_cap", PARTNER, True, (201,), False,
     "compliance.max_stake"),
    ("adults_only_partner_round_above_cap", PARTNER, True, (200, 200, 200, 200, 1), False,
     "compliance.max_stake"),
    ("casino_line_at_cap", CASINO, False, (2000, 2000), True, None),
    ("casino_line_above_cap", CASINO, False, (2001,), False, "compliance.max_stake"),
]


@pytest.mark.parametrize("case, venue, adults_only, stakes, allowed, rule", CAP_CASES,
                         ids=[c[0] for c in CAP_CASES])
def test_slot_caps(venues, case, venue, adults_only, stakes, allowed, rule):
    """002:L3371 (halls and 18+ premises EUR 2 / EUR 8, elsewhere EUR 1 / EUR 2),
    002:L3439 (the casino, EUR 20 per line or option)."""
    if adults_only:
        commands.post_premises_entry(venue=venue, adults_only=True, actor="officer",
                                     idempotency_key=key())
    machine_id = machine(venue, credit_minor=100_00)
    before = _events()
    if allowed:
        result = slot_round(machine_id, stakes=stakes)
        assert result.total_minor == sum(stakes)
        assert balance(credit_account(machine_id)) == 100_00 - sum(stakes)
        return
    with pytest.raises(RoundRejected) as refused:
        slot_round(machine_id, stakes=stakes)
    assert refused.value.details["rule"] == rule
    cite = "002:L3439" if venue == CASINO else "002:L3371"
    assert refused.value.details["cite"] == cite
    assert _events() == before + 1
    assert Event.objects.last().type == ROUND_REJECTED
    assert balance(credit_account(machine_id)) == 100_00


def test_reused_stakes_count_toward_the_round_cap(venues):
    """002:L3373: wins re-staked within the round are part of its total (EUR 8 cap)."""
    machine_id = machine(HALL, credit_minor=2_00)
    # Two fresh euros, then six re-used from the round's wins: EUR 8 in all.
    result = slot_round(machine_id, stakes=(200, 200, 200, 200), reused=600, win=900)
    assert (result.total_minor, result.reused_minor) == (800, 600)
    assert balance(credit_account(machine_id)) == 2_00 - 800 + 900
    with pytest.raises(RoundRejected) as refused:
        slot_round(machine_id, stakes=(200, 200, 200, 200, 1), reused=601, win=900)
    assert refused.value.details["rule"] == "compliance.max_stake"


def test_reused_above_wins_is_refused(venues):
    """002:L3373: re-used stakes come from the round's own earlier wins."""
    machine_id = machine(HALL, credit_minor=10_00)
    with pytest.raises(RoundRejected) as refused:
        slot_round(machine_id, stakes=(200,), reused=200, win=100)
    assert refused.value.details["rule"] == "machines.reused_above_wins"
    assert refused.value.details["cite"] == "002:L3373"


def test_win_is_credited_at_once(venues):
    """002:L1381: the machine pays the win at once onto its credit, to play again."""
    machine_id = machine(HALL, credit_minor=1_00)
    slot_round(machine_id, stakes=(100,), win=500)
    assert balance(credit_account(machine_id)) == 500
    slot_round(machine_id, stakes=(200,))  # staked from the win
    assert balance(credit_account(machine_id)) == 300
    assert balance(coin_in_account(machine_id)) == 300
    assert balance(coin_out_account(machine_id)) == 500


def test_no_credit_no_round(venues):
    """002:L135 (credit.allowed false): a machine plays from its credit only."""
    machine_id = machine(HALL, credit_minor=1_00)
    with pytest.raises(RoundRejected) as refused:
        slot_round(machine_id, stakes=(101,))
    assert refused.value.details["rule"] == "machines.insufficient_credit"
    assert refused.value.details["cite"] == "002:L135"


def test_win_above_the_venue_maximum_is_refused(venues):
    """002:L3495: EUR 100,000 is the most a RAY hall pays in one win."""
    machine_id = machine(HALL, credit_minor=1_00)
    slot_round(machine_id, stakes=(100,), win=100_000_00)
    with pytest.raises(RoundRejected) as refused:
        slot_round(machine_id, stakes=(100,), win=100_000_01)
    assert refused.value.details["rule"] == "compliance.max_win"
    assert refused.value.details["cite"] == "002:L3495"


def test_underage_card_in_player_is_refused(venues):
    """age.min 18 (002:L153): a known player under age does not play."""
    young = make_player(born=NOON.date().replace(year=NOON.year - 17))
    machine_id = machine(HALL, credit_minor=1_00)
    with pytest.raises(RoundRejected) as refused:
        slot_round(machine_id, stakes=(100,), player_id=young.id)
    assert refused.value.details["rule"] == "compliance.underage"


def test_self_excluded_card_in_player_is_refused(venues):
    """002:L3086: a self-excluded player does not play where the player is known."""
    player = make_player()
    self_exclude(player_id=player.id, months=1, venue_code="ray-online", actor="test",
                 at=NOON - dt.timedelta(days=1))
    machine_id = machine(HALL, credit_minor=1_00)
    with pytest.raises(RoundRejected) as refused:
        slot_round(machine_id, stakes=(100,), player_id=player.id)
    assert refused.value.details["rule"] == "compliance.self_excluded"


SPECIAL_CASES = [
    ("roulette_number_at_cap", "terminal_roulette", [("position_number_field", 200)], None),
    ("roulette_number_above", "terminal_roulette", [("position_number_field", 201)],
     "002:L3379"),
    ("roulette_side_at_cap", "terminal_roulette", [("position_side_field", 1000)], None),
    ("roulette_side_above", "terminal_roulette", [("position_side_field", 1001)],
     "002:L3379"),
    ("poker_opening_at_cap", "electronic_poker_table", [("opening_stake", 200),
                                                       ("raise", 800)], None),
    ("poker_opening_above", "electronic_poker_table", [("opening_stake", 201)], "002:L3381"),
    ("blackjack_main_and_side_at_cap", "blackjack_machine", [("main", 400),
                                                            ("side_game", 200)], None),
    ("blackjack_side_above", "blackjack_machine", [("main", 100), ("side_game", 201)],
     "002:L3383"),
    ("blackjack_total_above", "blackjack_machine", [("main", 401), ("side_game", 200)],
     "002:L3383"),
]


@pytest.mark.parametrize("case, kind, stakes, cite", SPECIAL_CASES,
                         ids=[c[0] for c in SPECIAL_CASES])
def test_special_machine_caps(venues, case, kind, stakes, cite):
    """002:L3379 terminal roulette, L3381 electronic poker table, L3383 blackjack."""
    machine_id = machine(HALL, kind, credit_minor=100_00)
    play = dict(machine_id=machine_id, round_id=key("r"),
                stakes=[{"unit": u, "amount_minor": a} for u, a in stakes],
                total_minor=sum(a for _, a in stakes), actor="ctl")
    if cite is None:
        commands.play_round(**play)
        return
    with pytest.raises(RoundRejected) as refused:
        commands.play_round(**play)
    assert (refused.value.details["rule"], refused.value.details["cite"]) == (
        "compliance.max_stake", cite)


def test_the_same_round_id_is_one_round(venues):
    """The machine's round id is the key: sent twice, recorded once."""
    machine_id = machine(HALL, credit_minor=10_00)
    first = slot_round(machine_id, "r-1", stakes=(100,))
    written = _events()
    again = slot_round(machine_id, "r-1", stakes=(100,))
    assert (again.position, again.replayed) == (first.position, True)
    assert _events() == written
    assert balance(credit_account(machine_id)) == 9_00


def test_an_online_round_is_a_players(venues):
    """Online play is from a player's gaming account: a round names its player."""
    machine_id = machine(ONLINE, "online_slot")
    with pytest.raises(MachinesError) as refused:
        slot_round(machine_id)
    assert refused.value.code == "machines.invalid_request"
    assert refused.value.details["field"] == "player_id"


# Vouchers -----------------------------------------------------------------------

def test_voucher_redeemed_exactly_once_at_the_cage(venues):
    machine_id = machine(HALL, credit_minor=20_00)
    slot_round(machine_id, stakes=(100,), win=250)
    out = commands.cash_out(machine_id=machine_id, actor="ctl", idempotency_key=key())
    assert out.amount_minor == 21_50
    assert balance(credit_account(machine_id)) == 0
    assert balance(voucher_account(HALL, out.voucher_id)) == 21_50
    paid = commands.redeem_voucher(voucher_id=out.voucher_id, actor="cage",
                                   idempotency_key=key())
    assert (paid.redeemed_at, paid.amount_minor) == ("cage", 21_50)
    assert balance(voucher_account(HALL, out.voucher_id)) == 0
    assert balance(f"cage/{HALL}/cash") == -21_50
    with pytest.raises(MachinesError) as again:
        commands.redeem_voucher(voucher_id=out.voucher_id, actor="cage",
                                idempotency_key=key())
    assert again.value.code == "machines.voucher_redeemed"


def test_voucher_into_another_machine_of_the_same_venue_only(venues):
    issuer, other = machine(HALL, credit_minor=5_00), machine(HALL)
    elsewhere = machine(CASINO)
    out = commands.cash_out(machine_id=issuer, actor="ctl", idempotency_key=key())
    with pytest.raises(MachinesError) as refused:
        commands.redeem_voucher(voucher_id=out.voucher_id, machine_id=elsewhere,
                                actor="ctl", idempotency_key=key())
    assert refused.value.code == "machines.voucher_other_venue"
    commands.redeem_voucher(voucher_id=out.voucher_id, machine_id=other, actor="ctl",
                            idempotency_key=key())
    assert balance(credit_account(other)) == 5_00
    assert Voucher.objects.get(id=out.voucher_id).redeemed_machine == other


def test_nothing_to_cash_out(venues):
    with pytest.raises(MachinesError) as refused:
        commands.cash_out(machine_id=machine(HALL), actor="ctl", idempotency_key=key())
    assert refused.value.code == "machines.nothing_to_cash_out"


# Hand pay: the cash desk or the player's account (002:L1399) ----------------------

def test_a_hand_pay_at_the_cash_desk_cancels_the_credit(venues):
    """002:L1399: the win paid at the venue's cash desk, verified from the machine."""
    from casino.machines.models import MachineDay

    machine_id = machine(HALL, credit_minor=20_00)
    slot_round(machine_id, stakes=(100,), win=500)
    paid = commands.pay_out(machine_id=machine_id, to="cash_desk", actor="ctl",
                            idempotency_key=key())
    assert paid.amount_minor == 24_00
    assert balance(credit_account(machine_id)) == 0
    assert balance(f"cage/{HALL}/cash") == -24_00
    assert MachineDay.objects.get(machine_id=machine_id).cancelled_credits_minor == 24_00
    with pytest.raises(MachinesError) as empty:
        commands.pay_out(machine_id=machine_id, to="cash_desk", actor="ctl",
                         idempotency_key=key())
    assert empty.value.code == "machines.nothing_to_cash_out"


def test_a_pay_out_to_the_players_account(venues):
    from casino.cage.commands import deposit

    player = make_player()
    deposit(player_id=player.id, venue=HALL, amount_minor=1_00, currency="EUR",
            method="cash", actor="cage", idempotency_key=key())
    machine_id = machine(HALL, credit_minor=7_00)
    commands.pay_out(machine_id=machine_id, to="account", player_id=player.id, actor="ctl",
                     idempotency_key=key())
    assert balance(f"player/{player.id}/account") == 8_00
    with pytest.raises(MachinesError):
        commands.pay_out(machine_id=machine_id, to="account", actor="ctl")
