"""Request and correlation ids across Celery (issue 18 item 6).

A task sent while a request is served carries that request's ids in its
message headers (`casino_request_id`, `casino_correlation_id`); the worker
runs the task under them, so the events the task appends name the request
that caused them. A task with no request behind it (beat) runs under its own
task id as request id and correlation id. The log context is bound the same
way. Connected in casino.ops.apps.OpsConfig.ready.
"""

from __future__ import annotations

import structlog

from casino.runner import request_ids, set_request_ids

REQUEST_HEADER = "casino_request_id"
CORRELATION_HEADER = "casino_correlation_id"
_SET_BY_US = "_casino_ids_set"


def add_ids_to_message(headers=None, **_kwargs) -> None:
    """before_task_publish: copy the current ids into the message headers."""
    request_id, correlation_id = request_ids()
    if headers is not None and request_id:
        headers.setdefault(REQUEST_HEADER, request_id)
        headers.setdefault(CORRELATION_HEADER, correlation_id or request_id)


def run_under_ids(task_id=None, task=None, **_kwargs) -> None:
    """task_prerun: run the task under the sender's ids, or its own task id."""
    if request_ids()[0]:
        return      # an eager task inside a request keeps the request's ids
    request = getattr(task, "request", None)
    request_id = getattr(request, REQUEST_HEADER, None) or task_id or ""
    correlation_id = getattr(request, CORRELATION_HEADER, None) or request_id
    set_request_ids(request_id, correlation_id)
    structlog.contextvars.bind_contextvars(request_id=request_id, correlation_id=correlation_id,
                                           task_id=task_id)
    if request is not None:
        setattr(request, _SET_BY_US, True)


def clear_ids(task=None, **_kwargs) -> None:
    """task_postrun: forget the ids this module set."""
    request = getattr(task, "request", None)
    if request is not None and getattr(request, _SET_BY_US, False):
        set_request_ids("", "")
        structlog.contextvars.unbind_contextvars("request_id", "correlation_id", "task_id")
        setattr(request, _SET_BY_US, False)


def connect() -> None:
    from celery.signals import before_task_publish, task_postrun, task_prerun

    before_task_publish.connect(add_ids_to_message, weak=False,
                                dispatch_uid="casino.ops.add_ids_to_message")
    task_prerun.connect(run_under_ids, weak=False, dispatch_uid="casino.ops.run_under_ids")
    task_postrun.connect(clear_ids, weak=False, dispatch_uid="casino.ops.clear_ids")
