"""The machines' meters as the ledger has them (casino/machines/meters.py `ledger_day`).

The ledger's side of the meters reconciliation is read in three statements,
each on one table through an index, and summed in Python; they replaced one
join of postings to machines on `account_id LIKE 'machine/<id>/%'`, which no
index serves and which, with the planner's statistics stale or missing (as
inside a test's transaction), read every posting once per event of the day
(70-80 s a reconciliation of the hall evening in CI). These tests hold the
new reading to the old join's answers, to a statement count that does not
grow with the machines or the rounds, and to plans that scan by index
without statistics.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from casino.machines import commands, malfunctions
from casino.machines.events import (
    CASH_INSERTED,
    CREDITS_CANCELLED,
    JACKPOT_HIT_PAID,
    ROUND_PLAYED,
    VOUCHER_ISSUED,
    VOUCHER_REDEEMED,
    cash_account,
    contributions_account,
)
from casino.machines.jackpots import configure_jackpot, pay_jackpot_hit
from casino.machines.meters import (
    DAY_POSTINGS_SQL,
    DAY_SPAN_SQL,
    EVENTS_SQL,
    LEDGER_COLUMNS,
    ledger_day,
)
from casino.machines.models import MachineDay
from casino.runner import BaseCommand, Call, Decision, run
from ledger import NewEvent, Posting
from ledger.models import Event
from tests.casino.conftest import NOON

from .conftest import CASINO, HALL, key, machine, slot_round

pytestmark = pytest.mark.django_db

DAY = NOON.date()
# The join the three statements replaced (casino/machines/meters.py before
# this change), kept here as the oracle they must agree with.
JOIN_SQL = """
SELECT m.id,
  coalesce(-sum(p.amount_minor) FILTER (WHERE p.account_id = 'machine/' || m.id || '/coin_in'), 0),
  coalesce(sum(p.amount_minor) FILTER (WHERE p.account_id = 'machine/' || m.id || '/coin_out'), 0),
  coalesce(-sum(p.amount_minor) FILTER (WHERE e.type = %(hit)s
                                         AND p.account_id = 'machine/' || m.id || '/credit'), 0),
  coalesce(sum(p.amount_minor) FILTER (WHERE e.type = %(issued)s
                                        AND p.account_id = 'machine/' || m.id || '/credit'), 0),
  coalesce(-sum(p.amount_minor) FILTER (WHERE e.type = %(redeemed)s
                                         AND p.account_id = 'machine/' || m.id || '/credit'), 0),
  coalesce(sum(p.amount_minor) FILTER (WHERE e.type = %(cash)s
                                        AND p.account_id = 'machine/' || m.id || '/cash'), 0),
  coalesce(sum(p.amount_minor) FILTER (
      WHERE p.account_id = 'machine/' || m.id || '/malfunction_credits'), 0),
  coalesce(sum(p.amount_minor) FILTER (WHERE e.type = %(cancelled)s
                                        AND p.account_id = 'machine/' || m.id || '/credit'), 0)
FROM machines_machine m
JOIN ledger_posting p ON p.account_id LIKE 'machine/' || m.id || '/%%'
JOIN ledger_event e ON e.position = p.event_id
WHERE m.venue = %(venue)s AND e.gaming_day = %(day)s
GROUP BY m.id
"""


def _joined(venue: str, day: dt.date) -> dict[str, dict[str, int]]:
    parameters = {"venue": venue, "day": day, "hit": JACKPOT_HIT_PAID,
                  "issued": VOUCHER_ISSUED, "redeemed": VOUCHER_REDEEMED,
                  "cash": CASH_INSERTED, "cancelled": CREDITS_CANCELLED}
    with connection.cursor() as cursor:
        cursor.execute(JOIN_SQL, parameters)
        return {row[0]: dict(zip(LEDGER_COLUMNS, map(int, row[1:])))
                for row in cursor.fetchall()}


class _Move(BaseCommand[dict, int]):
    """A test-only write through the runner: an event of a type no machines
    command writes, moving money between two accounts (a cash box emptied into
    the cage, say), to show which event types each meter counts."""

    name = "tests.machines.move"
    source = "tests"

    def load(self, arguments, call):
        return dict(arguments)

    def decide(self, context):
        amount = context["amount_minor"]
        event = NewEvent(stream=f"tests/moves/{context['id']}", type=context["type"],
                         payload={"id": context["id"]},
                         postings=(Posting(context["debit"], amount, "EUR"),
                                   Posting(context["credit"], -amount, "EUR")),
                         occurred_at=NOON, gaming_day=DAY)
        return Decision([event], {event.stream: 0})

    def answer(self, events, *, replayed):
        return events[0].position


def _move(type_: str, debit: str, credit: str, amount_minor: int) -> int:
    arguments = {"id": key("move"), "type": type_, "debit": debit, "credit": credit,
                 "amount_minor": amount_minor}
    return run(_Move(), arguments, Call(actor="tests", source="tests"))


def _a_day_of_every_meter() -> dict[str, str]:
    """Machines at the hall with every kind of machine event, one at the casino,
    and a round of the day before recorded among the day's events."""
    a, b, c = (machine(HALL, credit_minor=50_00) for _ in range(3))
    elsewhere = machine(CASINO, credit_minor=30_00)
    idle = machine(HALL)            # no round, no cash: a contribution only (below)
    jackpot = configure_jackpot(
        jackpot_id=key("jp"), venue=HALL, name="Mystery", type="mystery",
        scope="machine_group", drawn_by="machine", amount="progressive",
        terms={"contribution_bp": 200, "seed_minor": 100_00, "reset_minor": 50_00,
               "qualifying_stake_minor": 100},
        machines=[a, b], actor="officer", idempotency_key=key())
    slot_round(a, "a-1", stakes=(200, 100), win=150)
    slot_round(b, stakes=(100,))
    # A late round of yesterday, recorded now: its event lies within today's
    # span of positions but belongs to yesterday's meters.
    slot_round(c, "late", stakes=(100,), win=400, at=NOON - dt.timedelta(days=1))
    slot_round(c, stakes=(200,))
    slot_round(elsewhere, stakes=(100,), win=200)
    hit = pay_jackpot_hit(jackpot_id=jackpot.jackpot_id, machine_id=a, round_id="a-1",
                          drawn_by="machine", actor="ctl")
    voucher = commands.cash_out(machine_id=a, actor="ctl", idempotency_key=key())
    commands.redeem_voucher(voucher_id=voucher.voucher_id, machine_id=b, actor="ctl",
                            idempotency_key=key())
    commands.pay_out(machine_id=c, to="cash_desk", actor="ctl", idempotency_key=key())
    # Not cash in: c's cash box emptied into the cage; and the idle machine's
    # only posting of the day, on its contributions account (no meter reads
    # it, but the machine has a row of zeros, as the join gave it).
    _move("tests.cash_box_collected", f"cage/{HALL}/cash", cash_account(c), 10_00)
    _move("tests.contribution", contributions_account(idle), f"cage/{HALL}/cash", 1)
    proposed = malfunctions.propose_malfunction_credit(
        machine_id=b, device_record={"wins_minor": 12_50, "credits_minor": 3_00,
                                     "free_games": 5, "device": "board 2"},
        displayed={"wins_minor": 1_250_00, "credits_minor": 3_00, "free_games": 5},
        reason="power cut", actor="olli", idempotency_key=key())
    malfunctions.approve_malfunction_credit(credit_id=proposed.credit_id, actor="outi",
                                            idempotency_key=key())
    return {"a": a, "b": b, "c": c, "elsewhere": elsewhere, "idle": idle,
            "voucher_minor": voucher.amount_minor, "hit_minor": hit.paid_minor}


def test_the_ledger_meters_equal_the_join_they_replace(venues):
    """Every meter, on a day of every machine event, equals the old join's figure;
    an event of another gaming day within the day's positions counts for its own."""
    day = _a_day_of_every_meter()
    a, b, c = day["a"], day["b"], day["c"]
    late = Event.objects.get(type=ROUND_PLAYED, payload__round_id="late")
    assert late.gaming_day == DAY - dt.timedelta(days=1)
    assert Event.objects.filter(gaming_day=DAY, position__lt=late.position).exists()
    assert Event.objects.filter(gaming_day=DAY, position__gt=late.position).exists()

    books = ledger_day(HALL, DAY)
    assert books == _joined(HALL, DAY)
    assert set(books) == {a, b, c, day["idle"]}     # not the casino's
    assert books[day["idle"]] == dict.fromkeys(LEDGER_COLUMNS, 0)
    # Each meter, its account, event type and sign (a dropped sign or type
    # filter changes one of these).
    assert books[a]["coin_in_minor"] == 300 and books[a]["coin_out_minor"] == 150
    # The seed and 2% of a's 300 and of b's 100 (one pool for the group).
    assert books[a]["jackpots_minor"] == day["hit_minor"] == 100_00 + 6 + 2
    assert books[a]["vouchers_issued_minor"] == day["voucher_minor"] == (
        50_00 - 300 + 150 + 100_08)
    assert books[b]["vouchers_redeemed_minor"] == day["voucher_minor"]
    assert books[b]["malfunction_credits_minor"] == 15_50
    assert books[b]["coin_in_minor"] == 100
    cash_in = {m: books[m]["cash_in_minor"] for m in (a, b, c)}
    assert cash_in == dict.fromkeys((a, b, c), 50_00)   # c's cash box emptying is not
    # c: today's round only; the late round of yesterday is yesterday's.
    assert (books[c]["coin_in_minor"], books[c]["coin_out_minor"]) == (200, 0)
    assert books[c]["cancelled_credits_minor"] == 50_00 - 100 + 400 - 200
    assert ledger_day(HALL, DAY - dt.timedelta(days=1)) == _joined(
        HALL, DAY - dt.timedelta(days=1)) == {c: {**dict.fromkeys(LEDGER_COLUMNS, 0),
                                                  "coin_in_minor": 100,
                                                  "coin_out_minor": 400}}
    assert ledger_day(CASINO, DAY) == _joined(CASINO, DAY)
    assert ledger_day(HALL, DAY + dt.timedelta(days=1)) == {}
    # The ledger agrees with the record, meter by meter (the jackpot's too:
    # a land machine's hit is paid to its credit).
    for machine_id in (a, b):
        record = MachineDay.objects.get(machine_id=machine_id, day=DAY)
        assert {m: getattr(record, m) for m in LEDGER_COLUMNS} == books[machine_id]


def test_the_statement_count_does_not_grow_with_machines_or_rounds(venues):
    """Four statements (three when the caller has the venue's machines), for one
    machine and one round or seven machines and thirty-one rounds."""
    first = machine(HALL, credit_minor=10_00)
    slot_round(first, stakes=(100,))
    with CaptureQueriesContext(connection) as few:
        small = ledger_day(HALL, DAY)
    more = [machine(HALL, credit_minor=10_00) for _ in range(6)]
    for machine_id in more:
        for _ in range(5):
            slot_round(machine_id, stakes=(100,), win=100)
    with CaptureQueriesContext(connection) as many:
        large = ledger_day(HALL, DAY)
    assert len(small) == 1 and len(large) == 7
    # The machines, the day's span, its postings on their accounts, those events.
    assert len(few) == len(many) == 4
    with CaptureQueriesContext(connection) as given:
        assert ledger_day(HALL, DAY, [first, *more]) == large
    assert len(given) == 3
    with CaptureQueriesContext(connection) as empty:
        assert ledger_day(HALL, DAY + dt.timedelta(days=1)) == {}
    assert len(empty) == 2      # no event that day: nothing more to read


def _scans(plan: dict) -> list[tuple[str, str | None]]:
    found = [(plan["Node Type"], plan.get("Relation Name"))]
    for child in plan.get("Plans", ()):
        found += _scans(child)
    return found


@pytest.mark.parametrize("sql", [DAY_SPAN_SQL, DAY_POSTINGS_SQL, EVENTS_SQL],
                         ids=["span", "postings", "events"])
def test_the_statements_scan_the_ledger_by_index_without_statistics(venues, sql):
    """Inside the test's transaction the planner has no statistics of these rows
    (autovacuum cannot see them); the generic plan, the one a prepared statement
    falls back to, reads the ledger's tables through an index, never whole, so
    no plan of these statements can cost more than the rows it names."""
    for machine_id in (machine(HALL, credit_minor=100_00) for _ in range(4)):
        for _ in range(40):
            slot_round(machine_id, stakes=(100,), win=50)
    numbers = itertools.count(1)
    generic = re.sub("%s", lambda _: f"${next(numbers)}", sql)
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (GENERIC_PLAN, FORMAT JSON) {generic}")
        (plan,), = cursor.fetchall()
    plan = plan if isinstance(plan, list) else json.loads(plan)
    scans = _scans(plan[0]["Plan"])
    # The ledger's tables, or their partitions where the ledger is partitioned;
    # an empty partition may be read whole, as there is nothing to read.
    on_ledger = [(node, table) for node, table in scans
                 if (table or "").startswith(("ledger_event", "ledger_posting"))
                 and _has_rows(table)]
    assert on_ledger, scans
    assert all(node in ("Index Scan", "Index Only Scan", "Bitmap Heap Scan")
               for node, _ in on_ledger), scans


def _has_rows(table: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT EXISTS (SELECT FROM {connection.ops.quote_name(table)})")
        return cursor.fetchone()[0]

