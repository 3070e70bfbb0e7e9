"""Request-scoped state the write path reads, reset for every request."""

from __future__ import annotations

from typing import Callable

from django.http import HttpRequest, HttpResponse

from casino.runner import replays, reset_client_time

REPLAYED_HEADER = "Idempotent-Replayed"


class WriteRequestMiddleware:
    """Request-scoped state of the write path, and the replay header.

    A write's `occurred_at` (casino.api.StrictSerializer) lives in a context
    variable for the request it came with; a worker thread serving the next
    request must not inherit it, so it is reset at both ends. A successful
    answer whose every write was a replay of a recorded request carries
    `Idempotent-Replayed: true`, whichever view served it.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        reset_client_time()
        try:
            response = self.get_response(request)
            ran = replays()
            if ran and all(ran) and response.status_code < 300:
                response[REPLAYED_HEADER] = "true"
            return response
        finally:
            reset_client_time()
