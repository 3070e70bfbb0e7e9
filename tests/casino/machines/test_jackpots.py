"""Machine jackpots (002:L1387-1389): types, scopes, amounts, contributions, hits, re-seeds."""

from __future__ import annotations

import pytest

from casino.machines import commands
from casino.machines.errors import MachinesError
from casino.machines.events import contributions_account, credit_account, jackpot_pool_account
from casino.machines.jackpots import configure_jackpot, pay_jackpot_hit
from casino.machines.models import MachineDay, MachineJackpot

from .conftest import HALL, ONLINE, balance, key, machine, slot_round

pytestmark = pytest.mark.django_db

PROGRESSIVE = {"contribution_bp": 200, "seed_minor": 100_00, "reset_minor": 50_00,
               "qualifying_stake_minor": 100}


def _jackpot(machines, *, scope="machine_group", type="mystery", amount="progressive",
             terms=PROGRESSIVE, drawn_by="machine", jackpot_id=None):
    return configure_jackpot(jackpot_id=jackpot_id or key("jp"), venue=HALL, name="Mystery",
                             type=type, scope=scope, drawn_by=drawn_by, amount=amount,
                             terms=terms, machines=machines, actor="officer",
                             idempotency_key=key())


def test_a_group_pool_is_seeded_and_fed_by_qualifying_rounds(venues):
    """Contributions per qualifying round at the venue's posted rate (decision
    machines.jackpot.contribution); a round under the qualifying stake gives nothing
    (002:L1389: taking part may need a stake the instructions state)."""
    a, b = machine(HALL, credit_minor=100_00), machine(HALL, credit_minor=100_00)
    jackpot = _jackpot([a, b])
    pool = jackpot.pools[a]
    assert pool == jackpot.pools[b] == jackpot_pool_account(HALL, jackpot.jackpot_id)
    assert balance(pool) == 100_00
    slot_round(a, stakes=(200, 200))        # 400 * 2% = 8
    slot_round(b, stakes=(150,))            # 150 * 2% = 3
    slot_round(b, stakes=(99,))             # under the qualifying EUR 1
    assert balance(pool) == 100_00 + 8 + 3
    assert balance(contributions_account(a)) == 8
    # The credit pays only the stakes: contributions come out of the house's side.
    assert balance(credit_account(a)) == 100_00 - 400


def test_a_mystery_hit_is_paid_to_the_credit_and_the_pool_reseeded(venues):
    a = machine(HALL, credit_minor=10_00)
    jackpot = _jackpot([a])
    slot_round(a, "r-hit", stakes=(200,))
    hit = pay_jackpot_hit(jackpot_id=jackpot.jackpot_id, machine_id=a, round_id="r-hit",
                          drawn_by="machine", actor="ctl")
    assert hit.paid_minor == 100_00 + 4
    assert balance(credit_account(a)) == 10_00 - 200 + 100_04
    assert balance(jackpot.pools[a]) == 50_00       # re-seeded at the reset
    assert MachineDay.objects.get(machine_id=a).jackpots_minor == 100_04
    again = pay_jackpot_hit(jackpot_id=jackpot.jackpot_id, machine_id=a, round_id="r-hit",
                            drawn_by="machine", actor="ctl")
    assert again.replayed and again.position == hit.position
    assert MachineJackpot.objects.get(id=jackpot.jackpot_id).hits == 1


def test_a_hit_is_checked_against_the_terms(venues):
    a, outsider = machine(HALL, credit_minor=10_00), machine(HALL, credit_minor=10_00)
    combination = _jackpot([a], type="combination", scope="single_machine",
                           amount="fixed", terms={"fixed_minor": 500_00,
                                                  "combination": "7-7-7",
                                                  "qualifying_stake_minor": 200},
                           drawn_by="external")
    slot_round(a, "small", stakes=(100,))
    slot_round(a, "big", stakes=(200,))
    slot_round(outsider, "o-1", stakes=(200,))
    cases = [
        (dict(machine_id=outsider, round_id="o-1", drawn_by="external",
              combination="7-7-7"), "not_linked"),
        (dict(machine_id=a, round_id="nope", drawn_by="external",
              combination="7-7-7"), "round_not_played"),
        (dict(machine_id=a, round_id="big", drawn_by="machine",
              combination="7-7-7"), "drawn_by"),
        (dict(machine_id=a, round_id="big", drawn_by="external",
              combination="bar"), "combination"),
        (dict(machine_id=a, round_id="small", drawn_by="external",
              combination="7-7-7"), "not_qualifying"),
    ]
    for arguments, reason in cases:
        with pytest.raises(MachinesError) as refused:
            pay_jackpot_hit(jackpot_id=combination.jackpot_id, actor="ctl", **arguments)
        assert (refused.value.code, refused.value.details["reason"]) == (
            "machines.jackpot_hit_rejected", reason)
    hit = pay_jackpot_hit(jackpot_id=combination.jackpot_id, machine_id=a, round_id="big",
                          drawn_by="external", combination="7-7-7", actor="ctl")
    assert hit.paid_minor == 500_00


def test_a_multiplier_jackpot_pays_a_multiple_of_the_stake(venues):
    a = machine(HALL, credit_minor=10_00)
    jackpot = _jackpot([a], amount="multiplier", terms={"multiplier": 250},
                       scope="single_machine")
    slot_round(a, "m", stakes=(200, 200))
    assert pay_jackpot_hit(jackpot_id=jackpot.jackpot_id, machine_id=a, round_id="m",
                           drawn_by="machine", actor="ctl").paid_minor == 250 * 400


def test_a_hit_is_capped_at_the_maximum_win(venues):
    """002:L3495: EUR 100,000 at a hall; the pool keeps what the cap cuts
    (decision machines.jackpot.max_win)."""
    a = machine(HALL, credit_minor=10_00)
    jackpot = _jackpot([a], terms={**PROGRESSIVE, "seed_minor": 150_000_00,
                                   "reset_minor": 1_000_00})
    slot_round(a, "r", stakes=(100,))
    hit = pay_jackpot_hit(jackpot_id=jackpot.jackpot_id, machine_id=a, round_id="r",
                          drawn_by="machine", actor="ctl")
    assert (hit.amount_minor, hit.paid_minor) == (150_000_02, 100_000_00)
    assert hit.capped_minor == 50_000_02
    assert balance(jackpot.pools[a]) == 50_000_02 + 1_000_00


def test_machines_in_a_group_have_their_own_pools(venues):
    a, b = machine(HALL, credit_minor=10_00), machine(HALL, credit_minor=10_00)
    jackpot = _jackpot([a, b], scope="machine_in_group")
    assert jackpot.pools[a] != jackpot.pools[b]
    slot_round(a, stakes=(200, 200, 100))
    assert (balance(jackpot.pools[a]), balance(jackpot.pools[b])) == (100_10, 100_00)


def test_a_machine_linked_at_registration_takes_part(venues):
    a = machine(HALL, credit_minor=10_00)
    jackpot = _jackpot([a], scope="machine_in_group")
    late = key("late")
    commands.register_machine(machine_id=late, venue=HALL, kind="slot", games=["g"],
                              jackpot_links=[jackpot.jackpot_id], actor="officer",
                              idempotency_key=key())
    commands.insert_cash(machine_id=late, amount_minor=10_00, actor="ctl",
                         idempotency_key=key())
    pool = jackpot_pool_account(HALL, f"{jackpot.jackpot_id}.{late}")
    assert balance(pool) == 100_00      # its own pool, seeded
    slot_round(late, stakes=(200, 200, 100))
    assert balance(pool) == 100_10


def test_bad_terms_are_refused(venues):
    a = machine(HALL)
    with pytest.raises(MachinesError) as refused:
        _jackpot([a], terms={"seed_minor": 100})
    assert refused.value.details["field"] == "terms.contribution_bp"
    with pytest.raises(MachinesError):
        _jackpot([a, machine(HALL)], scope="single_machine")
    with pytest.raises(MachinesError) as unknown:
        _jackpot([machine(ONLINE, "online_slot")])
    assert unknown.value.code == "machines.unknown_machine"


def test_an_online_hit_is_paid_to_the_players_gaming_account(venues):
    """Online (002:L3497 the maximum win of electronic games): the hit goes to the account."""
    from casino.cage.commands import deposit
    from tests.casino.conftest import make_player

    player = make_player()
    deposit(player_id=player.id, venue=ONLINE, amount_minor=100_00, currency="EUR",
            method="bank", actor="cage", idempotency_key=key())
    web = machine(ONLINE, "online_slot")
    jackpot = configure_jackpot(jackpot_id=key("ojp"), venue=ONLINE, name="Web mystery",
                                type="mystery", scope="single_machine", drawn_by="machine",
                                amount="fixed", terms={"fixed_minor": 250_00}, machines=[web],
                                actor="officer", idempotency_key=key())
    commands.play_round(machine_id=web, round_id="w-1", player_id=player.id,
                        stakes=[{"amount_minor": 1_00}], total_minor=1_00, actor="ctl")
    hit = pay_jackpot_hit(jackpot_id=jackpot.jackpot_id, machine_id=web, round_id="w-1",
                          drawn_by="machine", actor="ctl")
    assert hit.paid_minor == 250_00
    assert balance(f"player/{player.id}/account") == 100_00 - 1_00 + 250_00
    with pytest.raises(MachinesError) as twice:
        pay_jackpot_hit(jackpot_id=jackpot.jackpot_id, machine_id=web, round_id="w-1",
                        drawn_by="machine", actor="ctl", idempotency_key=key())
    assert twice.value.code == "machines.jackpot_already_paid"
