"""One place where coded domain errors become HTTP answers.

Any exception carrying `code`, `status` and `message` (every `LedgerError`
and the casino apps' errors) becomes `{"code", "message", "details"}` with
its 4xx status; everything else goes to DRF's default handler, which turns
validation errors into 400s with per-field messages.
"""

from __future__ import annotations

from typing import Any

from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    code = getattr(exc, "code", None)
    status = getattr(exc, "status", None)
    message = getattr(exc, "message", None)
    if code is not None and isinstance(status, int) and isinstance(message, str):
        return Response(
            {"code": str(code), "message": message, "details": getattr(exc, "details", {})},
            status=status,
        )
    return drf_exception_handler(exc, context)
