"""One place where errors become HTTP answers, all in one shape.

Every 4xx answer of the API is `{"code", "message", "details"}` (the
`Error` component of the OpenAPI schema), and its status is the code's one
row in casino.error_table; no raise site says a status:

- a coded domain error (every `LedgerError`, the runner's and the casino
  apps' errors, the engines' refusals: anything carrying `code` and
  `message`) keeps its code and details;
- a request the serializers refuse is `request.invalid` (400) with the
  per-field messages in `details` and the first of them in `message`;
- a value the database cannot hold (a number out of range: PostgreSQL's
  data exceptions) is `request.invalid` (400): it can only come from the
  request, and the statement's transaction has rolled back;
- a lost database connection that the runner's retries did not outlast (a
  failover under way) is `request.database_unavailable` (503, Retry-After):
  the client may resend under the same Idempotency-Key, which is safe
  whether or not the first attempt committed;
- DRF's other refusals get the framework's codes (FRAMEWORK_CODES):
  `auth.not_authenticated`, `auth.authentication_failed`,
  `auth.permission_denied`, `request.not_found`,
  `request.method_not_allowed`, `request.parse_error`,
  `request.not_acceptable`, `request.unsupported_media_type`,
  `request.throttled`.

Anything else is a programming error and is left to Django (a 500), as is a
code without a row in the table.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import DataError, InterfaceError, OperationalError
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from casino.error_table import status_for
from casino.runner import connection_lost

INVALID = "request.invalid"
DATABASE_UNAVAILABLE = "request.database_unavailable"
RETRY_AFTER_SECONDS = 1
# DRF's refusals by class (subclasses first), each to its framework code.
FRAMEWORK_CODES: tuple[tuple[type[exceptions.APIException], str], ...] = (
    (exceptions.ValidationError, INVALID),
    (exceptions.ParseError, "request.parse_error"),
    (exceptions.NotAuthenticated, "auth.not_authenticated"),
    (exceptions.AuthenticationFailed, "auth.authentication_failed"),
    (exceptions.PermissionDenied, "auth.permission_denied"),
    (exceptions.NotFound, "request.not_found"),
    (exceptions.MethodNotAllowed, "request.method_not_allowed"),
    (exceptions.NotAcceptable, "request.not_acceptable"),
    (exceptions.UnsupportedMediaType, "request.unsupported_media_type"),
    (exceptions.Throttled, "request.throttled"),
)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    code = getattr(exc, "code", None)
    message = getattr(exc, "message", None)
    if (code is not None and isinstance(message, str)
            and not isinstance(exc, exceptions.APIException)):
        return Response(
            {"code": str(code), "message": message, "details": getattr(exc, "details", {})},
            status=status_for(code),
        )
    if isinstance(exc, (OperationalError, InterfaceError)) and connection_lost(exc):
        return Response({"code": DATABASE_UNAVAILABLE,
                         "message": "the database is unavailable (a failover may be under way);"
                                    " resend under the same Idempotency-Key",
                         "details": {}}, status=status_for(DATABASE_UNAVAILABLE),
                        headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
    if isinstance(exc, DataError):
        return Response({"code": INVALID,
                         "message": "a value in the request is out of range",
                         "details": {}}, status=status_for(INVALID))
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
        response.data = {"code": INVALID, "message": _first_message(details),
                         "details": details}
        response.status_code = status_for(INVALID)
    elif isinstance(exc, exceptions.APIException):
        code = framework_code(exc)
        response.data = {"code": code, "message": str(exc.detail), "details": {}}
        response.status_code = status_for(code)
    return response


def framework_code(exc: exceptions.APIException) -> str:
    """The framework's code for one of DRF's refusals (KeyError: a class without one)."""
    for kind, code in FRAMEWORK_CODES:
        if isinstance(exc, kind):
            return code
    raise KeyError(type(exc).__name__)


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
