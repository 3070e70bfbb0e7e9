"""Project-wide views: answers for requests no view of an app handles."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import page_not_found


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """A URL that matches no route: the API answers in its own `Error` shape."""
    if request.path.startswith("/api/"):
        return JsonResponse({"code": "request.not_found",
                             "message": f"no such API resource: {request.path}",
                             "details": {}}, status=404)
    return page_not_found(request, exception)
