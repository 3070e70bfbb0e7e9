"""Erasure of a player's personal data by destroying their key (issue 18 item 8).

The retention period is the rulebooks' figure retention.aml_records.years
(5, decision retention.aml_records: EU 2015/849 art. 40; the seeds set
none); the two-person approval is casino.roles.TWO_PERSON_RULES'
privacy.approve_erasure.
"""

from __future__ import annotations

import datetime as dt
import logging

import pytest
from django.db import connection
from django.test import Client

from casino.cage.commands import deposit
from casino.compliance.cases import open_case
from casino.compliance.models import Alert, AlertKind
from casino.players.commands import identity_key, register_player, verify_identity
from casino.players.models import Player
from casino.privacy.commands import approve_erasure, propose_erasure, retention_years
from casino.privacy.errors import PrivacyError
from casino.privacy.models import PersonalKey
from casino.reports.commands import close_day
from casino.reports.models import DayClose
from casino.reports.suspicious import str_xml
from casino.roles import Role
from ledger import NewEvent, append, rebuild_projections, verify_ledger
from ledger.models import Account, Event
from tests.casino.api.conftest import client_for
from tests.casino.conftest import NOON
from tests.casino.officers.conftest import signed_in, staff

GIVEN, FAMILY, BORN = "Ilmatar", "Kalevantytär", dt.date(1971, 3, 14)
DOCUMENT = "XK4455667"
SECRETS = [GIVEN, FAMILY, BORN.isoformat(), DOCUMENT, identity_key("FI", "passport", DOCUMENT)]
LATER = NOON + dt.timedelta(days=5 * 366 + 1)       # past the 5 years after the last event


def _player() -> Player:
    player = register_player(given_name=GIVEN, family_name=FAMILY, date_of_birth=BORN,
                             nationality="FI", document_type="passport",
                             document_number=DOCUMENT, actor="cage-1", at=NOON)
    verify_identity(player_id=player.id, method="bank_id", actor="cage-1", at=NOON)
    return player


def _rows_holding(text: str) -> list[str]:
    """Every table with a row whose text contains `text` (case-insensitive)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        tables = [row[0] for row in cursor.fetchall()]
        found = []
        for table in tables:
            cursor.execute(f'SELECT count(*) FROM "{table}" AS row WHERE row::text ILIKE %s',
                           [f"%{text}%"])
            if cursor.fetchone()[0]:
                found.append(table)
    return found


def _feed(client) -> str:
    raw, after = [], 0
    while True:
        answer = client.get(f"/api/v1/events?after={after}&limit=500")
        raw.append(answer.content.decode())
        body = answer.json()
        if body["next_after"] == after:
            return "".join(raw)
        after = body["next_after"]


def test_the_registration_enters_the_log_sealed_and_reads_back(venues):
    player = _player()
    event = Event.objects.get(type="players.player_registered", stream=f"player/{player.id}")
    assert event.schema_version == 2
    assert set(event.payload) == {"player_id", "personal"}
    assert event.payload["personal"]["scheme"] == "aes-256-gcm/1"
    for secret in SECRETS:
        assert secret not in str(event.payload)
    assert (player.given_name, player.family_name, player.date_of_birth) == (GIVEN, FAMILY, BORN)
    officer_feed = _feed(client_for(Role.COMPLIANCE_OFFICER))
    assert GIVEN in officer_feed and BORN.isoformat() in officer_feed     # opened for officers
    assert GIVEN not in _feed(client_for(Role.CAGE))                       # hidden from the cage


def test_a_registration_from_before_keeps_its_plaintext_and_reads_as_it_did(venues):
    """Schema 1 events (personal data in clear) are not rewritten: read as they are."""
    append([NewEvent(stream="player/old1", type="players.player_registered",
                     payload={"player_id": "old1", "given_name": "Vanha", "family_name": "Pelaaja",
                              "date_of_birth": "1960-01-02", "nationality": "FI",
                              "document_type": "passport", "identity_key": "0" * 64,
                              "document_hint": "…123"}, occurred_at=NOON)],
           expected_versions={"player/old1": 0})
    assert Player.objects.get(id="old1").given_name == "Vanha"


def test_erasure_waits_for_the_retention_period(venues):
    player = _player()
    assert retention_years(NOON.date()) == 5
    with pytest.raises(PrivacyError) as refused:
        propose_erasure(player_id=player.id, reason="asked", actor="olli",
                        at=NOON + dt.timedelta(days=4 * 365))
    assert refused.value.code == "privacy.retention_not_over"
    assert refused.value.details["due"] == "2031-06-16"
    assert PersonalKey.objects.get(subject=player.id).key is not None


def test_an_erased_player_is_unreadable_everywhere_and_the_money_and_chain_are_whole(
        venues, caplog):
    caplog.set_level(logging.DEBUG)
    player = _player()
    deposit(player_id=player.id, venue="casino-helsinki", amount_minor=3_000_00,
            currency="EUR", actor="cage-1", idempotency_key="dep-1", at=NOON)
    staff("olli", Role.COMPLIANCE_OFFICER)
    alert = Alert.objects.get(kind=AlertKind.AML_THRESHOLD)
    case = open_case(actor="olli", alert_id=alert.id, idempotency_key="case-1")
    close_day(venue="casino-helsinki", gaming_day=NOON.date(), actor="accountant",
              at=NOON + dt.timedelta(days=1))
    assert GIVEN in str_xml(case.id, officer_first="O", officer_last="O").decode()
    balances = dict(Account.objects.filter(code__contains=player.id)
                    .values_list("code", "balance_minor"))
    assert balances
    closes = list(DayClose.objects.order_by("pk").values())
    assert _rows_holding(GIVEN) == ["players_player"]          # the projection only
    staff("outi", Role.COMPLIANCE_OFFICER)
    registered = Event.objects.get(type="players.player_registered", stream=f"player/{player.id}")
    before = signed_in("outi").get(f"/admin/ledger/event/{registered.position}/change/")
    assert GIVEN in before.content.decode()                     # opened for the officer

    # Two officers: the proposer cannot approve.
    propose_erasure(player_id=player.id, reason="5 years since the last event",
                    actor="olli", at=LATER, idempotency_key="erase-1")
    with pytest.raises(PrivacyError) as refused:
        approve_erasure(player_id=player.id, actor="olli", at=LATER, idempotency_key="ok-1")
    assert refused.value.code == "privacy.approver_is_proposer"
    assert Event.objects.filter(type="privacy.four_eyes_refused").count() == 1
    assert PersonalKey.objects.get(subject=player.id).key is not None
    approve_erasure(player_id=player.id, actor="outi", at=LATER, idempotency_key="ok-2")

    # Nothing readable in the database, the feed, the admin, the exports, the logs.
    assert PersonalKey.objects.get(subject=player.id).key is None
    for secret in SECRETS:
        assert _rows_holding(secret) == [], secret
    erased = Player.objects.get(id=player.id)
    assert (erased.given_name, erased.family_name) == ("erased", "erased")
    assert erased.verification_status == "unverified"
    for role in (Role.COMPLIANCE_OFFICER, Role.AUDITOR, Role.CAGE):
        feed = _feed(client_for(role))
        assert '"personal":"erased"' in feed.replace(" ", "")
        for secret in SECRETS:
            assert secret not in feed, (role, secret)
    officer = signed_in("olli")
    pages = [f"/admin/players/player/{player.id}/change/", "/admin/players/player/",
             f"/admin/ledger/event/{registered.position}/change/", "/admin/ledger/event/"]
    for page in pages:
        answer = officer.get(page)
        assert answer.status_code == 200, page
        for secret in SECRETS:
            assert secret not in answer.content.decode(), (page, secret)
    assert "erased" in officer.get(pages[2]).content.decode()    # the event, as the admin shows it
    report = str_xml(case.id, officer_first="O", officer_last="O").decode()
    assert "erased" in report
    for secret in SECRETS:
        assert secret not in report
    for secret in SECRETS:
        assert secret not in caplog.text

    # The chain, the money and the closes are as they were; a rebuild agrees.
    assert verify_ledger().ok
    assert dict(Account.objects.filter(code__contains=player.id)
                .values_list("code", "balance_minor")) == balances
    assert list(DayClose.objects.order_by("pk").values()) == closes
    rebuild_projections()
    assert Player.objects.get(id=player.id).given_name == "erased"
    assert verify_ledger().ok
    assert Client().get("/api/v1/events").status_code == 401     # (the feed needs a client)


def test_the_api_refuses_the_proposers_approval_and_lets_a_second_officer_erase(venues):
    player = register_player(given_name=GIVEN, family_name=FAMILY, date_of_birth=BORN,
                             nationality="FI", document_type="passport",
                             document_number=DOCUMENT, actor="cage-1",
                             at=NOON - dt.timedelta(days=6 * 366))
    olli, outi = client_for(Role.COMPLIANCE_OFFICER), client_for(Role.COMPLIANCE_OFFICER)
    url = f"/api/v1/players/{player.id}/erasures"
    proposed = olli.post(url, {"reason": "retention over"}, format="json",
                         headers={"Idempotency-Key": "p-1"})
    assert proposed.status_code == 201, proposed.content
    assert proposed.json()["state"] == "proposed"
    own = olli.post(f"{url}/approve", {}, format="json", headers={"Idempotency-Key": "a-1"})
    assert (own.status_code, own.json()["code"]) == (403, "privacy.approver_is_proposer")
    done = outi.post(f"{url}/approve", {}, format="json", headers={"Idempotency-Key": "a-2"})
    assert (done.status_code, done.json()["state"]) == (201, "erased")
    cage = client_for(Role.CAGE).post(url, {"reason": "x"}, format="json",
                                      headers={"Idempotency-Key": "p-2"})
    assert cage.status_code == 403
