"""Chain verification recorded as an event: who verified, what it said (L8)."""

from __future__ import annotations

from django.db import connection

from casino.compliance.models import ChainVerification
from casino.compliance.verification import verify_and_record
from ledger import rebuild_projections
from ledger.models import Event
from tests.casino.conftest import make_player


def _tamper(sql: str, params=None) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(sql, params)
        cursor.execute("SET LOCAL session_replication_role = origin")


def test_an_intact_chain_is_recorded_ok_with_the_head_it_reached(venues):
    make_player()
    head = Event.objects.order_by("-position").first()
    result = verify_and_record(actor="olli")
    assert (result.ok, result.head_position, result.head_hash, result.bad_position) == (
        True, head.position, head.hash, None)
    assert result.events == head.position
    event = Event.objects.get(position=result.position)
    assert (event.type, event.stream, event.metadata["actor"]) == (
        "compliance.chain_verified", "compliance/chain", "olli")
    assert event.position == head.position + 1


def test_an_altered_event_is_recorded_with_its_position_and_why(venues):
    """The first bad position and the problem go into the record."""
    make_player()
    target = Event.objects.filter(type="players.player_registered").get()
    _tamper("UPDATE ledger_event SET payload = %s WHERE position = %s",
            ['{"given_name": "Mallory"}', target.position])
    result = verify_and_record(actor="olli")
    assert not result.ok
    assert result.bad_position == target.position
    assert result.problem == "content does not match its hash (the event was altered)"
    assert ChainVerification.objects.get().ok is False


def test_a_repeated_key_returns_the_first_verification(venues):
    first = verify_and_record(actor="olli", idempotency_key="verify-1")
    again = verify_and_record(actor="olli", idempotency_key="verify-1")
    assert again.position == first.position
    assert ChainVerification.objects.count() == 1


def test_rebuild_reproduces_the_verifications(venues):
    verify_and_record(actor="olli")
    verify_and_record(actor="outi")
    live = list(ChainVerification.objects.order_by("position").values())
    rebuild_projections()
    assert list(ChainVerification.objects.order_by("position").values()) == live
