"""The request id and correlation id: into every event's metadata, the answer
and every log line of the request (casino/ops/middleware.py, issue 18 item 6)."""

from __future__ import annotations

import io
import json
import logging
import logging.config

import pytest

from casino.ops.logs import configure
from casino.roles import Role
from ledger.models import Event
from tests.casino.api.conftest import client_for, post

REGISTRATION = {"given_name": "Aino", "family_name": "Virtanen", "date_of_birth": "1990-05-01",
                "nationality": "FI", "document_type": "passport", "document_number": "XP1111111"}

pytestmark = pytest.mark.django_db


def _new_events(after: int) -> list[Event]:
    return list(Event.objects.filter(position__gt=after).order_by("position"))


def _head() -> int:
    last = Event.objects.order_by("-position").first()
    return last.position if last else 0


def test_an_api_write_carries_the_clients_request_and_correlation_ids(venues):
    cage = client_for(Role.CAGE)
    head = _head()
    response = cage.post("/api/v1/players", REGISTRATION, format="json",
                         headers={"Idempotency-Key": "r-1", "X-Request-Id": "req-42",
                                  "X-Correlation-Id": "shift-7:cage-2"})
    assert response.status_code == 201
    assert response["X-Request-Id"] == "req-42"
    assert response["X-Correlation-Id"] == "shift-7:cage-2"
    events = _new_events(head)
    assert events
    for event in events:
        assert event.metadata["request_id"] == "req-42"
        assert event.metadata["correlation_id"] == "shift-7:cage-2"


def test_without_headers_a_request_id_is_made_and_is_the_correlation_id(venues):
    cage = client_for(Role.CAGE)
    head = _head()
    response = post(cage, "/api/v1/players", {**REGISTRATION, "document_number": "XP2222222"},
                    key="r-2")
    assert response.status_code == 201
    made = response["X-Request-Id"]
    assert len(made) == 32
    events = _new_events(head)
    assert events and all(event.metadata["request_id"] == made for event in events)
    assert all(event.metadata["correlation_id"] == made for event in events)


def test_an_unsafe_request_id_is_replaced_and_ids_do_not_leak_into_the_next_request(venues):
    cage = client_for(Role.CAGE)
    response = post(cage, "/api/v1/players", {**REGISTRATION, "document_number": "XP3333333"},
                    key="r-3")
    first = response["X-Request-Id"]
    head = _head()
    bad = cage.post("/api/v1/players", {**REGISTRATION, "document_number": "XP4444444"},
                    format="json", headers={"Idempotency-Key": "r-4",
                                            "X-Request-Id": "bad id\nwith newline"})
    assert bad.status_code == 201
    made = bad["X-Request-Id"]
    assert made != first and "\n" not in made and " " not in made
    assert {event.metadata["request_id"] for event in _new_events(head)} == {made}


def test_every_log_line_of_a_request_is_json_with_its_request_id(venues):
    stream = io.StringIO()
    formatters = configure("json")
    handler = logging.StreamHandler(stream)
    logging.config.dictConfig({"version": 1, "disable_existing_loggers": False,
                               "formatters": formatters,
                               "handlers": {"capture": {"class": "logging.StreamHandler",
                                                        "stream": stream,
                                                        "formatter": "structured"}},
                               "loggers": {"casino.request": {"handlers": ["capture"],
                                                              "level": "INFO"}}})
    try:
        cage = client_for(Role.CAGE)
        response = cage.post("/api/v1/players", {**REGISTRATION, "document_number": "XP5555555"},
                             format="json", headers={"Idempotency-Key": "r-5",
                                                     "X-Request-Id": "log-1"})
        assert response.status_code == 201
        lines = [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]
        access = [line for line in lines if line["event"] == "http.request"]
        assert access, lines
        assert access[-1]["request_id"] == "log-1"
        assert access[-1]["correlation_id"] == "log-1"
        assert access[-1]["route"] == "/api/v1/players" and access[-1]["status"] == 201
        assert access[-1]["level"] == "info" and access[-1]["timestamp"].endswith("Z")
    finally:
        logging.getLogger("casino.request").handlers.clear()
        logging.getLogger("casino.request").setLevel(logging.NOTSET)
        handler.close()
