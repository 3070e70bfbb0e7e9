"""Over HTTP: a hall evening of machines in batches, a voucher at the cage, meters."""

from __future__ import annotations

import pytest

from casino.machines.events import ROUND_PLAYED, ROUND_REJECTED
from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for

from .conftest import HALL, PARTNER

pytestmark = pytest.mark.django_db


def _post(client, url, body, key):
    return client.post(url, body, format="json", headers={"Idempotency-Key": key})


def _money(minor: int) -> str:
    return f"{minor // 100}.{minor % 100:02d}"


def _round(round_id, stakes, win=0, reused=0):
    return {"round_id": round_id,
            "stakes": [{"option": f"line-{i}", "amount": _money(s)}
                       for i, s in enumerate(stakes)],
            "total": _money(sum(stakes)), "reused": _money(reused), "win": _money(win)}


def test_hall_evening_over_http(venues):
    """002:L3371-3373 at the limit and a cent above, in batches; 002:L1381 wins
    credited; a voucher paid at the cage; meters agree with the ledger."""
    officer = client_for(Role.COMPLIANCE_OFFICER)
    controller = client_for(Role.TABLE_CONTROLLER)
    cage = client_for(Role.CAGE)
    _post(officer, "/api/v1/machine-premises", {"venue": PARTNER, "adults_only": False},
          "premises-1")
    machines = {f"hall-slot-{n}": HALL for n in range(3)} | {"kiosk-slot-1": PARTNER}
    for machine_id, venue in machines.items():
        response = _post(officer, "/api/v1/machines",
                         {"machine_id": machine_id, "venue": venue, "kind": "slot",
                          "games": ["fruits", "gems"]}, f"register-{machine_id}")
        assert response.status_code == 201, response.json()
        response = _post(controller, f"/api/v1/machines/{machine_id}/cash-ins",
                         {"amount": "100.00"}, f"cash-{machine_id}")
        assert response.status_code == 201, response.json()
    expected = {}
    for machine_id, venue in machines.items():
        stake_max, round_max = (200, 800) if venue == HALL else (100, 200)
        rounds = [
            _round("r-stake-cap", [stake_max], win=150),
            _round("r-stake-over", [stake_max + 1]),
            _round("r-round-cap", [stake_max] * (round_max // stake_max)),
            _round("r-round-over", [stake_max] * (round_max // stake_max) + [1]),
            _round("r-reused", [stake_max, stake_max], win=stake_max * 2,
                   reused=stake_max),
        ] + [_round(f"r-{n}", [50], win=(100 if n % 3 == 0 else 0)) for n in range(20)]
        response = _post(controller, f"/api/v1/machines/{machine_id}/rounds",
                         {"rounds": rounds}, f"batch-{machine_id}")
        body = response.json()
        assert response.status_code == 201, body
        assert (body["accepted"], body["refused"]) == (23, 2)
        refused = {r["round_id"]: r for r in body["rounds"] if r["status"] == "refused"}
        assert set(refused) == {"r-stake-over", "r-round-over"}
        assert {r["code"] for r in refused.values()} == {"machines.round_rejected"}
        assert {r["rule"] for r in refused.values()} == {"compliance.max_stake"}
        coin_in = stake_max + round_max + 2 * stake_max + 20 * 50
        coin_out = 150 + 2 * stake_max + 7 * 100
        expected[machine_id] = (coin_in, coin_out)
        # The same batch again: a no-op per round, the first answer again.
        written = Event.objects.count()
        again = _post(controller, f"/api/v1/machines/{machine_id}/rounds",
                      {"rounds": rounds}, f"batch-{machine_id}")
        assert again.status_code == 201
        assert again["Idempotent-Replayed"] == "true"
        assert again.json()["accepted"] == 23
        assert Event.objects.count() == written
        # Under a new key the rounds are the same rounds: nothing new is played.
        resent = _post(controller, f"/api/v1/machines/{machine_id}/rounds",
                       {"rounds": rounds}, f"batch-again-{machine_id}")
        assert resent.status_code == 201
        assert all(r["replayed"] for r in resent.json()["rounds"]
                   if r["status"] == "accepted")
        assert Event.objects.filter(type=ROUND_PLAYED,
                                    stream=f"machine/{machine_id}").count() == 23
        assert Event.objects.filter(type=ROUND_REJECTED,
                                    stream=f"machine/{machine_id}").count() == 2
    # A voucher printed at one machine is paid once at the cage.
    out = _post(controller, "/api/v1/machines/hall-slot-0/cash-outs", {}, "out-1").json()
    credit = 100_00 - expected["hall-slot-0"][0] + expected["hall-slot-0"][1]
    assert out["amount_minor"] == credit
    paid = _post(cage, f"/api/v1/vouchers/{out['voucher_id']}/redemptions", {}, "redeem-1")
    assert paid.status_code == 201, paid.json()
    assert paid.json()["amount_minor"] == credit
    twice = _post(cage, f"/api/v1/vouchers/{out['voucher_id']}/redemptions", {}, "redeem-2")
    assert (twice.status_code, twice.json()["code"]) == (409, "machines.voucher_redeemed")
    # Meters per machine and gaming day, from the projection and from the ledger.
    for machine_id, (coin_in, coin_out) in expected.items():
        meters = controller.get(f"/api/v1/machines/{machine_id}/meters?day=2026-06-16").json()
        assert (meters["coin_in_minor"], meters["coin_out_minor"]) == (coin_in, coin_out)
        assert (meters["ledger_coin_in_minor"], meters["ledger_coin_out_minor"]) == (
            coin_in, coin_out)
        assert (meters["rounds"], meters["rounds_rejected"]) == (23, 2)
    details = controller.get("/api/v1/machines/hall-slot-0").json()
    assert details["credit_minor"] == 0


def test_a_batch_above_a_thousand_rounds_is_refused(venues):
    officer = client_for(Role.COMPLIANCE_OFFICER)
    controller = client_for(Role.TABLE_CONTROLLER)
    _post(officer, "/api/v1/machines", {"machine_id": "big", "venue": HALL, "kind": "slot",
                                        "games": ["fruits"]}, "register-big")
    rounds = [_round(f"r-{n}", [10]) for n in range(1001)]
    response = _post(controller, "/api/v1/machines/big/rounds", {"rounds": rounds}, "big-1")
    assert response.status_code == 400
    assert response.json()["code"] == "request.invalid"


def test_a_special_machine_at_open_entry_premises_is_refused_over_http(venues):
    """002:L1401 over HTTP: 422 machines.placement_rejected, recorded."""
    officer = client_for(Role.COMPLIANCE_OFFICER)
    response = _post(officer, "/api/v1/machines",
                     {"machine_id": "tr-1", "venue": PARTNER, "kind": "terminal_roulette",
                      "games": ["roulette"]}, "register-tr")
    assert response.status_code == 422
    assert response.json()["code"] == "machines.placement_rejected"
    assert response.json()["details"]["cite"] == "002:L1401"


@pytest.mark.parametrize("change, field", [
    ({"total": "1.001"}, "rounds"), ({"colour": "red"}, "rounds"),
    ({"round_id": "no spaces"}, "rounds"), ({"played_at": "2026-06-16T12:00:00"}, "rounds"),
])
def test_a_malformed_round_is_a_400_naming_it(venues, change, field):
    """The batch body is read by hand (api/rounds.py) with the serializer's rules."""
    officer = client_for(Role.COMPLIANCE_OFFICER)
    controller = client_for(Role.TABLE_CONTROLLER)
    _post(officer, "/api/v1/machines", {"machine_id": "m-400", "venue": HALL, "kind": "slot",
                                        "games": ["fruits"]}, "register-m-400")
    rounds = [_round("r-ok", [100]), {**_round("r-bad", [100]), **change}]
    response = _post(controller, "/api/v1/machines/m-400/rounds", {"rounds": rounds}, "bad-1")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "request.invalid"
    assert field in str(body["details"])
    assert "1" in str(body["details"])      # the second round, index 1
