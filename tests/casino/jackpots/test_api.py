"""The jackpots API and admin: roles, coded errors, officer decisions."""

from __future__ import annotations

import datetime as dt

from django.contrib.auth.models import Group, User
from django.urls import reverse

from casino.jackpots import commands
from casino.jackpots.models import JackpotHit
from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for, post
from tests.casino.jackpots.conftest import contribute, play_hand, pool_at

VENUE = "poker-helsinki"


def test_pools_are_opened_listed_and_reconciled_over_the_api(venues):
    contribute(VENUE, dt.date(2026, 6, 15), [100])   # before the pool: still rolled up
    officer = client_for(Role.COMPLIANCE_OFFICER)      # opens and rolls up (casino.roles)
    assert post(client_for(Role.ACCOUNTANT), "/api/v1/jackpots/pools", {"venue": VENUE},
                key="p0").status_code == 403
    opened = post(officer, "/api/v1/jackpots/pools", {"venue": VENUE}, key="p1")
    assert opened.status_code == 201 and opened.json()["base_guarantee_minor"] == 100_000
    assert opened.json()["first_day"] == "2026-06-15"
    contribute(VENUE, dt.date(2026, 6, 16), [100, 100])
    rolled = post(officer, f"/api/v1/jackpots/pools/{VENUE}/bad_beat/rollups",
                  {"gaming_day": "2026-06-15"}, key="r1")
    assert rolled.status_code == 201
    assert [(r["gaming_day"], r["amount"]) for r in rolled.json()] == [("2026-06-15", "1.00")]
    history = client_for(Role.AUDITOR).get(f"/api/v1/jackpots/pools/{VENUE}/bad_beat").json()
    assert (history["pool"], history["pending"], history["reconciles"]) == (
        "1.00", "2.00", True)
    assert history["contributions"] == 3
    assert client_for(Role.TABLE_CONTROLLER).get("/api/v1/jackpots/pools").status_code == 403
    listed = client_for(Role.ACCOUNTANT).get("/api/v1/jackpots/pools").json()
    assert [p["key"] for p in listed["results"]] == [f"{VENUE}/bad_beat"]


def test_rolling_up_an_open_day_answers_409_and_writes_nothing(venues):
    pool_at(VENUE, dt.date(2026, 6, 16))
    count = Event.objects.count()
    refused = post(client_for(Role.COMPLIANCE_OFFICER),
                   f"/api/v1/jackpots/pools/{VENUE}/bad_beat/rollups",
                   {"gaming_day": "2026-06-16"}, key="r1")
    assert refused.status_code == 409
    assert refused.json()["code"] == "jackpots.gaming_day_not_closed"
    assert Event.objects.count() == count
    unknown = client_for(Role.AUDITOR).get("/api/v1/jackpots/pools/nowhere/bad_beat")
    assert (unknown.status_code, unknown.json()["code"]) == (404, "jackpots.unknown_pool")


def test_officer_rejects_with_a_reason_and_only_officers_decide(table):
    hand_id, _ = play_hand(table)
    officer = client_for(Role.COMPLIANCE_OFFICER, "officer-ville")
    url = f"/api/v1/jackpots/hits/{hand_id}"
    assert client_for(Role.AUDITOR).get(url).json()["state"] == "hit"
    assert post(client_for(Role.ACCOUNTANT), f"{url}/approve", {}, key="a").status_code == 403
    no_reason = post(officer, f"{url}/reject", {}, key="x1")
    assert no_reason.status_code == 400
    rejected = post(officer, f"{url}/reject", {"reason": "cards shown during the deal"},
                    key="x2")
    assert rejected.status_code == 201
    assert (rejected.json()["state"], rejected.json()["rejected_by"]) == (
        "rejected", "officer-ville")
    again = post(officer, f"{url}/reject", {"reason": "cards shown during the deal"},
                 key="x2")
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    late = post(officer, f"{url}/approve", {}, key="a2")
    assert (late.status_code, late.json()["code"]) == (409, "jackpots.hit_not_pending")


def test_admin_lists_hits_read_only_and_officers_approve_and_pay_by_action(client, table):
    """The admin action runs the same commands as the API, as the signed-in
    officer; a superuser without the role is refused."""
    hand_id, _ = play_hand(table)
    admin_user = User.objects.create_superuser("root", "root@example.com", "pw")
    client.login(username="root", password="pw")
    changelist = reverse("admin:jackpots_jackpothit_changelist")
    assert client.get(changelist).status_code == 200
    change = client.post(reverse("admin:jackpots_jackpothit_change", args=[hand_id]), {})
    assert change.status_code == 403
    client.post(changelist, {"action": "approve_hits", "_selected_action": [hand_id]})
    assert JackpotHit.objects.get(id=hand_id).state == "hit"
    admin_user.groups.add(Group.objects.get(name=Role.COMPLIANCE_OFFICER))
    client.post(changelist, {"action": "approve_hits", "_selected_action": [hand_id]})
    client.post(changelist, {"action": "pay_hits", "_selected_action": [hand_id]})
    # The approver may not pay (issue 16: the command's two-person rule).
    assert JackpotHit.objects.get(id=hand_id).state == "approved"
    second = User.objects.create_superuser("root-2", "root2@example.com", "pw")
    second.groups.add(Group.objects.get(name=Role.COMPLIANCE_OFFICER))
    client.login(username="root-2", password="pw")
    client.post(changelist, {"action": "pay_hits", "_selected_action": [hand_id]})
    hit = JackpotHit.objects.get(id=hand_id)
    assert (hit.state, hit.approved_by, hit.paid_by) == ("paid", "root", "root-2")
    for name in ("jackpotpool", "jackpotrollup"):
        assert client.get(reverse(f"admin:jackpots_{name}_changelist")).status_code == 200
    assert commands.pay_hit  # the action used the command (state above)
