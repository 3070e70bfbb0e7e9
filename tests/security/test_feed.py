"""The event feed by role (issue 16, item 3).

Real traffic (players registered, a cash deposit over the AML threshold and
its alert, refused stakes, a case with a note) is read back through
`GET events` by every role and by a user in none. For each role: every
event it is shown is of a family it may read through that family's own
operation (the operation is called and is not refused); it is shown every
event it may read; and unless it is a compliance officer or an auditor, no
personal datum (name, birth date, document) and no case or alert content
appears anywhere in the answer.
"""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from django.contrib.auth.models import Group, User

from casino.cage.commands import deposit
from casino.compliance.cases import add_case_note, open_case
from casino.compliance.errors import AttemptRejected
from casino.compliance.models import Alert, AlertKind
from casino.compliance.pipeline import Attempt, authorize
from casino.players.commands import register_player
from casino.roles import (FEED_READS, MATRIX, PERSONAL_DATA_ROLES, Role, ensure_role_groups,
                          feed_operation, may_read_event)
from ledger.models import Event
from tests.casino.api.conftest import client_for
from tests.casino.conftest import NOON

ROLES = [*Role, None]
CASE_NOTE = "Source of funds unclear: casino-ledger-case-note-7731"
SECRETS = ("Ilona", "Ahonen", "1990-04-01", "FI7654321", CASE_NOTE)


@pytest.fixture
def traffic(venues):
    ensure_role_groups()
    officer = User.objects.create_user("olli")
    officer.groups.add(Group.objects.get(name=Role.COMPLIANCE_OFFICER))
    player = register_player(given_name="Ilona", family_name="Ahonen",
                             date_of_birth=dt.date(1990, 4, 1), nationality="FI",
                             document_type="passport", document_number="FI7654321",
                             actor="cashier", at=NOON - dt.timedelta(days=30))
    from casino.players.commands import set_limit, verify_identity
    verify_identity(player_id=player.id, method="bank_id", actor="cashier",
                    at=NOON - dt.timedelta(days=30))
    for kind in ("daily_spend", "monthly_spend"):
        set_limit(player_id=player.id, kind=kind, value=10_000_000_00,
                  venue_code="ray-online", actor="cashier", at=NOON - dt.timedelta(days=30))
    deposit(player_id=player.id, venue="casino-helsinki", amount_minor=2_500_00,
            currency="EUR", method="cash", actor="cashier", idempotency_key="dep-1", at=NOON)
    with pytest.raises(AttemptRejected):
        authorize(Attempt(kind="stake", venue="hall-helsinki", currency="EUR",
                          player_id=player.id, game="roulette", bet_unit="number_field",
                          amount_minor=4_01, at=NOON), actor="dealer", idempotency_key="st-1")
    alert = Alert.objects.get(kind=AlertKind.AML_THRESHOLD)
    case = open_case(actor="olli", alert_id=alert.id, idempotency_key="case-1")
    add_case_note(case_id=case.id, text=CASE_NOTE, actor="olli", idempotency_key="note-1")
    return player


def read_feed(client) -> tuple[list[dict], str]:
    """The whole feed, every book, as one client reads it page by page after its vector
    cursor; and the raw answers."""
    events, raw, cursor = [], [], ""
    while True:
        answer = client.get("/api/v1/events", {"cursor": cursor, "limit": 7})
        assert answer.status_code == 200, answer.content
        raw.append(answer.content.decode())
        body = answer.json()
        events += body["events"]
        if not body["has_more"]:
            return events, "".join(raw)
        cursor = body["next_cursor"]


@pytest.mark.parametrize("role", ROLES, ids=[str(r) if r else "no-role" for r in ROLES])
def test_no_role_reads_through_the_feed_what_it_is_refused_elsewhere(traffic, role):
    client = client_for(role)
    shown, raw = read_feed(client)
    roles = frozenset({role}) if role else frozenset()
    every = list(Event.objects.order_by("position").values_list("position", "type"))
    # Shown exactly what the role may read, each book in order, nothing twice.
    positions = [e["position"] for e in shown]
    assert sorted(positions) == [
        position for position, kind in every if may_read_event(roles, kind)]
    for book in {e["book"] for e in shown}:
        mine = [e["position"] for e in shown if e["book"] == book]
        assert mine == sorted(set(mine))
    # And each family shown is readable by the role through its own operation.
    for family in sorted({feed_operation(e["type"]) for e in shown} - {None}):
        method, path = family.split(" ", 1)
        url = re.sub(r"\{\w+\}", "no-such-thing", path)
        assert client.get(url).status_code not in (401, 403), (role, family)
    if roles & PERSONAL_DATA_ROLES:
        assert len(shown) == len(every)
        # (the document number is not in the log at all: players keep a digest)
        assert [secret for secret in SECRETS if secret not in raw] == ["FI7654321"]
    else:
        leaks = [secret for secret in SECRETS if secret in raw]
        assert leaks == [], (role, leaks)
        assert not any(e["type"].startswith(("compliance.alert", "compliance.case",
                                              "compliance.attempt")) for e in shown)


def test_a_cage_client_sees_its_players_registration_with_the_personal_data_hidden(traffic):
    shown, _ = read_feed(client_for(Role.CAGE))
    registered = [e for e in shown if e["type"] == "players.player_registered"]
    assert len(registered) == 1
    payload = registered[0]["payload"]
    assert payload["player_id"] == traffic.id
    assert {"given_name", "family_name", "date_of_birth", "document_hint",
            "identity_key"} <= set(payload["redacted"])
    assert payload["given_name"] is None and payload["document_hint"] is None


def test_every_feed_family_names_an_operation_of_the_matrix():
    assert all(key in MATRIX for key in FEED_READS.values())
    # Deny by default: an unknown family only for officers and auditors.
    assert not may_read_event(frozenset({Role.CAGE}), "newapp.something")
    assert may_read_event(frozenset({Role.AUDITOR}), "newapp.something")
    assert json.dumps(sorted(FEED_READS))   # plain data
