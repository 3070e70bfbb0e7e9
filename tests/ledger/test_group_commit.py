"""L2: a group commit is bounded in requests and in events.

The writer holds the ledger's lock while it checks and inserts a group, so
the group's size bounds every other writer's wait. These tests drain a queue
the way the writer thread does, without the thread.
"""

import queue

import pytest
from django.db import transaction

from ledger import writer
from ledger.errors import InvariantViolation
from ledger.writer import (
    EVENTS_PER_APPEND_MAX,
    EVENTS_PER_GROUP_MAX,
    REQUESTS_PER_GROUP_MAX,
    _build_request,
    _GroupWriter,
    write_group,
)

from .factories import transfer_event


def _request(events: int):
    return _build_request([transfer_event("player/a", "cage/cash", 1)] * events,
                          None, None, None, None)


def _writer_with(items: list) -> _GroupWriter:
    """A writer whose queue holds `items`, its thread never started."""
    group_writer = _GroupWriter.__new__(_GroupWriter)
    group_writer._queue = queue.SimpleQueue()
    for item in items:
        group_writer._queue.put(item)
    return group_writer


def _sizes(group: list) -> list[int]:
    """Events of each queued item (an item: a request, or a request's linked parts)."""
    return [sum(len(request.events) for request in parts) for parts, _ in group]


def test_group_caps_relate():
    """The largest append fits in one group; a group is never empty."""
    assert 0 < EVENTS_PER_APPEND_MAX <= EVENTS_PER_GROUP_MAX
    assert REQUESTS_PER_GROUP_MAX > 1


def test_group_stops_before_the_events_cap_and_keeps_order():
    """The request that would break the events cap starts the next group."""
    third = EVENTS_PER_GROUP_MAX // 3
    items = [((_request(third),), n) for n in range(4)]
    group_writer = _writer_with(items[1:])

    group, held = group_writer._drain(items[0])
    assert _sizes(group) == [third, third, third]
    assert held is items[3]

    group, held = group_writer._drain(held)
    assert (_sizes(group), held) == ([third], None)


def test_group_of_the_largest_append_is_that_append_alone():
    """A maximal append is committed alone, however many wait behind it."""
    largest = ((_request(EVENTS_PER_APPEND_MAX),), 0)
    small = ((_request(1),), 1)
    group, held = _writer_with([small])._drain(largest)
    assert (_sizes(group), held) == ([EVENTS_PER_APPEND_MAX], small)


def test_group_stops_at_the_requests_cap(monkeypatch):
    """No more than REQUESTS_PER_GROUP_MAX requests share a commit."""
    monkeypatch.setattr(writer, "REQUESTS_PER_GROUP_MAX", 3)
    items = [((_request(1),), n) for n in range(5)]
    group_writer = _writer_with(items[1:])
    group, held = group_writer._drain(items[0])
    assert ([n for _, n in group], held) == ([0, 1, 2], None)
    assert group_writer._queue.get_nowait() is items[3]


def test_a_linked_request_counts_all_its_parts_against_the_cap():
    """A request across books is one item of its parts: it joins a group whole or waits."""
    half = EVENTS_PER_GROUP_MAX // 2
    linked = ((_request(half), _request(2)), 1)
    group, held = _writer_with([linked])._drain(((_request(half),), 0))
    assert (_sizes(group), held) == ([half], linked)


def test_stop_after_the_group_it_arrived_in():
    """A stop request ends draining and stays queued for the writer's loop."""
    items = [((_request(1),), 0), ((_request(1),), 1), None, ((_request(1),), 2)]
    group_writer = _writer_with(items[1:])
    group, held = group_writer._drain(items[0])
    assert ([n for _, n in group], held) == ([0, 1], None)
    assert group_writer._queue.get_nowait() is items[3]
    assert group_writer._queue.get_nowait() is None


def test_write_group_refuses_a_group_over_the_events_cap(db):
    """The cap is asserted where the group is written, too."""
    requests = [_request(EVENTS_PER_APPEND_MAX), _request(1)]
    with pytest.raises(InvariantViolation, match=f"at most {EVENTS_PER_GROUP_MAX} events"):
        with transaction.atomic():
            write_group(requests)
