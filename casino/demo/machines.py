"""The demo's gaming machines (issue 15), on the first evening.

- hall-helsinki: four slots and a terminal roulette, each with EUR 100 of
  cash in, report their evening in batches (a EUR 2.01 stake refused by the
  hall's EUR 2 cap, 002:L3371; a EUR 10.01 side bet at the roulette refused,
  002:L3379); a mystery jackpot posted over the four slots (1 % of each
  round, EUR 100 seed, EUR 50 reset: the venue's terms, 002:L1387-1389) hits
  on one of them; a slot cashes out to a voucher that the cage pays once.
- kiosk-helsinki: a partner premises with open entry, registered as such,
  whose two slots take EUR 1 a stake and EUR 2 a round (002:L3371-3373): a
  EUR 2.01 round refused.
- ray-online: a player plays an online slot from the gaming account, EUR 20
  a round (002:L3477), and loses until the EUR 500 daily slot loss cap
  refuses the next round (002:L3082).

Every write goes through casino.machines' commands (or the rules' venue
registration) with `demo/<seed>/machines/` keys or the machines' own
round ids, so a second run appends nothing.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from casino.cage import commands as cage
from casino.machines import commands as machines
from casino.machines.errors import RoundRejected
from casino.machines.jackpots import configure_jackpot, pay_jackpot_hit
from casino.machines.models import Machine, MachineJackpot
from casino.rules.commands import register_venue
from casino.rules.models import Venue
from ledger import Metadata

from .clock import helsinki

if TYPE_CHECKING:  # the demo imports this module; no cycle at run time
    from .gaming_day import Demo, Step

HALL, KIOSK, ONLINE = "hall-helsinki", "kiosk-helsinki", "ray-online"
CONTROLLER, OFFICER, CAGE = "demo-machine-controller", "demo-officer", "demo-cage"
HALL_SLOTS = tuple(f"hall-slot-{n}" for n in range(1, 5))
ROULETTE = "hall-roulette-1"
KIOSK_SLOTS = ("kiosk-slot-1", "kiosk-slot-2")
WEB_SLOT = "web-slot-1"
JACKPOT = "hall-mystery"
ONLINE_PLAYER = 27          # one of the casino's gamblers, online tonight
ROUNDS = 60


def steps(demo: "Demo", number: int, day: dt.date) -> list["Step"]:
    """The machines' steps of an evening (the first only)."""
    from .gaming_day import Step

    if number != 0:
        return []
    floor = MachineFloor(demo)
    return [
        Step(helsinki(day, 17, 40), "machines: kiosk venue", floor.kiosk),
        Step(helsinki(day, 17, 45), "machines: register", floor.register),
        Step(helsinki(day, 17, 50), "machines: jackpot", floor.jackpot),
        Step(helsinki(day, 19, 30), "machines: hall rounds", floor.hall_rounds),
        Step(helsinki(day, 19, 40), "machines: kiosk rounds", floor.kiosk_rounds),
        Step(helsinki(day, 20, 0), "machines: jackpot hit", floor.hit),
        Step(helsinki(day, 20, 30), "machines: voucher", floor.voucher),
        Step(helsinki(day, 21, 30), "machines: online slot", floor.online_slot),
    ]


class MachineFloor:
    def __init__(self, demo: "Demo") -> None:
        self.demo = demo
        self.facts = demo.facts.setdefault("machines", {})

    def key(self, *parts: object) -> str:
        return self.demo.key("machines", *parts)

    def kiosk(self) -> None:
        if not Venue.objects.filter(code=KIOSK).exists():
            register_venue(code=KIOSK, name="R-kioski, Kamppi",
                           rulebook_id="ray-partner-premises", venue_type="partner_premises",
                           metadata=Metadata(actor="demo-setup", source="casino.demo"),
                           idempotency_key=f"demo/venue/{KIOSK}")

    def register(self) -> None:
        fleet = ([(m, HALL, "slot") for m in HALL_SLOTS]
                 + [(ROULETTE, HALL, "terminal_roulette")]
                 + [(m, KIOSK, "slot") for m in KIOSK_SLOTS]
                 + [(WEB_SLOT, ONLINE, "online_slot")])
        for machine_id, venue, kind in fleet:
            if not Machine.objects.filter(id=machine_id).exists():
                machines.register_machine(machine_id=machine_id, venue=venue, kind=kind,
                                          games=["fruits"], paylines=5, actor=OFFICER,
                                          idempotency_key=self.key("register", machine_id))
            if venue != ONLINE:
                machines.insert_cash(machine_id=machine_id, amount_minor=100_00,
                                     actor=CONTROLLER,
                                     idempotency_key=self.key("cash", machine_id))
        self.demo.note(f"Machines: {len(HALL_SLOTS)} slots and a terminal roulette at {HALL},"
                       f" {len(KIOSK_SLOTS)} low-cap slots at {KIOSK}, an online slot")

    def jackpot(self) -> None:
        if MachineJackpot.objects.filter(id=JACKPOT).exists():
            return
        configure_jackpot(jackpot_id=JACKPOT, venue=HALL, name="Hall mystery",
                          type="mystery", scope="machine_group", drawn_by="machine",
                          amount="progressive",
                          terms={"contribution_bp": 100, "seed_minor": 100_00,
                                 "reset_minor": 50_00, "qualifying_stake_minor": 100},
                          machines=HALL_SLOTS, actor=OFFICER,
                          idempotency_key=self.key("jackpot"))

    def _report(self, machine_id: str, rounds: list[dict]) -> tuple[int, int]:
        batch = machines.report_rounds(machine_id=machine_id, rounds=rounds,
                                       actor=CONTROLLER,
                                       idempotency_key=self.key("batch", machine_id))
        return batch.accepted, batch.refused

    def hall_rounds(self) -> None:
        totals = [0, 0]
        for n, machine_id in enumerate(HALL_SLOTS):
            rounds = [{"round_id": f"r-{i}",
                       "stakes": [{"option": "line-1", "amount_minor": 100 + 50 * (i % 3)}],
                       "total_minor": 100 + 50 * (i % 3),
                       "win_minor": 300 if i % 4 == 0 else 0}
                      for i in range(ROUNDS)]
            if n == 0:      # 002:L3371: EUR 2 a stake at a hall
                rounds.append({"round_id": "r-over", "stakes": [{"amount_minor": 201}],
                               "total_minor": 201})
            accepted, refused = self._report(machine_id, rounds)
            totals[0] += accepted
            totals[1] += refused
        rounds = [{"round_id": f"r-{i}", "stakes": [{"unit": "position_number_field",
                                                     "amount_minor": 200}],
                   "total_minor": 200, "win_minor": 7_200 if i == 7 else 0}
                  for i in range(20)]
        rounds.append({"round_id": "r-side-over", "stakes": [
            {"unit": "position_side_field", "amount_minor": 1_001}], "total_minor": 1_001})
        accepted, refused = self._report(ROULETTE, rounds)
        totals[0] += accepted
        totals[1] += refused
        self.facts["hall_rounds"] = {"accepted": totals[0], "refused": totals[1]}
        self.demo.note(f"Machines at {HALL}: {totals[0]} rounds accepted, {totals[1]} refused"
                       " by the Part IV caps (002:L3371, L3379)")

    def kiosk_rounds(self) -> None:
        for machine_id in KIOSK_SLOTS:
            rounds = [{"round_id": f"r-{i}", "stakes": [{"amount_minor": 100}] * (1 + i % 2),
                       "total_minor": 100 * (1 + i % 2), "win_minor": 250 if i % 5 == 0 else 0}
                      for i in range(ROUNDS // 2)]
            rounds.append({"round_id": "r-over", "stakes": [{"amount_minor": 100},
                                                            {"amount_minor": 101}],
                           "total_minor": 201})
            accepted, refused = self._report(machine_id, rounds)
            self.facts.setdefault("kiosk_rounds", {})[machine_id] = [accepted, refused]
        self.demo.note(f"Machines at {KIOSK} (open entry): EUR 1 a stake, EUR 2 a round;"
                       " a EUR 2.01 round refused (002:L3371-3373)")

    def hit(self) -> None:
        hit = pay_jackpot_hit(jackpot_id=JACKPOT, machine_id=HALL_SLOTS[2], round_id="r-17",
                              drawn_by="machine", actor=CONTROLLER)
        self.facts["jackpot_hit"] = hit.paid_minor
        self.demo.note(f"Mystery jackpot {JACKPOT} hit on {HALL_SLOTS[2]}:"
                       f" EUR {hit.paid_minor / 100:.2f} to its credit, re-seeded at EUR 50")

    def voucher(self) -> None:
        out = machines.cash_out(machine_id=HALL_SLOTS[2], actor=CONTROLLER,
                                idempotency_key=self.key("cash-out"))
        if out.voucher_id is None:
            return
        paid = machines.redeem_voucher(voucher_id=out.voucher_id, actor=CAGE,
                                       idempotency_key=self.key("redeem"))
        self.facts["voucher"] = {"voucher_id": out.voucher_id, "amount_minor": paid.amount_minor}
        self.demo.note(f"Voucher {out.voucher_id} printed at {HALL_SLOTS[2]} and paid at the"
                       f" cage: EUR {paid.amount_minor / 100:.2f}, once")

    def online_slot(self) -> None:
        player = self.demo.player(ONLINE_PLAYER)
        at = helsinki(self.demo_day(), 21, 25)
        cage.deposit(player_id=player, venue=ONLINE, amount_minor=600_00, currency="EUR",
                     method="bank", actor=CAGE, idempotency_key=self.key("deposit"), at=at)
        played = 0
        refusal = None
        for i in range(40):
            try:
                machines.play_round(machine_id=WEB_SLOT, round_id=f"web-{i}",
                                    stakes=[{"option": "line-1", "amount_minor": 20_00}],
                                    total_minor=20_00, player_id=player, actor=CONTROLLER)
            except RoundRejected as refused:
                refusal = refused.details
                break
            played += 1
        self.facts["online_slot"] = {"rounds": played,
                                     "refused_by": refusal and refusal["rule"]}
        self.demo.note(f"Online slot at {ONLINE}: {played} rounds of EUR 20 lost, then"
                       f" {refusal and refusal['rule']} ({refusal and refusal['cite']}): the"
                       " EUR 500 daily slot loss cap")

    def demo_day(self) -> dt.date:
        from .gaming_day import DAYS

        return DAYS[0]
