"""The demo's two gaming days: the facts it promises, and that it is idempotent.

The demo runs once per module (a small evening: 4 hands per table and day,
3 rounds per house table) inside a transaction that is rolled back at the
end, so its writes never reach the other tests. Each test then reads what
that run left. Rules cited are the ones the demo exercises.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection, transaction

from casino.compliance.models import Alert, AlertKind
from casino.demo import gaming_day
from casino.demo.gaming_day import DAYS, run_demo
from casino.demo.summary import summarize
from casino.demo.users import PASSWORD, ensure_demo_users
from casino.games.events import BET_PLACED
from casino.games.models import Round, RoundState
from casino.jackpots.events import CONTRIBUTIONS_ROLLED_UP
from casino.jackpots.models import HitState, JackpotHit, JackpotPool
from casino.players.models import Player
from casino.poker.events import HAND_STARTED, HAND_VOIDED
from casino.poker.models import Hand, HandStatus
from casino.reports.models import DayClose, DaySeal, JournalExport
from casino.roles import Role, has_role
from ledger import rebuild_projections, verify_chain
from ledger.models import Account, Event

SEED = 11
SMALL = dict(seed=SEED, hands_per_day=4, rounds_per_day=3)


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker, tmp_path_factory):
    """One small demo run, rolled back after the module's tests."""
    out_dir = tmp_path_factory.mktemp("demo")
    with django_db_blocker.unblock():
        with transaction.atomic():
            result = run_demo(**SMALL, out_dir=out_dir)
            yield result
            transaction.set_rollback(True)


def rejections(rule: str) -> list[Event]:
    return [e for e in Event.objects.filter(type="compliance.attempt_rejected")
            if e.payload["rule"] == rule]


def test_the_bad_beat_is_a_jackpot_hit_awaiting_approval(demo, db):
    """000:L2880-2898: aces full of kings, both hole cards, beaten by four kings with
    five or more dealt (000:L2816-2819) is a category 1 hit; nobody approves it."""
    hit = JackpotHit.objects.get(pk=demo.facts["bad_beat_hand"])
    assert hit.state == HitState.HIT
    assert hit.category == 1
    seats = demo.facts["bad_beat_seats"]
    assert hit.roles[str(seats["loser"])] == "loser"
    assert hit.roles[str(seats["winner"])] == "winner"
    assert len(hit.players) >= 5
    assert JackpotHit.objects.count() == 1  # the random hands hit nothing
    assert JackpotPool.objects.get(venue="poker-helsinki").status == "hit"


def test_cash_over_the_due_diligence_threshold_raises_one_aml_alert(demo, db):
    """EU 2015/849 art. 11(d): EUR 2,500 cash at once reaches EUR 2,000."""
    alerts = Alert.objects.filter(kind=AlertKind.AML_THRESHOLD)
    assert alerts.count() == 1
    assert alerts.get().player_id == Player.objects.get(given_name="Aino").id
    assert demo.facts["aml_alerts"] == ("aml_threshold",)


def test_refusals_are_recorded_with_their_rule(demo, db):
    """002:L3349 (hall entry cap), 002:L3078 (own daily limit), 002:L3086
    (self-exclusion), 002:L3031 (identity first): each refused and recorded."""
    for rule in ("compliance.max_stake", "compliance.daily_spend_limit",
                 "compliance.self_excluded", "compliance.identity_unverified"):
        assert len(rejections(rule)) == 1, rule
    entry = rejections("compliance.max_stake")[0]
    assert entry.payload["attempt"]["venue"] == "hall-helsinki"
    assert entry.payload["attempt"]["amount_minor"] == 55_00
    assert entry.payload["limit_minor"] == 50_00


def test_an_overdraft_is_refused_and_writes_nothing(demo, db):
    """No credit (002:L3033): the withdrawal is refused before the ledger."""
    assert demo.facts["overdraft_refusal"] == "cage.insufficient_funds"
    key = f"demo/{SEED}/cage/0/overdraft"
    assert not Event.objects.filter(idempotency_key=key).exists()


def test_a_stake_above_the_table_maximum_is_partly_void(demo, db):
    """Decision games.stake_above_maximum: EUR 150 on a EUR 100 table, EUR 50 void."""
    bet = next(e for e in Event.objects.filter(type=BET_PLACED)
               if e.payload["bet_id"] == demo.facts["stake_void_bet"])
    assert (bet.payload["stake_minor_offered"], bet.payload["stake_minor"],
            bet.payload["void_minor"]) == (150_00, 100_00, 50_00)
    assert sum(p.amount_minor for p in bet.postings.all() if p.amount_minor > 0) == 100_00


def test_the_misdeal_is_voided_with_the_stacks_as_dealt(demo, db):
    """000:L1093-1110: a misdeal returns every blind."""
    hand = Hand.objects.get(pk=demo.facts["misdeal_hand"])
    assert hand.state == HandStatus.VOIDED
    voided = Event.objects.get(stream__startswith="hand/", type=HAND_VOIDED)
    started = Event.objects.get(stream=voided.stream, type=HAND_STARTED)
    assert "misdeal" in voided.payload["reason"]
    assert voided.payload["stacks_minor_after"] == started.payload["stacks_minor"]


def test_the_disputed_showdown_and_payout_wait_for_an_officer(demo, db):
    hand = Hand.objects.get(pk=demo.facts["disputed_hand"])
    assert hand.state == HandStatus.DISPUTED
    assert Alert.objects.filter(kind=AlertKind.SHOWDOWN_MISMATCH).count() == 1
    round_ = Round.objects.get(pk=demo.facts["disputed_round"])
    assert round_.state == RoundState.DISPUTED
    assert Alert.objects.filter(kind=AlertKind.PAYOUT_MISMATCH).count() == 1


def test_day_one_is_rolled_up_through_celery_before_day_two(demo, db):
    """000:L2872-2873: the day's drops go to the pool at its end."""
    rollups = Event.objects.filter(type=CONTRIBUTIONS_ROLLED_UP).order_by("position")
    assert [e.gaming_day for e in rollups] == list(DAYS)
    first = rollups[0]
    assert first.payload["amount_minor"] > 0
    assert first.metadata["actor"] == "celery"
    day_two_hands = Event.objects.filter(type=HAND_STARTED, gaming_day=DAYS[1])
    assert first.position < min(e.position for e in day_two_hands)


def test_every_venue_closes_both_days_reconciled(demo, db):
    closes = DayClose.objects.filter(gaming_day__in=DAYS)
    assert closes.count() == len(gaming_day.VENUES) * len(DAYS)
    assert all(close.reconciled for close in closes)


def test_the_export_is_recorded_with_the_files_hash(demo, db):
    for part, expected in demo.facts["exports"].items():
        with open(expected["path"], "rb") as file:
            digest = hashlib.sha256(file.read()).hexdigest()
        record = JournalExport.objects.get(position=expected["position"])
        assert (record.part, record.sha256, record.first_day, record.last_day) == (
            part, digest, DAYS[0], DAYS[1])
        assert record.rows > 0


def test_both_days_are_sealed_and_the_chain_verifies(demo, db):
    assert set(DaySeal.objects.values_list("gaming_day", flat=True)) >= set(DAYS)
    assert verify_chain().ok


def test_only_command_events_and_business_time(demo, db):
    """No ad-hoc demo events; every event is dated in the demo's weeks, not today.

    Except where a command takes no business time and the ledger dates the
    event by the database's clock: rulebook loads, venue registrations,
    account openings and the jackpots' hit record."""
    types = set(Event.objects.values_list("type", flat=True))
    assert not [t for t in types if t.startswith("demo.")]
    assert {t.split(".")[0] for t in types} <= {
        "rules", "players", "cage", "compliance", "poker", "games", "jackpots",
        "sitngo",
        "tournaments", "reports", "ledger", "machines", "cashier", "tablegames"}
    earliest = dt.datetime(2026, 5, 1, tzinfo=dt.timezone.utc)
    latest = dt.datetime(2026, 6, 19, tzinfo=dt.timezone.utc)
    undated = ("rules.rulebook_loaded", "rules.venue_registered", "ledger.account_opened",
               "jackpots.hit_recorded")
    outside = Event.objects.exclude(occurred_at__range=(earliest, latest)).exclude(
        type__in=undated)
    assert sorted(set(outside.values_list("type", flat=True))) == []


def test_a_second_run_appends_nothing_and_prints_the_same_summary(demo, db, tmp_path):
    before = summarize(DAYS).lines()
    digests = {part: e["sha256"] for part, e in demo.facts["exports"].items()}
    again = run_demo(**SMALL, out_dir=tmp_path)
    assert again.appended == 0
    assert summarize(DAYS).lines() == before
    assert {part: e["sha256"] for part, e in again.facts["exports"].items()} == digests
    assert all(e["matches_record"] for e in again.facts["exports"].values())
    assert _comparable(again.facts) == _comparable(demo.facts)
    assert all(r["replayed"] for r in again.facts["rollups"].values())


def test_the_command_prints_the_verification_summary_and_logins(demo, db, tmp_path):
    out = io.StringIO()
    call_command("demo", "--seed", str(SEED), "--hands", "4", "--rounds", "3",
                 "--out-dir", str(tmp_path), "--no-progress", stdout=out)
    text = out.getvalue()
    assert "This run appended 0 events" in text
    assert "verify_ledger: OK" in text
    assert "closes       12, reconciled yes" in text
    assert "pending approvals  1 (jackpot hits 1" in text
    for username in ("officer", "officer2", "accountant"):
        assert f"  {username} " in text
    assert f"login officer / {PASSWORD}" in text


def test_the_demo_users_have_roles_not_superpowers(db):
    """The admin opens for the officers by their role (casino.officers.backends)."""
    ensure_demo_users()
    ensure_demo_users()  # idempotent
    User = get_user_model()
    officer = User.objects.get(username="officer")
    assert officer.is_staff and not officer.is_superuser
    assert officer.check_password(PASSWORD)
    assert has_role(officer, Role.COMPLIANCE_OFFICER)
    assert has_role(User.objects.get(username="officer2"), Role.COMPLIANCE_OFFICER)
    accountant = User.objects.get(username="accountant")
    assert accountant.is_staff and has_role(accountant, Role.ACCOUNTANT)
    assert not has_role(accountant, Role.COMPLIANCE_OFFICER)
    assert officer.has_perm("poker.view_hand")
    assert not officer.has_perm("poker.change_hand")
    assert User.objects.filter(username__in=["officer", "officer2", "accountant"]).count() == 3


def test_the_rake_and_pool_balances_match_the_ledger(demo, db):
    summary = summarize(DAYS)
    rake = sum(a.balance_minor for a in Account.objects.filter(code__endswith="/rake",
                                                               code__startswith="house/"))
    assert summary.rake_minor == rake > 0
    pool = JackpotPool.objects.get(venue="poker-helsinki")
    assert summary.jackpot_pool_minor == Account.objects.get(code=pool.pool_account).balance_minor
    assert summary.jackpot_pool_minor == sum(
        e.payload["amount_minor"] for e in Event.objects.filter(type=CONTRIBUTIONS_ROLLED_UP))


def _comparable(facts: dict) -> dict:
    """The facts without what differs by design: the file's place, the replay flags."""
    exports = {part: {k: v for k, v in export.items() if k != "path"}
               for part, export in facts["exports"].items()}
    return {**{k: v for k, v in facts.items() if k != "rollups"}, "exports": exports}


def test_zz_a_rebuild_reproduces_every_projection_after_the_demo(demo, db):
    """L9 over everything the demo touches (last in the module: it rebuilds the
    projections the other tests read, which must come back row for row,
    keys included)."""
    live = snapshot()
    rebuild_projections()
    rebuilt = snapshot()
    assert {t: (live[t], rebuilt[t]) for t in live if rebuilt[t] != live[t]} == {}
    assert live["jackpots_jackpotrollup"] and live["poker_hand"] and live["games_round"]


# The log and Django's own tables are not projections.
NOT_PROJECTIONS = {"ledger_event", "ledger_posting", "ledger_idempotency", "ledger_head"}
FRAMEWORK_APPS = {"admin", "auth", "contenttypes", "sessions", "authtoken"}


def snapshot() -> dict[str, list[tuple]]:
    tables = sorted(model._meta.db_table for model in apps.get_models()
                    if model._meta.app_label not in FRAMEWORK_APPS
                    and model._meta.db_table not in NOT_PROJECTIONS and model._meta.managed)
    rows = {}
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"SELECT * FROM {table} ORDER BY 1")
            rows[table] = cursor.fetchall()
    return rows
