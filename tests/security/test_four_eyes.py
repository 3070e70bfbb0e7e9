"""Two-person rules live in the commands (issue 16, item 1).

Each row of casino.roles.TWO_PERSON_RULES is driven here through the API and
through the admin, first as the person who took the earlier step (refused
with the rule's coded 403, the refusal recorded as an event, nothing else
written, the record unchanged) and then as a second person (through). The
table below must cover every rule, so a rule added to the matrix without a
path here fails the suite.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Callable

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from casino.compliance.commands import propose_correction
from casino.compliance.models import Correction
from casino.jackpots import commands as jackpots
from casino.jackpots.models import JackpotHit
from casino.roles import TWO_PERSON_RULES, Role, ensure_role_groups
from ledger import open_account
from ledger.models import Event
from tests.casino.jackpots.conftest import play_hand
from tests.ledger.factories import transfer

_keys = itertools.count(1)


def officer(username: str) -> User:
    ensure_role_groups()
    user = User.objects.create_user(username, password="a-long-officer-pw-1", is_staff=True)
    user.groups.add(Group.objects.get(name=Role.COMPLIANCE_OFFICER))
    return user


def api(user: User) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def admin(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- the records each rule protects, after their earlier step by `first` ---

def approved_hit(request, first: str) -> str:
    hand_id, _ = play_hand(request.getfixturevalue("table"))
    jackpots.approve_hit(hit_id=hand_id, actor=first, idempotency_key=f"approve-{hand_id}")
    return hand_id


def proposed_correction(request, first: str) -> str:
    request.getfixturevalue("venues")
    open_account(code="cage/test/cash", type="asset", currency="EUR")
    open_account(code="player/x/account", type="liability", currency="EUR",
                 must_not_go_negative=True)
    open_account(code="house/test/adjustments", type="expense", currency="EUR")
    transfer("player/x/account", "cage/test/cash", 100_00)
    return propose_correction(account="player/x/account",
                              counter_account="house/test/adjustments", amount_minor=25_00,
                              reason="Goodwill for a machine fault, ticket 4411",
                              actor=first).id


def proposed_malfunction_credit(request, first: str) -> str:
    from casino.machines import malfunctions
    from tests.casino.machines.conftest import HALL, machine

    request.getfixturevalue("venues")
    return malfunctions.propose_malfunction_credit(
        machine_id=machine(HALL, credit_minor=5_00),
        device_record={"wins_minor": 12_50, "credits_minor": 0, "free_games": 0,
                       "device": "cabinet-7"},
        reason="power cut during the draw", actor=first,
        idempotency_key=f"malfunction-{next(_keys)}").credit_id


def proposed_erasure(request, first: str) -> str:
    """A player whose retention ended (last event 6 years ago), erasure proposed by `first`."""
    import datetime as dt

    from casino.players.commands import register_player
    from casino.privacy.commands import propose_erasure
    from tests.casino.conftest import NOON

    request.getfixturevalue("venues")
    player = register_player(given_name="Aino", family_name="Virtanen",
                             date_of_birth=dt.date(1980, 1, 2), nationality="FI",
                             document_type="passport", document_number=f"P{next(_keys)}0000",
                             actor="cage", at=NOON - dt.timedelta(days=6 * 366))
    propose_erasure(player_id=player.id, reason="retention over", actor=first)
    return player.id


def erasure_state(record: str) -> str:
    from casino.privacy.models import Erasure

    return Erasure.objects.get(player_id=record).state


def malfunction_state(record: str) -> str:
    from casino.machines.models import MalfunctionCredit

    return MalfunctionCredit.objects.get(id=record).state


def hit_state(record: str) -> str:
    return JackpotHit.objects.get(id=record).state


def correction_state(record: str) -> str:
    return Correction.objects.get(id=record).state


# --- how each step is taken through the API and through the admin ---

def api_post(url: str, body: dict) -> Callable[[User, str], None]:
    def take(user: User, record: str) -> None:
        api(user).post(url.format(record=record), body, format="json",
                       headers={"Idempotency-Key": f"four-eyes-{next(_keys)}"})
    return take


def admin_action(changelist: str, action: str) -> Callable[[User, str], None]:
    def take(user: User, record: str) -> None:
        admin(user).post(reverse(changelist), {"action": action, "_selected_action": [record]})
    return take


def admin_view(name: str, body: dict) -> Callable[[User, str], None]:
    def take(user: User, record: str) -> None:
        admin(user).post(reverse(name, args=[record]), body)
    return take


def desk(decision: str) -> Callable[[User, str], None]:
    def take(user: User, record: str) -> None:
        admin(user).post(reverse("admin:officers_jackpot_decision", args=[record, decision]),
                         {"form_token": f"desk-{next(_keys)}"})
    return take


@dataclass(frozen=True)
class Path:
    command: str
    setup: Callable
    state: Callable[[str], str]
    before: str         # the record's state after the earlier step
    after: str          # after the second person's step
    refusal: str        # the event type recording a refusal
    code: str
    api: Callable[[User, str], None]
    admin: tuple[Callable[[User, str], None], ...]


NOTE = {"note": "Checked the ticket on file"}
PATHS = [
    Path("jackpots.pay_hit", approved_hit, hit_state, "approved", "paid",
         "jackpots.four_eyes_refused", "jackpots.payer_is_approver",
         api_post("/api/v1/jackpots/hits/{record}/pay", {}),
         (admin_action("admin:jackpots_jackpothit_changelist", "pay_hits"), desk("pay"))),
    Path("compliance.approve_correction", proposed_correction, correction_state, "proposed",
         "posted", "compliance.four_eyes_refused", "compliance.approver_is_proposer",
         api_post("/api/v1/corrections/{record}/approve", NOTE),
         (admin_view("admin:compliance_correction_approve", NOTE),
          admin_action("admin:compliance_correction_changelist", "approve_selected"))),
    Path("compliance.reject_correction", proposed_correction, correction_state, "proposed",
         "rejected", "compliance.four_eyes_refused", "compliance.approver_is_proposer",
         api_post("/api/v1/corrections/{record}/reject", NOTE),
         (admin_view("admin:compliance_correction_reject", NOTE),)),
    Path("machines.approve_malfunction_credit", proposed_malfunction_credit, malfunction_state,
         "proposed", "approved", "machines.four_eyes_refused", "machines.approver_is_proposer",
         api_post("/api/v1/malfunction-credits/{record}/approve", NOTE), ()),
    Path("machines.reject_malfunction_credit", proposed_malfunction_credit, malfunction_state,
         "proposed", "rejected", "machines.four_eyes_refused", "machines.approver_is_proposer",
         api_post("/api/v1/malfunction-credits/{record}/reject", NOTE), ()),
    Path("privacy.approve_erasure", proposed_erasure, erasure_state, "proposed", "erased",
         "privacy.four_eyes_refused", "privacy.approver_is_proposer",
         api_post("/api/v1/players/{record}/erasures/approve", NOTE), ()),
]
API_URLS = {"jackpots.pay_hit": "/api/v1/jackpots/hits/{record}/pay",
            "compliance.approve_correction": "/api/v1/corrections/{record}/approve",
            "compliance.reject_correction": "/api/v1/corrections/{record}/reject",
            "machines.approve_malfunction_credit": "/api/v1/malfunction-credits/{record}/approve",
            "machines.reject_malfunction_credit": "/api/v1/malfunction-credits/{record}/reject",
            "privacy.approve_erasure": "/api/v1/players/{record}/erasures/approve"}
WAYS = [(path, "api", path.api) for path in PATHS] + [
    (path, f"admin-{index}", way) for path in PATHS for index, way in enumerate(path.admin)]


def test_every_two_person_rule_has_a_path_here():
    assert {rule.command for rule in TWO_PERSON_RULES} == {path.command for path in PATHS}


@pytest.mark.parametrize("path, where, take", WAYS,
                         ids=[f"{path.command}-{where}" for path, where, _ in WAYS])
def test_the_same_person_is_refused_on_the_record_and_a_second_person_goes_through(
        db, request, path, where, take):
    first, second = officer("first-officer"), officer("second-officer")
    record = path.setup(request, first.username)
    assert path.state(record) == path.before
    before = set(Event.objects.values_list("position", flat=True))   # every book's

    take(first, record)

    written = list(Event.objects.exclude(position__in=before).order_by("position"))
    assert [event.type for event in written] == [path.refusal]
    assert written[0].payload["rule"] == path.code
    assert (written[0].payload["command"], written[0].payload["actor"]) == (
        path.command, first.username)
    assert written[0].metadata["actor"] == first.username
    assert path.state(record) == path.before

    take(second, record)
    assert path.state(record) == path.after


@pytest.mark.parametrize("path", PATHS, ids=[path.command for path in PATHS])
def test_the_api_answers_the_rules_code_and_a_replay_is_refused_again(db, request, path):
    first = officer("first-officer")
    record = path.setup(request, first.username)
    client = api(first)
    url = API_URLS[path.command]
    body = {} if path.command.startswith("jackpots") else NOTE
    answers = [client.post(url.format(record=record), body, format="json",
                           headers={"Idempotency-Key": "same-key"}) for _ in range(2)]
    for answer in answers:
        assert answer.status_code == 403, answer.content
        assert answer.json()["code"] == path.code
    assert answers[0].json() == answers[1].json()
    assert Event.objects.filter(type=path.refusal).count() == 1
    assert path.state(record) == path.before
