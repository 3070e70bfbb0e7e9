"""Request-scoped state the write path reads, reset for every request."""

from __future__ import annotations

from typing import Callable

from django.http import HttpRequest, HttpResponse

from casino.locations import set_location
from casino.runner import replays, reset_client_time

REPLAYED_HEADER = "Idempotent-Replayed"


class WriteRequestMiddleware:
    """Request-scoped state of the write path, and the replay header.

    A write's `occurred_at` (casino.api.StrictSerializer) lives in a context
    variable for the request it came with; a worker thread serving the next
    request must not inherit it, so it is reset at both ends. A successful
    answer whose every write was a replay of a recorded request carries
    `Idempotent-Replayed: true`, whichever view served it. Every 201 of
    the API names what it created in `Location` (casino.locations).
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
            set_location(request, response)
            return response
        finally:
            reset_client_time()


class BodySizeLimitMiddleware:
    """Refuse a request body larger than settings.CASINO_BODY_BYTES_MAX with 413.

    By its declared length, before anything reads it; a body sent without a
    length is bounded by Django's DATA_UPLOAD_MAX_MEMORY_SIZE (the same
    figure), which answers 400. The answer has the API's error shape.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        from django.conf import settings
        from django.http import JsonResponse

        limit = settings.CASINO_BODY_BYTES_MAX
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > limit:
            return JsonResponse(
                {"code": BODY_TOO_LARGE, "message": f"the request body has {length} bytes;"
                 f" at most {limit} are accepted", "details": {"bytes_max": limit}},
                status=413)
        return self.get_response(request)


BODY_TOO_LARGE = "request.body_too_large"
