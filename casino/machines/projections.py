"""Projection of the machines' events into Machine, Premises, Voucher, MachineDay.

The same `apply` runs inline in the append and on `rebuild_projections`.
A round, the write a machine network makes most, is one statement: an
upsert of the machine's meters for the event's gaming day.
"""

from __future__ import annotations

from typing import Sequence

from django.db import connection

from ledger import RecordedEvent

from .events import (
    CASH_INSERTED,
    MACHINE_REGISTERED,
    PREMISES_ENTRY_POSTED,
    PROJECTED_TYPES,
    ROUND_PLAYED,
    ROUND_REJECTED,
    VOUCHER_ISSUED,
    VOUCHER_REDEEMED,
)
from .models import Machine, MachineDay, Premises, Voucher, VoucherState

METERS = ("coin_in_minor", "coin_out_minor", "cash_in_minor", "vouchers_issued_minor",
          "vouchers_redeemed_minor", "rounds", "rounds_rejected")
UPSERT_SQL = """
INSERT INTO machines_machineday (machine_id, day, {columns})
VALUES (%s, %s, {values})
ON CONFLICT (machine_id, day) DO UPDATE SET {updates}
"""


class MachinesProjection:
    name = "machines.machines"
    event_types = PROJECTED_TYPES

    def reset(self) -> None:
        Voucher.objects.all().delete()
        Premises.objects.all().delete()
        Machine.objects.all().delete()  # meters cascade

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            _apply(event)


def _apply(event: RecordedEvent) -> None:
    p = event.payload
    if event.type == MACHINE_REGISTERED:
        Machine.objects.create(
            id=p["machine_id"], venue=p["venue"], kind=p["kind"], games=p["games"],
            long_interactive_rounds=p["long_interactive_rounds"], currency=p["currency"],
            rulebook=p["rulebook"], registered_position=event.position)
    elif event.type == PREMISES_ENTRY_POSTED:
        Premises.objects.update_or_create(
            venue=p["venue"], defaults={"adults_only": p["adults_only"],
                                        "posted_position": event.position})
    elif event.type == CASH_INSERTED:
        _meters(p["machine_id"], event, cash_in_minor=p["amount_minor"])
    elif event.type == ROUND_PLAYED:
        _meters(p["machine_id"], event, coin_in_minor=p["total_minor"],
                coin_out_minor=p["win_minor"], rounds=1)
    elif event.type == ROUND_REJECTED:
        _meters(p["machine_id"], event, rounds_rejected=1)
    elif event.type == VOUCHER_ISSUED:
        Voucher.objects.create(id=p["voucher_id"], venue=p["venue"], machine=p["machine_id"],
                               amount_minor=p["amount_minor"], state=VoucherState.ISSUED,
                               issued_position=event.position)
        _meters(p["machine_id"], event, vouchers_issued_minor=p["amount_minor"])
    elif event.type == VOUCHER_REDEEMED:
        Voucher.objects.filter(id=p["voucher_id"]).update(
            state=VoucherState.REDEEMED, redeemed_position=event.position,
            redeemed_at=p["at"], redeemed_machine=p.get("machine_id") or "")
        if p["at"] == "machine":
            _meters(p["machine_id"], event, vouchers_redeemed_minor=p["amount_minor"])


def _meters(machine_id: str, event: RecordedEvent, **amounts: int) -> None:
    """Add to one machine's meters for the event's gaming day (one statement)."""
    sql = UPSERT_SQL.format(
        columns=", ".join(METERS), values=", ".join(["%s"] * len(METERS)),
        updates=", ".join(f"{name} = machines_machineday.{name} + EXCLUDED.{name}"
                          for name in METERS if name in amounts))
    with connection.cursor() as cursor:
        cursor.execute(sql, [machine_id, event.gaming_day,
                             *(amounts.get(name, 0) for name in METERS)])


def ledger_meters(machine_id: str, day) -> dict[str, int]:
    """Return coin in and coin out of a machine's day, summed from the ledger's postings.

    The meters as the ledger has them, beside MachineDay's, for the
    reconciliation: coin in is what the round events credited to the
    machine's coin-in account, coin out what they debited to its coin-out
    account, on the events' gaming day.
    """
    from .events import coin_in_account, coin_out_account

    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT coalesce(-sum(p.amount_minor) FILTER (WHERE p.account_id = %(coin_in)s), 0),
                   coalesce(sum(p.amount_minor) FILTER (WHERE p.account_id = %(coin_out)s), 0)
            FROM ledger_posting p JOIN ledger_event e ON e.position = p.event_id
            WHERE p.account_id IN (%(coin_in)s, %(coin_out)s) AND e.gaming_day = %(day)s
            """,
            {"coin_in": coin_in_account(machine_id), "coin_out": coin_out_account(machine_id),
             "day": day})
        coin_in, coin_out = cursor.fetchone()
    return {"coin_in_minor": int(coin_in), "coin_out_minor": int(coin_out)}
