"""One place where errors become HTTP answers, all in one shape.

Every 4xx answer of the API is `{"code", "message", "details"}` (the
`Error` component of the OpenAPI schema):

- a coded domain error (every `LedgerError` and the casino apps' errors:
  anything carrying `code`, `status` and `message`) keeps its code, status
  and details;
- a request the serializers refuse is `invalid_request` (400) with the
  per-field messages in `details` and the first of them in `message`;
- a value the database cannot hold (a number out of range: PostgreSQL's
  data exceptions) is `invalid_request` (400): it can only come from the
  request, and the statement's transaction has rolled back;
- DRF's other refusals keep their status and DRF's own code:
  `not_authenticated`, `authentication_failed`, `permission_denied`,
  `not_found`, `method_not_allowed`, `parse_error`, `not_acceptable`,
  `unsupported_media_type`, `throttled`.

Anything else is a programming error and is left to Django (a 500).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import DataError
from django.http import Http404
from rest_framework import exceptions
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
    if isinstance(exc, DataError):
        return Response({"code": "invalid_request",
                         "message": "a value in the request is out of range",
                         "details": {}}, status=400)
    # Django's own 404 and 403 become DRF's, as DRF's handler would do.
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(*exc.args)
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(*exc.args)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        details = response.data if isinstance(response.data, dict) else {"errors": response.data}
        response.data = {"code": "invalid_request", "message": _first_message(details),
                         "details": details}
    elif isinstance(exc, exceptions.APIException):
        codes = exc.get_codes()
        response.data = {"code": codes if isinstance(codes, str) else exc.default_code,
                         "message": str(exc.detail), "details": {}}
    return response


def _first_message(details: Any, path: str = "") -> str:
    """The first field message, prefixed by where it is: `amount: a positive amount`."""
    if isinstance(details, dict):
        for key, value in details.items():
            where = f"{path}.{key}" if path else str(key)
            if key == "non_field_errors":
                where = path
            return _first_message(value, where)
    if isinstance(details, list) and details:
        return _first_message(details[0], path)
    text = str(details) or "the request is invalid"
    return f"{path}: {text}" if path else text
