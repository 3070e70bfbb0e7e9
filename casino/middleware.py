"""Request-scoped state the write path reads, reset for every request."""

from __future__ import annotations

from typing import Callable

from django.http import HttpRequest, HttpResponse

from casino.runner import reset_client_time


class BusinessTimeMiddleware:
    """Start and end every request with no client business time recorded.

    A write's `occurred_at` (casino.api.StrictSerializer) lives in a context
    variable for the request it came with; a worker thread serving the next
    request must not inherit it.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        reset_client_time()
        try:
            return self.get_response(request)
        finally:
            reset_client_time()
