"""Scenario over HTTP: a hall evening of 50 machines and 20,000 rounds in batches.

Every Part IV machine cap at its limit and one cent above (halls 002:L3371-3373,
terminal roulette L3379, electronic poker table L3381, blackjack machine L3383,
partner premises L3371 open and 18+, the casino L3439, online L3477-3479 and a
solo game L3461), wins credited at once (L1381), vouchers paid once at the cage
or into another machine, a mystery jackpot hit (L1387-1389). Then the meters,
the ledger and the daily close agree to the cent.
"""

from __future__ import annotations

import datetime as dt

import pytest

from casino.cage.commands import deposit
from casino.machines.events import coin_in_account, coin_out_account, credit_account
from casino.machines.models import MachineDay
from casino.roles import Role
from tests.casino.api.conftest import client_for
from tests.casino.conftest import NOON, make_player

from .conftest import CASINO, HALL, ONLINE, PARTNER, balance

pytestmark = pytest.mark.django_db

EVENING = NOON - dt.timedelta(hours=16)      # 2026-06-15 20:00 Helsinki
DAY = EVENING.date()
ROUNDS_PER_MACHINE = 400
BATCH = 200
CASH_IN = 500_00
SLOTS = [f"s-{n:02d}" for n in range(40)]
SPECIAL = ([(f"tr-{n}", "terminal_roulette") for n in range(4)]
           + [(f"ept-{n}", "electronic_poker_table") for n in range(3)]
           + [(f"bj-{n}", "blackjack_machine") for n in range(3)])
# A normal round's stakes per kind: (unit, amount) pairs.
NORMAL = {"slot": [(None, 100)], "terminal_roulette": [("position_number_field", 100)],
          "electronic_poker_table": [("opening_stake", 100)],
          "blackjack_machine": [("main", 100)]}
# Each kind's caps at the limit (accepted) and a cent above (refused, cite).
CAPS = {
    "slot": [([(None, 200)] * 4, None), ([(None, 201)], "002:L3371"),
             ([(None, 200)] * 4 + [(None, 1)], "002:L3371")],
    "terminal_roulette": [([("position_number_field", 200)], None),
                          ([("position_number_field", 201)], "002:L3379"),
                          ([("position_side_field", 1000)], None),
                          ([("position_side_field", 1001)], "002:L3379")],
    "electronic_poker_table": [([("opening_stake", 200)], None),
                               ([("opening_stake", 201)], "002:L3381")],
    "blackjack_machine": [([("main", 400), ("side_game", 200)], None),
                          ([("main", 100), ("side_game", 201)], "002:L3383"),
                          ([("main", 401), ("side_game", 200)], "002:L3383")],
}


def _money(minor: int) -> str:
    return f"{minor // 100}.{minor % 100:02d}"


def _at(minutes: float) -> str:
    return (EVENING + dt.timedelta(minutes=minutes)).isoformat()


def _post(client, url, body, key, status=201):
    response = client.post(url, body, format="json", headers={"Idempotency-Key": key})
    assert response.status_code == status, (url, response.status_code, response.json())
    return response.json()


def _round(round_id, stakes, win=0, minutes=0.0, player=None):
    body = {"round_id": round_id,
            "stakes": [{"option": f"o{i}", **({"unit": unit} if unit else {}),
                        "amount": _money(amount)} for i, (unit, amount) in enumerate(stakes)],
            "total": _money(sum(a for _, a in stakes)), "win": _money(win),
            "played_at": _at(minutes)}
    if player:
        body["player_id"] = player
    return body


def test_hall_evening(venues):
    officer = client_for(Role.COMPLIANCE_OFFICER)
    controller = client_for(Role.TABLE_CONTROLLER)
    cage, accountant = client_for(Role.CAGE), client_for(Role.ACCOUNTANT)
    machines = [(m, "slot") for m in SLOTS] + SPECIAL
    assert len(machines) == 50
    for machine_id, kind in machines:
        _post(officer, "/api/v1/machines",
              {"machine_id": machine_id, "venue": HALL, "kind": kind, "games": ["g"],
               "paylines": 10}, f"reg-{machine_id}")
        _post(controller, f"/api/v1/machines/{machine_id}/cash-ins",
              {"amount": _money(CASH_IN), "occurred_at": _at(0)}, f"cash-{machine_id}")
    jackpot = _post(officer, "/api/v1/machine-jackpots", {
        "jackpot_id": "hall-mystery", "venue": HALL, "name": "Hall mystery",
        "type": "mystery", "scope": "machine_group", "drawn_by": "machine",
        "amount": "progressive", "machines": SLOTS,
        "terms": {"contribution_bp": 100, "seed": "100.00", "reset": "50.00",
                  "qualifying_stake": "1.00"}}, "jackpot-1")

    # The evening: 400 rounds a machine in batches of 200; the caps first.
    expected = {}
    contributions = 0
    for machine_id, kind in machines:
        coin_in = coin_out = 0
        plan = []
        for index, (stakes, cite) in enumerate(CAPS[kind] if machine_id in (
                "s-00", "tr-0", "ept-0", "bj-0") else []):
            plan.append((f"cap-{index}", stakes, 0, cite))
        for n in range(ROUNDS_PER_MACHINE - len(plan)):
            plan.append((f"r-{n}", NORMAL[kind], 150 if n % 3 == 0 else 0, None))
        for start in range(0, ROUNDS_PER_MACHINE, BATCH):
            part = plan[start:start + BATCH]
            body = {"rounds": [_round(round_id, stakes, win, minutes=(start + i) / 10)
                               for i, (round_id, stakes, win, _) in enumerate(part)]}
            answer = _post(controller, f"/api/v1/machines/{machine_id}/rounds", body,
                           f"batch-{machine_id}-{start}")
            for (round_id, stakes, win, cite), outcome in zip(part, answer["rounds"]):
                assert outcome["round_id"] == round_id
                if cite is None:
                    assert outcome["status"] == "accepted", outcome
                    total = sum(a for _, a in stakes)
                    coin_in += total
                    coin_out += win
                    if kind == "slot" and total >= 100:
                        contributions += total * 100 // 10_000
                else:
                    assert (outcome["status"], outcome["rule"]) == (
                        "refused", "compliance.max_stake"), outcome
        expected[machine_id] = {"coin_in_minor": coin_in, "coin_out_minor": coin_out,
                                "jackpots_minor": 0, "vouchers_issued_minor": 0,
                                "vouchers_redeemed_minor": 0, "cash_in_minor": CASH_IN}
    assert sum(ROUNDS_PER_MACHINE for _ in machines) == 20_000

    # A re-sent batch is a no-op per round.
    again = _post(controller, "/api/v1/machines/s-01/rounds", {"rounds": [
        _round(f"r-{n}", NORMAL["slot"], 150 if n % 3 == 0 else 0, minutes=n / 10)
        for n in range(BATCH)]}, "batch-s-01-resent")
    assert all(o["replayed"] for o in again["rounds"])

    # The mystery jackpot hits on s-05: the seed and every contribution, re-seeded.
    hit = _post(controller, "/api/v1/machine-jackpots/hall-mystery/hits",
                {"machine_id": "s-05", "round_id": "r-7", "drawn_by": "machine",
                 "occurred_at": _at(50)}, "hit-1")
    assert hit["paid_minor"] == 100_00 + contributions
    assert balance(jackpot["pools"]["s-05"]) == 50_00
    expected["s-05"]["jackpots_minor"] = hit["paid_minor"]

    # Vouchers: five machines cash out; three paid at the cage, two into other slots.
    vouchers = []
    for n, machine_id in enumerate(("s-05", "s-20", "tr-1", "ept-1", "bj-1")):
        out = _post(controller, f"/api/v1/machines/{machine_id}/cash-outs",
                    {"occurred_at": _at(60)}, f"out-{machine_id}")
        m = expected[machine_id]
        assert out["amount_minor"] == (CASH_IN - m["coin_in_minor"] + m["coin_out_minor"]
                                       + m["jackpots_minor"])
        m["vouchers_issued_minor"] = out["amount_minor"]
        vouchers.append(out)
    for out in vouchers[:3]:
        _post(cage, f"/api/v1/vouchers/{out['voucher_id']}/redemptions",
              {"occurred_at": _at(70)}, f"redeem-{out['voucher_id']}")
        twice = cage.post(f"/api/v1/vouchers/{out['voucher_id']}/redemptions",
                          {"occurred_at": _at(71)}, format="json",
                          headers={"Idempotency-Key": f"again-{out['voucher_id']}"})
        assert (twice.status_code, twice.json()["code"]) == (409, "machines.voucher_redeemed")
    for out, into in zip(vouchers[3:], ("s-10", "s-11")):
        _post(controller, f"/api/v1/vouchers/{out['voucher_id']}/redemptions",
              {"machine_id": into, "occurred_at": _at(72)}, f"redeem-{out['voucher_id']}")
        expected[into]["vouchers_redeemed_minor"] = out["amount_minor"]

    # Meters: the projection, the ledger and what the machines report agree.
    for machine_id, meters in expected.items():
        got = controller.get(f"/api/v1/machines/{machine_id}/meters?day={DAY}").json()
        assert {k: got[k] for k in meters} == meters, machine_id
        assert (got["ledger_coin_in_minor"], got["ledger_coin_out_minor"]) == (
            meters["coin_in_minor"], meters["coin_out_minor"])
        assert balance(coin_in_account(machine_id)) == meters["coin_in_minor"]
        assert balance(coin_out_account(machine_id)) == meters["coin_out_minor"]
        credit = (CASH_IN - meters["coin_in_minor"] + meters["coin_out_minor"]
                  + meters["jackpots_minor"] - meters["vouchers_issued_minor"]
                  + meters["vouchers_redeemed_minor"])
        assert balance(credit_account(machine_id)) == credit, machine_id
    reconciled = _post(accountant, "/api/v1/machine-meters/reconciliations",
                       {"venue": HALL, "gaming_day": str(DAY), "reported": expected},
                       "meters-1")
    assert (reconciled["reconciled"], reconciled["alerts"]) == (True, 0)
    differs = {"s-00": {**expected["s-00"], "coin_in_minor": expected["s-00"]["coin_in_minor"]
                        + 1}}
    flagged = _post(accountant, "/api/v1/machine-meters/reconciliations",
                    {"venue": HALL, "gaming_day": str(DAY), "reported": differs}, "meters-2")
    assert (flagged["reconciled"], flagged["alerts"]) == (False, 1)

    # The daily close: the machines' coin in and out lines are the meters' sums.
    close = _post(accountant, f"/api/v1/reports/closes/{HALL}/{DAY}", {}, "close-1")
    lines = {line["line"]: line for line in close["lines"]}
    total_in = sum(m["coin_in_minor"] for m in expected.values())
    total_out = sum(m["coin_out_minor"] for m in expected.values())
    assert lines["machine_coin_in"]["credit_minor"] == total_in
    assert lines["machine_coin_out"]["debit_minor"] == total_out
    assert sum(MachineDay.objects.filter(day=DAY, machine__venue=HALL).values_list(
        "coin_in_minor", flat=True)) == total_in
    assert close["reconciled"], close["differences"]
    # Every machine account has its own balance line (none lands in "other"):
    # the credit players hold on the machines, the cash in their boxes, and
    # the vouchers outstanding (all five redeemed by the end of the evening).
    assert "other" not in lines
    # (Close lines are debit-positive: a liability's balance closes negative.)
    assert lines["machine_credit"]["closing_minor"] == -sum(
        balance(credit_account(machine_id)) for machine_id in expected)
    assert lines["machine_cash"]["closing_minor"] == CASH_IN * len(expected)
    assert lines["vouchers"]["closing_minor"] == 0
    assert lines["vouchers"]["credit_minor"] == sum(out["amount_minor"] for out in vouchers)


def test_the_other_venues_caps_over_http(venues):
    """Partner premises open (EUR 1 / EUR 2) and 18+ (EUR 2 / EUR 8, L3371), the casino
    (EUR 20 a line, L3439), online (EUR 20, EUR 100 long rounds, L3477-3479; a solo
    card game EUR 500 an option, L3461)."""
    officer, controller = client_for(Role.COMPLIANCE_OFFICER), client_for(Role.TABLE_CONTROLLER)
    _post(officer, "/api/v1/venues", {"code": "kiosk-18", "name": "Kiosk 18+",
                                      "rulebook_id": "ray-partner-premises",
                                      "venue_type": "partner_premises",
                                      "adults_only": True}, "venue-18")
    player = make_player()
    deposit(player_id=player.id, venue=ONLINE, amount_minor=2_000_00, currency="EUR",
            method="bank", actor="cage", idempotency_key="dep-online")
    cases = [
        ("open-slot", PARTNER, "slot", {}, [([100], True), ([101], False),
                                           ([100, 100], True), ([100, 100, 1], False)]),
        ("adult-slot", "kiosk-18", "slot", {}, [([200] * 4, True), ([201], False),
                                               ([200] * 4 + [1], False)]),
        ("casino-slot", CASINO, "slot", {}, [([2000, 2000], True), ([2001], False)]),
        ("web-slot", ONLINE, "online_slot", {}, [([2000], True), ([2001], False)]),
        ("web-long", ONLINE, "online_slot", {"long_interactive_rounds": True},
         [([10000], True), ([10001], False)]),
        ("web-cards", ONLINE, "online_solo_game", {"online_game": "card_vs_house"},
         [([50000], True), ([50001], False)]),
    ]
    for machine_id, venue, kind, extra, rounds in cases:
        _post(officer, "/api/v1/machines", {"machine_id": machine_id, "venue": venue,
                                            "kind": kind, "games": ["g"], **extra},
              f"reg-{machine_id}")
        online = venue == ONLINE
        if not online:
            _post(controller, f"/api/v1/machines/{machine_id}/cash-ins", {"amount": "100.00"},
                  f"cash-{machine_id}")
        body = {"rounds": [_round(f"{machine_id}-{n}", [(None, s) for s in stakes],
                                  player=player.id if online else None)
                           for n, (stakes, _) in enumerate(rounds)]}
        for round_ in body["rounds"]:
            round_.pop("played_at")
        answer = _post(controller, f"/api/v1/machines/{machine_id}/rounds", body,
                       f"batch-{machine_id}")
        for (stakes, allowed), outcome in zip(rounds, answer["rounds"]):
            assert (outcome["status"] == "accepted") is allowed, (machine_id, stakes, outcome)
            if not allowed:
                assert outcome["rule"] == "compliance.max_stake", outcome
