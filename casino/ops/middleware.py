"""Request id, structured access log and per-route metrics (issue 18 items 5 and 6).

Every request gets a request id: the client's `X-Request-Id` when it is a
plain token (letters, digits, `.`, `_`, `-`, `:`; at most 64), otherwise a new
one; and a correlation id: the client's `X-Correlation-Id` (same form), else
the request id. Both are
  - bound to the structured log context (every log line of the request
    carries them, casino/ops/logs.py),
  - handed to the command runner (casino.runner.set_request_ids), which puts
    them into the metadata of every event the request appends,
  - echoed in the answer's `X-Request-Id` and `X-Correlation-Id`.
"""

from __future__ import annotations

import re
import time
import uuid
from typing import Callable

import structlog
from django.http import HttpRequest, HttpResponse

from casino.runner import set_request_ids

from .metrics import REFUSALS, REQUEST_SECONDS

_TOKEN = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
log = structlog.get_logger("casino.request")


def _token(value: str | None) -> str | None:
    return value if value and _TOKEN.match(value) else None


def _route(request: HttpRequest) -> str:
    match = getattr(request, "resolver_match", None)
    if match is None:
        return "<unmatched>"
    return "/" + match.route if match.route else match.view_name or "<unnamed>"


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request_id = _token(request.headers.get("X-Request-Id")) or uuid.uuid4().hex
        correlation_id = _token(request.headers.get("X-Correlation-Id")) or request_id
        request.request_id = request_id
        request.correlation_id = correlation_id
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=request_id,
                                               correlation_id=correlation_id)
        set_request_ids(request_id, correlation_id)
        started = time.perf_counter()
        try:
            response = self.get_response(request)
        finally:
            set_request_ids("", "")
        elapsed = time.perf_counter() - started
        route = _route(request)
        REQUEST_SECONDS.labels(request.method, route, str(response.status_code)).observe(elapsed)
        code = None
        if 400 <= response.status_code < 500:
            data = getattr(response, "data", None)
            if isinstance(data, dict) and isinstance(data.get("code"), str):
                code = data["code"]
                REFUSALS.labels(code).inc()
        response["X-Request-Id"] = request_id
        response["X-Correlation-Id"] = correlation_id
        log.info("http.request", method=request.method, route=route,
                 status=response.status_code, duration_ms=round(elapsed * 1000, 2),
                 **({"code": code} if code else {}))
        structlog.contextvars.clear_contextvars()
        return response
