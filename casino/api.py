"""Conventions every casino API view shares.

- Money crosses the API as a decimal string in major units ("150.00"), or
  an integer number of minor units where a field says `_minor`; never a
  JSON float. `MoneyField` turns the string into integer minor units and
  refuses fractions of a cent, negatives, zero and floats with a 400.
- Every write needs an `Idempotency-Key` header (1-200 printable ASCII
  characters); `idempotency_key(request)` reads it or raises a 400.
- Views declare `roles_read` and `roles_write` (casino.roles.HasRole).
- Coded errors become 4xx answers in casino.exception_handler.
"""

from __future__ import annotations

import re
from typing import Any
from decimal import Decimal, InvalidOperation

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from django.http import QueryDict
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.roles import HasRole
from casino.runner import set_client_time

IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,200}$")
MONEY = re.compile(r"^[0-9]{1,10}(\.[0-9]{1,2})?$")
PERMISSIONS = [IsAuthenticated, HasRole]


def idempotency_key(request) -> str:
    """Return the request's Idempotency-Key header, or raise a 400."""
    key = request.headers.get("Idempotency-Key")
    if key is None:
        raise ValidationError({"Idempotency-Key": ["this header is required for every write"]})
    if not IDEMPOTENCY_KEY.match(key):
        raise ValidationError({"Idempotency-Key": ["1 to 200 printable ASCII characters"]})
    return f"{request.user.pk}:{key}"


class StrictSerializer(serializers.Serializer):
    """A request body with a field the endpoint does not take is refused (400).

    A client that sends `"currency": "USD"` to an endpoint without a
    currency must hear about it rather than have it ignored. Read-only
    fields count as unknown in a request. Nested serializers of this class
    check their own objects.
    """

    default_error_messages = {
        "unknown_field": "unknown field: this endpoint does not take it",
    }

    def get_fields(self):
        fields = super().get_fields()
        if self.parent is None and "occurred_at" not in fields:
            # Business time: a table or cage system that lost its connection
            # sends its buffered actions later (casino.runner checks it).
            fields["occurred_at"] = serializers.DateTimeField(
                required=False, write_only=True,
                help_text="When it happened, if not now (ISO 8601 with an offset):"
                          " at most 30 s ahead of the server's clock, and not on a"
                          " gaming day the venue has closed.")
        return fields

    def to_internal_value(self, data):
        if isinstance(data, dict) and not isinstance(data, QueryDict):
            writable = {name for name, field in self.fields.items() if not field.read_only}
            unknown = sorted(str(name) for name in data if name not in writable)
            if unknown:
                raise ValidationError(
                    {name: [self.error_messages["unknown_field"]] for name in unknown})
        value = super().to_internal_value(data)
        if self.parent is None and isinstance(value, dict):
            occurred_at = value.pop("occurred_at", None)
            if occurred_at is not None:
                set_client_time(occurred_at)
        return value


class ErrorSerializer(serializers.Serializer):
    """The body of every coded 4xx answer (casino.exception_handler)."""

    code = serializers.CharField(help_text="Stable error code `<app>.<reason>`, e.g."
                                           " `players.unknown_player`; every code is listed"
                                           " (casino.error_table), each with one status.")
    message = serializers.CharField()
    details = serializers.DictField(help_text="What the code refers to: ids, limits, cites.")


BAD_REQUEST = OpenApiResponse(
    ErrorSerializer,
    description="Malformed request: `request.invalid` with the per-field messages in"
                " `details` (a missing Idempotency-Key header included), or a coded error.")


@extend_schema_field({"type": "string", "pattern": MONEY.pattern, "example": "150.00"})
class MoneyField(serializers.Field):
    """A positive amount in major units as a string, stored as minor units."""

    default_error_messages = {
        "invalid": 'give the amount as a string with at most two decimals, e.g. "150.00"',
        "positive": "the amount must be greater than zero",
    }

    def to_internal_value(self, data) -> int:
        if isinstance(data, bool) or not isinstance(data, (str, int)):
            self.fail("invalid")
        text = str(data).strip()
        if not MONEY.match(text):
            self.fail("invalid")
        try:
            minor = int(Decimal(text) * 100)
        except InvalidOperation:
            self.fail("invalid")
        if minor <= 0:
            self.fail("positive")
        return minor

    def to_representation(self, value: int) -> str:
        sign = "-" if value < 0 else ""
        return f"{sign}{abs(value) // 100}.{abs(value) % 100:02d}"


IDEMPOTENCY_KEY_HEADER = OpenApiParameter(
    "Idempotency-Key", location=OpenApiParameter.HEADER, required=True,
    description="1-200 printable ASCII characters; a retry with the same key and body"
                " returns the first answer and writes nothing.")


def write_schema(request_serializer, response_serializer, summary: str,
                 errors: dict[int, OpenApiResponse]):
    """The schema of a keyed write that answers 201 with `response_serializer`."""
    return extend_schema(summary=summary, request=request_serializer,
                         parameters=[IDEMPOTENCY_KEY_HEADER],
                         responses={201: response_serializer, **errors})


class KeyedWriteView(APIView):
    """A view whose writes carry an Idempotency-Key and answer 201.

    A retry under the same key answers the first body again, marked with
    `Idempotent-Replayed: true`.
    """

    permission_classes = PERMISSIONS

    def _body(self, request: Request, serializer: type[serializers.Serializer]
              ) -> tuple[str, dict[str, Any]]:
        key = idempotency_key(request)
        body = serializer(data=request.data)
        body.is_valid(raise_exception=True)
        return key, body.validated_data

    @staticmethod
    def _created(data: Any, replayed: bool) -> Response:
        headers = {"Idempotent-Replayed": "true"} if replayed else {}
        return Response(data, status=201, headers=headers)
