"""Request and correlation ids across Celery (casino/ops/task_ids.py, issue 18 item 6).

A task run by a real worker appends its events under the ids its message
carries; an eager task outside a request runs under its own task id; a task
sent inside a request gets the request's ids in its headers.
"""

from __future__ import annotations

import pytest

from casino.ops.task_ids import add_ids_to_message
from casino.reports.tasks import close_day
from casino.runner import set_request_ids
from ledger.models import Event
from tests.integration.conftest import (celery_client, celery_processes,  # noqa: F401
                                        redis_url, wait_for)

DAY = "2026-06-15"
WORKER = ("worker", "-c", "1", "--pool", "prefork", "-l", "info", "--without-gossip",
          "--without-mingle", "--without-heartbeat")


def _closes(venue: str) -> list[Event]:
    return list(Event.objects.filter(type="reports.day_closed", payload__venue=venue))


def test_a_message_sent_inside_a_request_carries_its_ids():
    set_request_ids("req-9", "corr-9")
    try:
        headers: dict = {}
        add_ids_to_message(headers=headers)
        assert headers == {"casino_request_id": "req-9", "casino_correlation_id": "corr-9"}
    finally:
        set_request_ids("", "")
    headers = {}
    add_ids_to_message(headers=headers)
    assert headers == {}


@pytest.mark.django_db
def test_an_eager_task_outside_a_request_runs_under_its_task_id(venues):
    result = close_day.apply(args=("casino-helsinki", DAY))
    assert result.successful(), result.traceback
    (event,) = _closes("casino-helsinki")
    assert event.metadata["request_id"] == result.id
    assert event.metadata["correlation_id"] == result.id


def test_a_worker_runs_the_task_under_the_ids_of_its_message(venues, celery_processes,
                                                             celery_client):
    celery_processes.start("worker", *WORKER, "-n", "ids@%h")
    result = celery_client.send_task("reports.close_day", args=["casino-helsinki", DAY],
                                     headers={"casino_request_id": "req-w1",
                                              "casino_correlation_id": "corr-w1"})
    result.get(timeout=120)
    wait_for(lambda: bool(_closes("casino-helsinki")), timeout=60,
             what="the close appended by the worker", logs=[celery_processes.log("worker")])
    (event,) = _closes("casino-helsinki")
    assert event.metadata["request_id"] == "req-w1"
    assert event.metadata["correlation_id"] == "corr-w1"
