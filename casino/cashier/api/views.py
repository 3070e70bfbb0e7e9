"""The cashier windows' REST API: open and close shifts, transfers, the shifts.

Each write validates its body (unknown fields refused), calls one command
(casino.cashier.commands, through the runner) and answers 201; a retry
under the same Idempotency-Key answers the first outcome and writes nothing.
Counts are {denomination in minor units: pieces}, e.g. {"5000": 20}.
"""

from __future__ import annotations

import django_filters
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api import PERMISSIONS, ErrorSerializer, StrictSerializer, idempotency_key
from casino.locations import feed_location
from casino.pagination import CursorListView
from casino.roles import Role

from .. import commands
from ..models import Shift, ShiftState

READERS = (Role.CAGE, Role.COMPLIANCE_OFFICER, Role.ACCOUNTANT, Role.AUDITOR)
KEY = OpenApiParameter("Idempotency-Key", location=OpenApiParameter.HEADER, required=True)
ERRORS = {400: ErrorSerializer, 404: ErrorSerializer, 409: ErrorSerializer}
SHIFTS_LISTED_MAX = 200


def count_field(help_text: str) -> serializers.DictField:
    return serializers.DictField(child=serializers.IntegerField(min_value=0),
                                 allow_empty=True, help_text=help_text)


class OpenShiftSerializer(StrictSerializer):
    venue = serializers.CharField(max_length=60)
    window = serializers.CharField(max_length=40)
    bank = count_field("The bank counted by denomination (minor units): pieces.")
    cashier = serializers.CharField(max_length=150, required=False)


class CloseShiftSerializer(StrictSerializer):
    venue = serializers.CharField(max_length=60)
    window = serializers.CharField(max_length=40)
    count = count_field("The window's count by denomination (minor units): pieces.")
    reason = serializers.CharField(max_length=500, required=False, allow_blank=True,
                                   help_text="Required when the count is over or short.")


class TransferSerializer(StrictSerializer):
    venue = serializers.CharField(max_length=60)
    source = serializers.CharField(max_length=80, help_text="vault, window:<id> or table:<id>")
    target = serializers.CharField(max_length=80, help_text="vault, window:<id> or table:<id>")
    count = count_field("The cash moved, by denomination (minor units): pieces.")
    signed_by = serializers.ListField(child=serializers.CharField(max_length=150),
                                      min_length=2, max_length=2,
                                      help_text="The two people who signed the slip.")
    note = serializers.CharField(max_length=500, required=False, allow_blank=True)


class ShiftSerializer(serializers.ModelSerializer):
    class Meta:
        model = Shift
        fields = ["id", "venue", "window", "cashier", "state", "gaming_day", "bank",
                  "bank_minor", "count", "counted_minor", "expected_minor", "over_short_minor",
                  "reason", "opened_at", "closed_at"]


class TransferResultSerializer(serializers.Serializer):
    transfer_id = serializers.CharField()
    venue = serializers.CharField()
    source = serializers.CharField()
    target = serializers.CharField()
    amount_minor = serializers.IntegerField()
    currency = serializers.CharField()
    signed_by = serializers.ListField(child=serializers.CharField())
    position = serializers.IntegerField()


def _location(request: Request, position: int | None) -> dict[str, str]:
    """The shift's event in the feed (casino.locations): a shift has no read of its own."""
    return {"Location": feed_location(request, position)} if position else {}


class _Write(APIView):
    permission_classes = PERMISSIONS
    roles_read = READERS
    roles_write = (Role.CAGE,)


class ShiftFilter(django_filters.FilterSet):
    venue = django_filters.CharFilter(help_text="Shifts at this venue.")
    state = django_filters.ChoiceFilter(choices=ShiftState.choices,
                                        help_text="open or closed.")

    class Meta:
        model = Shift
        fields = ["venue", "state"]


class ShiftsView(CursorListView, _Write):
    """GET: the shifts, latest first (of a venue with ?venue=), in cursor
    pages (casino.pagination); POST: open a shift."""

    queryset = Shift.objects.all()
    serializer_class = ShiftSerializer
    filterset_class = ShiftFilter
    ordering = "-opened_position"
    page_size_max = SHIFTS_LISTED_MAX

    @extend_schema(summary="Cashier shifts, latest first",
                   responses={200: ShiftSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return self.list(request)

    @extend_schema(summary="Open a cashier shift with a counted bank",
                   request=OpenShiftSerializer, parameters=[KEY],
                   responses={201: ShiftSerializer, **ERRORS})
    def post(self, request: Request) -> Response:
        key = idempotency_key(request)
        body = OpenShiftSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        shift = commands.open_shift(venue=data["venue"], window=data["window"],
                                    bank=data["bank"], cashier=data.get("cashier", ""),
                                    actor=request.user.get_username(), idempotency_key=key)
        return Response(ShiftSerializer(shift).data, status=201,
                        headers=_location(request, shift.opened_position))


class ShiftClosesView(_Write):
    @extend_schema(summary="Close a cashier shift with its count (over/short needs a reason)",
                   request=CloseShiftSerializer, parameters=[KEY],
                   responses={201: ShiftSerializer, **ERRORS})
    def post(self, request: Request) -> Response:
        key = idempotency_key(request)
        body = CloseShiftSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        shift = commands.close_shift(venue=data["venue"], window=data["window"],
                                     count=data["count"], reason=data.get("reason", ""),
                                     actor=request.user.get_username(), idempotency_key=key)
        return Response(ShiftSerializer(shift).data, status=201,
                        headers=_location(request, shift.closed_position))


class TransfersView(_Write):
    @extend_schema(summary="Move cash between the vault, a window and a table (two signatures)",
                   request=TransferSerializer, parameters=[KEY],
                   responses={201: TransferResultSerializer, **ERRORS})
    def post(self, request: Request) -> Response:
        key = idempotency_key(request)
        body = TransferSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        result = commands.transfer(venue=data["venue"], source=data["source"],
                                   target=data["target"], count=data["count"],
                                   signed_by=data["signed_by"], note=data.get("note", ""),
                                   actor=request.user.get_username(), idempotency_key=key)
        return Response(TransferResultSerializer(result).data, status=201)
