"""Projection of the machines' events into Machine, Premises, Voucher, MachineDay.

The same `apply` runs inline in the append and on `rebuild_projections`.
A round, the write a machine network makes most, is one statement: an
upsert of the machine's meters for the event's gaming day.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from django.db import connection
from django.db.models import F

from ledger import RecordedEvent

from .events import (
    CASH_INSERTED,
    CREDITS_CANCELLED,
    MACHINE_REGISTERED,
    PREMISES_ENTRY_POSTED,
    PROJECTED_TYPES,
    ROUND_PLAYED,
    ROUND_REJECTED,
    VOUCHER_ISSUED,
    VOUCHER_REDEEMED,
    JACKPOT_CONFIGURED,
    JACKPOT_HIT_PAID,
    MALFUNCTION_CREDIT_APPROVED,
    MALFUNCTION_CREDIT_PROPOSED,
    MALFUNCTION_CREDIT_REJECTED,
    METERS_RECONCILED,
    SLOT_TOURNAMENT_ANNOUNCED,
    SLOT_TOURNAMENT_ENTERED,
    SLOT_TOURNAMENT_FINISHED,
    SLOT_TOURNAMENT_PRIZES_PUBLISHED,
    SLOT_TOURNAMENT_STARTED,
)
from casino.rules.cache import invalidate

from .models import (
    Machine,
    MachineJackpot,
    MachineJackpotHit,
    MachineJackpotLink,
    MachineRound,
    MalfunctionCredit,
    MalfunctionState,
    MeterReconciliation,
    Premises,
    SlotTournament,
    SlotTournamentState,
    Voucher,
    VoucherState,
)

METERS = ("coin_in_minor", "coin_out_minor", "cash_in_minor", "vouchers_issued_minor",
          "vouchers_redeemed_minor", "rounds", "rounds_rejected", "jackpots_minor",
          "cancelled_credits_minor", "malfunction_credits_minor",
          "jackpot_contributions_minor")
UPSERT_SQL = """
INSERT INTO machines_machineday (key, machine_id, day, {columns})
VALUES (%s || '/' || %s::text, %s, %s, {values})
ON CONFLICT (machine_id, day) DO UPDATE SET {updates}
"""


class MachinesProjection:
    name = "machines.machines"
    event_types = PROJECTED_TYPES

    def reset(self) -> None:
        MeterReconciliation.objects.all().delete()
        MachineRound.objects.all().delete()
        SlotTournament.objects.all().delete()
        MalfunctionCredit.objects.all().delete()
        MachineJackpotHit.objects.all().delete()
        MachineJackpotLink.objects.all().delete()
        MachineJackpot.objects.all().delete()
        Voucher.objects.all().delete()
        Premises.objects.all().delete()
        Machine.objects.all().delete()  # meters cascade

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        """Apply a group: rounds in one insert, one meters upsert per machine and day."""
        rounds: list[tuple] = []
        meters: dict[tuple[str, Any], dict[str, int]] = {}
        for event in events:
            p = event.payload
            amounts = meter_amounts(event)
            if amounts is not None:
                row = meters.setdefault((amounts[0], event.gaming_day),
                                        dict.fromkeys(METERS, 0))
                for name, value in amounts[1].items():
                    row[name] += value
            if event.type in (ROUND_PLAYED, ROUND_REJECTED):
                played = event.type == ROUND_PLAYED
                rounds.append((f"{p['machine_id']}/{p['round_id']}", p["machine_id"],
                               p["round_id"], "played" if played else "refused",
                               "" if played else p["rule"], p.get("fingerprint", ""),
                               p.get("total_minor", 0) if played else 0,
                               p.get("player_id") or "", event.position))
                continue
            _apply(event)
        if rounds:
            with connection.cursor() as cursor:
                cursor.execute(ROUNDS_INSERT, [list(column) for column in zip(*rounds)])
        for (machine_id, day), amounts in meters.items():
            _upsert(machine_id, day, amounts)


def meter_amounts(event) -> tuple[str, dict[str, int]] | None:
    """What an event adds to its machine's meters of its gaming day (pure)."""
    p = event.payload
    if event.type == ROUND_PLAYED:
        amounts = {"coin_in_minor": p["total_minor"], "coin_out_minor": p["win_minor"],
                   "rounds": 1}
        contributed = sum(p.get("jackpot_contributions", {}).values())
        if contributed:
            amounts["jackpot_contributions_minor"] = contributed
        return p["machine_id"], amounts
    single = {ROUND_REJECTED: ("rounds_rejected", None),
              CASH_INSERTED: ("cash_in_minor", "amount_minor"),
              CREDITS_CANCELLED: ("cancelled_credits_minor", "amount_minor"),
              VOUCHER_ISSUED: ("vouchers_issued_minor", "amount_minor"),
              JACKPOT_HIT_PAID: ("jackpots_minor", "paid_minor"),
              MALFUNCTION_CREDIT_APPROVED: ("malfunction_credits_minor", "amount_minor")}
    if event.type in single:
        meter, field = single[event.type]
        return p["machine_id"], {meter: 1 if field is None else p[field]}
    if event.type == VOUCHER_REDEEMED and p["at"] == "machine":
        return p["machine_id"], {"vouchers_redeemed_minor": p["amount_minor"]}
    return None


ROUNDS_INSERT = """
INSERT INTO machines_machineround
    (key, machine_id, round_id, status, rule, fingerprint, total_minor, player_id, position)
SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::text[], %s::text[],
                     %s::bigint[], %s::text[], %s::bigint[])
ON CONFLICT (key) DO NOTHING
"""


def _apply(event: RecordedEvent) -> None:
    p = event.payload
    if event.type == MACHINE_REGISTERED:
        Machine.objects.create(
            id=p["machine_id"], venue=p["venue"], kind=p["kind"], games=p["games"],
            long_interactive_rounds=p["long_interactive_rounds"], currency=p["currency"],
            rulebook=p["rulebook"], registered_position=event.position,
            paylines=p.get("paylines"), stake_options=p.get("stake_options", []),
            online_game=p.get("online_game", ""))
        if p.get("jackpot_links"):
            MachineJackpotLink.objects.bulk_create(
                MachineJackpotLink(key=f"{jackpot}/{p['machine_id']}", jackpot_id=jackpot,
                                   machine_id=p["machine_id"], linked_position=event.position)
                for jackpot in p["jackpot_links"])
            invalidate()
    elif event.type == PREMISES_ENTRY_POSTED:
        Premises.objects.update_or_create(
            venue=p["venue"], defaults={"adults_only": p["adults_only"],
                                        "posted_position": event.position})
        invalidate()    # the cached entry rule of the venue
    elif event.type == VOUCHER_ISSUED:
        Voucher.objects.create(id=p["voucher_id"], venue=p["venue"], machine=p["machine_id"],
                               amount_minor=p["amount_minor"], state=VoucherState.ISSUED,
                               issued_position=event.position)
    elif event.type == VOUCHER_REDEEMED:
        Voucher.objects.filter(id=p["voucher_id"]).update(
            state=VoucherState.REDEEMED, redeemed_position=event.position,
            redeemed_at=p["at"], redeemed_machine=p.get("machine_id") or "")
    elif event.type == JACKPOT_CONFIGURED:
        jackpot = MachineJackpot.objects.create(
            id=p["jackpot_id"], venue=p["venue"], name=p["name"], type=p["type"],
            scope=p["scope"], drawn_by=p["drawn_by"], amount=p["amount"], terms=p["terms"],
            currency=p["currency"], configured_position=event.position)
        MachineJackpotLink.objects.bulk_create(
            MachineJackpotLink(key=f"{jackpot.id}/{m}", jackpot=jackpot, machine_id=m,
                               linked_position=event.position) for m in p["machines"])
        invalidate()    # the machines' cached jackpot links
    elif event.type == JACKPOT_HIT_PAID:
        MachineJackpot.objects.filter(id=p["jackpot_id"]).update(hits=F("hits") + 1)
        MachineJackpotHit.objects.create(
            key=f"{p['jackpot_id']}/{p['machine_id']}/{p['round_id']}",
            jackpot_id=p["jackpot_id"], machine=p["machine_id"], round_id=p["round_id"],
            paid_minor=p["paid_minor"], position=event.position)
    elif event.type == MALFUNCTION_CREDIT_PROPOSED:
        MalfunctionCredit.objects.create(
            id=p["credit_id"], machine=p["machine_id"], venue=p["venue"],
            round_id=p.get("round_id") or "", player_id=p.get("player_id") or "",
            amount_minor=p["amount_minor"], free_games=p["free_games"],
            device_record=p["device_record"], displayed=p.get("displayed") or {},
            reason=p["reason"], state=MalfunctionState.PROPOSED,
            proposed_by=event.metadata.get("actor", ""), last_position=event.position)
    elif event.type in (MALFUNCTION_CREDIT_APPROVED, MALFUNCTION_CREDIT_REJECTED):
        approved = event.type == MALFUNCTION_CREDIT_APPROVED
        MalfunctionCredit.objects.filter(id=p["credit_id"]).update(
            state=MalfunctionState.APPROVED if approved else MalfunctionState.REJECTED,
            decided_by=event.metadata.get("actor", ""), last_position=event.position)
    elif event.type == SLOT_TOURNAMENT_ANNOUNCED:
        SlotTournament.objects.create(
            id=p["tournament_id"], venue=p["venue"], name=p["name"],
            entry_fee_minor=p["entry_fee_minor"], prizes=p["prizes"],
            prizes_published_position=event.position, state=SlotTournamentState.ANNOUNCED,
            currency=p["currency"], last_position=event.position)
    elif event.type == SLOT_TOURNAMENT_PRIZES_PUBLISHED:
        SlotTournament.objects.filter(id=p["tournament_id"]).update(
            prizes=p["prizes"], prizes_published_position=event.position,
            last_position=event.position)
    elif event.type == SLOT_TOURNAMENT_ENTERED:
        SlotTournament.objects.filter(id=p["tournament_id"]).update(
            entries=F("entries") + 1, fees_minor=F("fees_minor") + p["entry_fee_minor"],
            last_position=event.position)
    elif event.type in (SLOT_TOURNAMENT_STARTED, SLOT_TOURNAMENT_FINISHED):
        SlotTournament.objects.filter(id=p["tournament_id"]).update(
            state=(SlotTournamentState.STARTED if event.type == SLOT_TOURNAMENT_STARTED
                   else SlotTournamentState.FINISHED), last_position=event.position)
    elif event.type == METERS_RECONCILED:
        MeterReconciliation.objects.update_or_create(
            key=f"{p['venue']}/{p['gaming_day']}",
            defaults={"venue": p["venue"], "day": p["gaming_day"],
                      "reconciled": p["reconciled"], "machines": len(p["machines"]),
                      "differences": p["differences"], "position": event.position})


def _upsert(machine_id: str, day, amounts: Mapping[str, int]) -> None:
    sql = UPSERT_SQL.format(
        columns=", ".join(METERS), values=", ".join(["%s"] * len(METERS)),
        updates=", ".join(f"{name} = machines_machineday.{name} + EXCLUDED.{name}"
                          for name in METERS if name in amounts))
    with connection.cursor() as cursor:
        cursor.execute(sql, [machine_id, day, machine_id, day,
                             *(amounts.get(name, 0) for name in METERS)])


def ledger_meters(machine_id: str, day) -> dict[str, int]:
    """Return coin in and coin out of a machine's day, summed from the ledger's postings.

    The meters as the ledger has them, beside MachineDay's, for the
    reconciliation: coin in is what the round events credited to the
    machine's coin-in account, coin out what they debited to its coin-out
    account, on the events' gaming day. Read as the reconciliation reads
    them (`meters.ledger_day`: statements whose plans do not depend on the
    planner's statistics; a join of postings to events here once ran for
    minutes in a test's transaction).
    """
    from .meters import ledger_day

    day_meters = ledger_day("", day, [machine_id]).get(machine_id, {})
    return {"coin_in_minor": int(day_meters.get("coin_in_minor", 0)),
            "coin_out_minor": int(day_meters.get("coin_out_minor", 0))}
