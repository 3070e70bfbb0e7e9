"""Meters reconciliation: each machine's day three ways, and an alert on a difference.

Per machine and gaming day the projection keeps the meters (coin in, coin
out, jackpots, vouchers issued and redeemed, cash in, cancelled and
malfunction credits: `MachineDay`). `reconcile_meters` sets them beside

- the ledger: the same figures summed from the postings of the day's
  events on the machine's accounts (coin in, coin out, jackpot payments,
  voucher issues, cash in, malfunction credits), to the cent; and
- the meters the machine itself reports for the day (its hard or soft
  meters, read by the controller), where given.

It records `machines.meters_reconciled` (per machine: ours, the ledger's,
the reported, the differences) and, for each machine whose reported
meters differ from the record, raises a compliance alert (`meters_mismatch`,
an officer looks). The daily close (casino.reports) files the machines'
accounts on its own lines (coin in, coin out, credit, cash boxes,
vouchers), so the close, the ledger and the meters are the same postings
read three ways.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from django.db import connection

from casino.compliance.events import ALERT_RAISED
from casino.rules import queries as rules
from casino.rules.models import Venue
from casino.runner import BaseCommand, Call, Decision, run
from ledger import NewEvent, RecordedEvent
from ledger.read import stream_version

from .errors import MachinesError, MachinesErrorCode as Code
from .events import (
    CASH_INSERTED,
    CREDITS_CANCELLED,
    JACKPOT_HIT_PAID,
    METERS_RECONCILED,
    SCHEMA_VERSION,
    SOURCE,
    VOUCHER_ISSUED,
    VOUCHER_REDEEMED,
    meters_stream,
)
from .models import ONLINE_KINDS, Machine, MachineDay

# The meters a machine reports and the record keeps (MachineDay's columns).
REPORTED_METERS = ("coin_in_minor", "coin_out_minor", "jackpots_minor",
                   "vouchers_issued_minor", "vouchers_redeemed_minor", "cash_in_minor",
                   "cancelled_credits_minor", "malfunction_credits_minor")
ALERT_KIND = "meters_mismatch"

# The ledger's meters are read in three statements, each on one table with
# an indexed predicate, and summed here in integers: whichever index the
# planner picks, with statistics or none (inside a test's transaction, or
# before autovacuum has looked at a busy evening), a plan reads a table at
# most once, never a table once per row of another. The single join this
# replaced (postings to machines on `account_id LIKE 'machine/' || m.id ||
# '/%'`, which no index serves) read every posting once per event of the
# day in CI: 70-80 s a reconciliation of the hall evening's 20,000 rounds;
# a join by equality on the named accounts still got a quadratic plan. The
# statements:
#   1. the span of positions of the gaming day (index ledger_event_day_pos);
#   2. the postings on the venue's machines' accounts, named exactly, within
#      that span (the postings' (account, event) index, or their event index
#      over the span);
#   3. the types of just those events, of the day (primary key, or the day's
#      index).
MACHINE_ACCOUNT_KINDS = ("coin_in", "coin_out", "credit", "cash", "malfunction_credits",
                         # no meter reads it; named so that a machine whose only
                         # postings of the day are contributions still has its
                         # (zero) ledger row, as the LIKE join gave it
                         "jackpot_contributions")
DAY_SPAN_SQL = """
SELECT min(position), max(position) FROM ledger_event WHERE gaming_day = %s
"""
DAY_POSTINGS_SQL = """
SELECT account_id, event_id, amount_minor FROM ledger_posting
WHERE account_id = ANY(%s::text[]) AND event_id BETWEEN %s AND %s
"""
EVENTS_SQL = """
SELECT position, type FROM ledger_event
WHERE position = ANY(%s::bigint[]) AND gaming_day = %s
"""
# Each meter from the ledger: (account kind, event type or None for any,
# sign): the postings of the machine's events of one type on one of its
# accounts, in the meter's direction.
LEDGER_METERS: Mapping[str, tuple[str, str | None, int]] = {
    "coin_in_minor": ("coin_in", None, -1),
    "coin_out_minor": ("coin_out", None, 1),
    "jackpots_minor": ("credit", JACKPOT_HIT_PAID, -1),
    "vouchers_issued_minor": ("credit", VOUCHER_ISSUED, 1),
    "vouchers_redeemed_minor": ("credit", VOUCHER_REDEEMED, -1),
    "cash_in_minor": ("cash", CASH_INSERTED, 1),
    "malfunction_credits_minor": ("malfunction_credits", None, 1),
    "cancelled_credits_minor": ("credit", CREDITS_CANCELLED, 1),
}
LEDGER_COLUMNS = tuple(LEDGER_METERS)


def ledger_day(venue: str, day: dt.date, machine_ids: Iterable[str] | None = None
               ) -> dict[str, dict[str, int]]:
    """Return each machine's meters of the day at a venue, summed from the ledger.

    A machine is in the answer when it has a posting of the day on one of
    its accounts. `machine_ids` are the venue's machines when the caller
    has them (else they are read). At most four statements, whatever the
    number of machines and postings. Online jackpots and malfunction
    credits go to the gaming account, not a machine credit: their jackpot
    meter is the record's only.
    """
    if machine_ids is None:
        machine_ids = Machine.objects.filter(venue=venue).values_list("id", flat=True)
    accounts = {f"machine/{machine_id}/{kind}": (machine_id, kind)
                for machine_id in machine_ids for kind in MACHINE_ACCOUNT_KINDS}
    if not accounts:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(DAY_SPAN_SQL, [day])
        lo, hi = cursor.fetchone()
        if lo is None:
            return {}
        cursor.execute(DAY_POSTINGS_SQL, [sorted(accounts), lo, hi])
        postings = cursor.fetchall()
        if not postings:
            return {}
        # The day is named again so that a ledger partitioned by gaming day
        # reads one partition; an event of another day is not returned.
        cursor.execute(EVENTS_SQL, [sorted({event_id for _, event_id, _ in postings}), day])
        types = dict(cursor.fetchall())
    by_kind: dict[tuple[str, str, str | None], int] = {}
    machines: set[str] = set()
    for account_id, event_id, amount in postings:
        type_ = types.get(event_id)
        if type_ is None:
            continue        # an event of another gaming day within the day's span
        machine_id, kind = accounts[account_id]
        machines.add(machine_id)
        for key in ((machine_id, kind, None), (machine_id, kind, type_)):
            by_kind[key] = by_kind.get(key, 0) + int(amount)
    return {machine_id: {column: sign * by_kind.get((machine_id, kind, type_), 0)
                         for column, (kind, type_, sign) in LEDGER_METERS.items()}
            for machine_id in sorted(machines)}


def record_day(venue: str, day: dt.date) -> dict[str, dict[str, int]]:
    """Return each machine's meters of the day at a venue, as the projection keeps them."""
    return {row["machine_id"]: {name: row[name] for name in REPORTED_METERS}
            for row in MachineDay.objects.filter(machine__venue=venue, day=day).values(
                "machine_id", *REPORTED_METERS)}


@dataclass(frozen=True, slots=True)
class ReconciliationResult:
    venue: str
    gaming_day: dt.date
    reconciled: bool
    machines: Mapping[str, Any]
    differences: tuple[Mapping[str, Any], ...]
    alerts: int
    position: int
    replayed: bool = False


def reconcile_meters(*, venue: str, gaming_day: dt.date,
                     reported: Mapping[str, Mapping[str, int]] | None = None, actor: str,
                     idempotency_key: str | None = None) -> ReconciliationResult:
    """Reconcile a venue's machines' meters of a gaming day; alert on reported differences.

    `reported` maps machine ids to the meters the machines report (any of
    REPORTED_METERS, whole cents). 400 machines.invalid_request for an
    unknown meter or a machine not at the venue.
    """
    clean: dict[str, dict[str, int]] = {}
    for machine_id, meters in (reported or {}).items():
        unknown = sorted(set(meters) - set(REPORTED_METERS))
        if unknown:
            raise MachinesError(Code.INVALID_REQUEST, f"unknown meters: {', '.join(unknown)}",
                                field="reported", machine_id=machine_id)
        if any(type(v) is not int or v < 0 for v in meters.values()):
            raise MachinesError(Code.INVALID_REQUEST, "meters are whole cents, 0 or more",
                                field="reported", machine_id=machine_id)
        clean[str(machine_id)] = dict(meters)
    arguments = {"venue": venue, "gaming_day": gaming_day.isoformat(), "reported": clean}
    return run(RECONCILE, arguments, Call(actor=actor, key=idempotency_key, source=SOURCE))


@dataclass(frozen=True, slots=True)
class ReconcileContext:
    place: Venue
    day: dt.date
    version: int
    machines: Mapping[str, Any]
    differences: tuple[Mapping[str, Any], ...]
    at: dt.datetime


class Reconcile(BaseCommand[ReconcileContext, ReconciliationResult]):
    name = "machines.reconcile_meters"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> ReconcileContext:
        place = rules.venue(arguments["venue"])
        day = dt.date.fromisoformat(arguments["gaming_day"])
        kinds = dict(Machine.objects.filter(venue=place.code).values_list("id", "kind"))
        at_venue = set(kinds)
        online = {m for m, kind in kinds.items() if kind in ONLINE_KINDS}
        outside = sorted(set(arguments["reported"]) - at_venue)
        if outside:
            raise MachinesError(Code.INVALID_REQUEST, f"machine {outside[0]} is not at"
                                f" {place.code}", field="reported", machine_id=outside[0])
        version = stream_version(meters_stream(place.code, day))
        ours, ledger = record_day(place.code, day), ledger_day(place.code, day, kinds)
        machines, differences = {}, []
        for machine_id in sorted(set(ours) | set(ledger) | set(arguments["reported"])):
            record = ours.get(machine_id, dict.fromkeys(REPORTED_METERS, 0))
            books = ledger.get(machine_id, dict.fromkeys(LEDGER_COLUMNS, 0))
            reported = arguments["reported"].get(machine_id, {})
            for meter in LEDGER_COLUMNS:
                if meter == "jackpots_minor" and machine_id in online:
                    continue    # paid to the gaming account, not a machine credit
                if books[meter] != record[meter]:
                    differences.append({"machine_id": machine_id, "meter": meter,
                                        "against": "ledger", "record_minor": record[meter],
                                        "other_minor": books[meter]})
            for meter, value in reported.items():
                if value != record[meter]:
                    differences.append({"machine_id": machine_id, "meter": meter,
                                        "against": "reported", "record_minor": record[meter],
                                        "other_minor": value})
            machines[machine_id] = {"record": record, "ledger": books, "reported": reported}
        return ReconcileContext(place, day, version, machines, tuple(differences),
                                call.moment())

    def decide(self, context: ReconcileContext) -> Decision:
        place, day = context.place, context.day
        payload = {"venue": place.code, "gaming_day": day.isoformat(),
                   "reconciled": not context.differences, "machines": context.machines,
                   "differences": list(context.differences)}
        stream = meters_stream(place.code, day)
        events = [NewEvent(stream=stream, type=METERS_RECONCILED, payload=payload,
                           schema_version=SCHEMA_VERSION, occurred_at=context.at,
                           gaming_day=day)]
        mismatched = sorted({d["machine_id"] for d in context.differences
                             if d["against"] == "reported"})
        for machine_id in mismatched:
            mine = [d for d in context.differences
                    if d["machine_id"] == machine_id and d["against"] == "reported"]
            events.append(NewEvent(
                stream=stream, type=ALERT_RAISED,
                payload={"kind": ALERT_KIND, "venue": place.code,
                         "summary": f"machine {machine_id} reports meters that differ from"
                                    f" the record on {day.isoformat()}"
                                    f" ({', '.join(d['meter'] for d in mine)})",
                         "details": {"machine_id": machine_id, "gaming_day": day.isoformat(),
                                     "differences": mine}},
                schema_version=SCHEMA_VERSION, occurred_at=context.at, gaming_day=day))
        return Decision(events, {stream: context.version})

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool
               ) -> ReconciliationResult:
        p = events[0].payload
        return ReconciliationResult(p["venue"], dt.date.fromisoformat(p["gaming_day"]),
                                    p["reconciled"], p["machines"], tuple(p["differences"]),
                                    len(events) - 1, events[0].position, replayed)


RECONCILE = Reconcile()
