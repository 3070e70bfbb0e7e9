"""Part IV opening-stake caps of player-vs-player poker, at the table and each hand.

EUR 2 at RAY halls and partner premises (002:L3347), EUR 20,000 at the
casino (002:L3405), EUR 1,000 online (002:L3467): a blind or ante over the
cap opens no table and deals no hand, and the refusal is on the record.
"""

from __future__ import annotations

import pytest

from casino.compliance.errors import AttemptRejected
from casino.poker import commands
from casino.poker.models import Hand, Table
from ledger.models import Event
from tests.casino.poker.conftest import key, seat_players

HALL_TERMS = dict(variant="holdem", structure="no_limit", seats_max=9,
                  buy_in_minor_min=10_000, buy_in_minor_max=40_000, rake="house_fee",
                  rake_percent_basis_points=500)


def _open(venue, **stakes):
    terms = {**HALL_TERMS, "small_blind_minor": 100, "big_blind_minor": 200, **stakes}
    return commands.open_table(venue=venue, actor="floor", idempotency_key=key(), **terms)


def _refusals(venue):
    return list(Event.objects.filter(stream=f"venue/{venue}",
                                     type="compliance.attempt_rejected"))


@pytest.mark.parametrize(("venue", "stakes", "limit_minor", "cite"), [
    pytest.param("hall-helsinki", {"big_blind_minor": 201}, 200, "002:L3347",
                 id="hall_big_blind_case"),
    pytest.param("hall-helsinki", {"ante_minor": 201}, 200, "002:L3347", id="hall_ante_case"),
    pytest.param("hall-helsinki", {"small_blind_minor": 500, "big_blind_minor": 500},
                 200, "002:L3347", id="hall_small_blind_case"),
    pytest.param("partner-kioski", {"big_blind_minor": 201}, 200, "002:L3347",
                 id="partner_big_blind_case"),
    pytest.param("casino-helsinki", {"small_blind_minor": 1_000_000,
                                     "big_blind_minor": 2_000_001},
                 2_000_000, "002:L3405", id="casino_big_blind_case"),
])
def test_table_over_the_opening_stake_cap_does_not_open(venues, venue, stakes,
                                                        limit_minor, cite):
    """002:L3347, L3405, L3467: a blind or ante over the venue's cap is refused
    with compliance.max_stake, recorded, and no table opens."""
    tables = Table.objects.count()
    with pytest.raises(AttemptRejected) as refused:
        _open(venue, **stakes)
    assert refused.value.failure.code == "compliance.max_stake"
    assert refused.value.failure.limit_minor == limit_minor
    assert refused.value.failure.cite == cite
    assert Table.objects.count() == tables
    [recorded] = _refusals(venue)
    assert recorded.payload["rule"] == "compliance.max_stake"
    assert recorded.payload["attempt"]["bet_unit"] == "opening_stake"


@pytest.mark.parametrize(("venue", "stakes"), [
    pytest.param("hall-helsinki", {"big_blind_minor": 200, "ante_minor": 200},
                 id="hall_at_cap_case"),
    pytest.param("casino-helsinki", {"small_blind_minor": 1_000_000,
                                     "big_blind_minor": 2_000_000}, id="casino_at_cap_case"),
])
def test_table_at_the_opening_stake_cap_opens(venues, venue, stakes):
    """002:L3347, L3405, L3467: a forced bet equal to the cap is allowed."""
    assert _open(venue, **stakes).stakes["big_blind_minor"] == stakes["big_blind_minor"]
    assert _refusals(venue) == []


@pytest.mark.parametrize(("amount_minor", "allowed"), [
    pytest.param(100_000, True, id="online_at_cap_case"),
    pytest.param(100_001, False, id="online_over_cap_case"),
])
def test_online_opening_stake_cap_is_one_thousand_euros(venues, amount_minor, allowed):
    """002:L3467: online, the largest blind or ante is at most EUR 1,000 (the check
    as open_table calls it; through open_table in test_ray_online_rake.py)."""
    from casino import clock
    from casino.poker.commands.base import opening_stake_check

    checked = opening_stake_check(venue="ray-online", currency="EUR", at=clock.now(),
                                  forced_bets_minor=[50_000, amount_minor, 0])
    assert checked.verdict.allowed is allowed
    if not allowed:
        assert checked.verdict.failure.code == "compliance.max_stake"
        assert checked.verdict.failure.limit_minor == 100_000
        assert checked.verdict.failure.cite == "002:L3467"


def test_veikkaus_room_has_no_part_iv_opening_stake_cap(venues):
    """Part IV is RAY's (002:L3333): a Veikkaus room table is not checked."""
    from casino import clock
    from casino.poker.commands.base import opening_stake_check

    assert opening_stake_check(venue="poker-helsinki", currency="EUR", at=clock.now(),
                               forced_bets_minor=[5_000_000]) is None


def test_hand_over_the_cap_is_not_dealt_at_a_table_opened_before_the_check(venues):
    """002:L3347: a hall table whose small blind is EUR 5 (opened before the
    cap was checked) deals no hand; the refusal is recorded and no hand starts."""
    table = _open("hall-helsinki", small_blind_minor=100, big_blind_minor=200)
    Table.objects.filter(id=table.table_id).update(
        stakes={"small_blind_minor": 500, "big_blind_minor": 500, "ante_minor": 0})
    seat_players(table.table_id, {1: 10_000, 2: 10_000})
    with pytest.raises(AttemptRejected) as refused:
        commands.start_hand(table_id=table.table_id, button=1, actor="dealer",
                            idempotency_key=key())
    assert refused.value.failure.code == "compliance.max_stake"
    assert refused.value.failure.cite == "002:L3347"
    assert Hand.objects.filter(table_id=table.table_id).count() == 0
    assert [e.payload["attempt"]["amount_minor"] for e in _refusals("hall-helsinki")] == [500]


def test_straddle_over_the_cap_is_not_dealt(venues):
    """002:L3347 (decision poker_pvp.opening_stake.forced_bets): at a hall with
    EUR 1/2 blinds a straddle of EUR 4 is an opening stake over the EUR 2 cap."""
    table = _open("hall-helsinki", small_blind_minor=100, big_blind_minor=200)
    seat_players(table.table_id, {1: 10_000, 2: 10_000, 3: 10_000, 4: 10_000})
    with pytest.raises(AttemptRejected) as refused:
        commands.start_hand(table_id=table.table_id, button=1, straddles=1,
                            actor="dealer", idempotency_key=key())
    assert refused.value.failure.code == "compliance.max_stake"
    assert Hand.objects.filter(table_id=table.table_id).count() == 0
    dealt = commands.start_hand(table_id=table.table_id, button=1, actor="dealer",
                                idempotency_key=key())
    assert dealt.pot_minor == 300


def test_complete_history_over_the_cap_is_not_recorded(venues):
    """002:L3347: a complete hand history is dealt like any hand; over the
    cap it is refused, recorded, and no hand is written."""
    table = _open("hall-helsinki", small_blind_minor=100, big_blind_minor=200)
    Table.objects.filter(id=table.table_id).update(
        stakes={"small_blind_minor": 100, "big_blind_minor": 201, "ante_minor": 0})
    seat_players(table.table_id, {1: 10_000, 2: 10_000})
    with pytest.raises(AttemptRejected) as refused:
        commands.record_hand(table_id=table.table_id, deal=commands.Deal(1),
                             steps=[commands.Step(1, "fold")], actor="dealer",
                             idempotency_key=key())
    assert refused.value.failure.code == "compliance.max_stake"
    assert Hand.objects.filter(table_id=table.table_id).count() == 0
    assert [e.payload["attempt"]["amount_minor"] for e in _refusals("hall-helsinki")] == [201]


@pytest.mark.parametrize(("venue", "stakes", "limit_minor", "cite"), [
    pytest.param("hall-helsinki", {"big_blind_minor": 201}, 200, "002:L3381",
                 id="hall_electronic_case"),
    pytest.param("partner-kioski", {"ante_minor": 201}, 200, "002:L3381",
                 id="partner_electronic_case"),
    pytest.param("casino-helsinki", {"small_blind_minor": 200_000,
                                     "big_blind_minor": 400_001},
                 400_000, "002:L3443", id="casino_automatic_poker_case"),
])
def test_electronic_table_over_its_own_cap_does_not_open(venues, venue, stakes,
                                                         limit_minor, cite):
    """002:L3381, L3443: an electronic poker table is a special machine whose
    blind or ante has its own cap (EUR 2 at halls and partner premises, EUR
    4,000 for the casino's automatic poker); over it nothing opens, the
    refusal names the machine's row."""
    tables = Table.objects.count()
    with pytest.raises(AttemptRejected) as refused:
        _open(venue, electronic=True, **stakes)
    assert refused.value.failure.code == "compliance.max_stake"
    assert refused.value.failure.limit_minor == limit_minor
    assert refused.value.failure.cite == cite
    assert Table.objects.count() == tables
    [recorded] = _refusals(venue)
    assert recorded.payload["attempt"]["game"] in ("electronic_poker_table", "automatic_poker")


def test_casino_electronic_table_is_capped_below_a_live_table(venues):
    """002:L3405 vs L3443: blinds of EUR 2,000/5,000 open a live casino table
    (cap EUR 20,000) but not an electronic one (EUR 4,000)."""
    stakes = {"small_blind_minor": 200_000, "big_blind_minor": 500_000}
    live = _open("casino-helsinki", **stakes)
    assert live.electronic is False
    with pytest.raises(AttemptRejected) as refused:
        _open("casino-helsinki", electronic=True, **stakes)
    assert refused.value.failure.limit_minor == 400_000


def test_hand_at_an_electronic_table_is_checked_against_its_row(venues):
    """002:L3443: the deal of an electronic casino table reads the automatic
    poker row, so a straddle over EUR 4,000 is refused though a live table
    would take it."""
    table = _open("casino-helsinki", electronic=True, small_blind_minor=110_000,
                  big_blind_minor=220_000, buy_in_minor_min=300_000,
                  buy_in_minor_max=500_000)
    assert table.electronic is True
    assert Table.objects.get(id=table.table_id).electronic is True
    seat_players(table.table_id, {1: 500_000, 2: 500_000, 3: 500_000, 4: 500_000})
    with pytest.raises(AttemptRejected) as refused:
        commands.start_hand(table_id=table.table_id, button=1, straddles=1,
                            actor="dealer", idempotency_key=key())
    assert refused.value.failure.cite == "002:L3443"
    assert Hand.objects.filter(table_id=table.table_id).count() == 0


def test_electronic_table_without_its_own_row_takes_the_poker_cap(venues):
    """Decision poker_pvp.opening_stake.electronic_tables: online (no machine
    row) an electronic table is capped as any poker table (002:L3467)."""
    from casino import clock
    from casino.poker.commands.base import opening_stake_game
    from casino.rules import queries as rules

    now = clock.now()
    assert opening_stake_game(rules.venue("ray-online"), now, electronic=True) == "poker_pvp"
    assert opening_stake_game(rules.venue("hall-helsinki"), now,
                              electronic=True) == "electronic_poker_table"
    assert opening_stake_game(rules.venue("casino-helsinki"), now,
                              electronic=True) == "automatic_poker"
