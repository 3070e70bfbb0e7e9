"""Table-games accounting's REST API: a table's opening, fills, credits, close, soft count.

Each write validates its body, calls one command (casino.tablegames.commands,
through the runner) and answers 201 with the table's session; a retry under
the same Idempotency-Key answers the first outcome. Counts are {denomination
in minor units: pieces}. Fills and credits are written by the cage or the
table controller, each naming both signers.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api import PERMISSIONS, ErrorSerializer, StrictSerializer, idempotency_key
from casino.locations import feed_location
from casino.roles import Role

from .. import commands
from ..models import TableSession

READERS = (Role.CAGE, Role.TABLE_CONTROLLER, Role.COMPLIANCE_OFFICER, Role.ACCOUNTANT,
           Role.AUDITOR)
KEY = OpenApiParameter("Idempotency-Key", location=OpenApiParameter.HEADER, required=True)
ERRORS = {400: ErrorSerializer, 404: ErrorSerializer, 409: ErrorSerializer}


def count_field(help_text: str) -> serializers.DictField:
    return serializers.DictField(child=serializers.IntegerField(min_value=0),
                                 allow_empty=True, help_text=help_text)


def signers(help_text: str) -> serializers.ListField:
    return serializers.ListField(child=serializers.CharField(max_length=150), min_length=2,
                                 max_length=2, help_text=help_text)


class InventorySerializer(StrictSerializer):
    venue = serializers.CharField(max_length=60)
    inventory = count_field("Chips in the tray by denomination (minor units): pieces.")
    signed_by = signers("Dealer and pit supervisor.")


class SlipSerializer(StrictSerializer):
    venue = serializers.CharField(max_length=60)
    chips = count_field("Chips on the slip by denomination (minor units): pieces.")
    signed_by = signers("[cage, table]: the two who signed the slip.")


class SoftCountSerializer(StrictSerializer):
    venue = serializers.CharField(max_length=60)
    first_count = count_field("The first counter's count of the drop box.")
    second_count = count_field("The second counter's count (the drop).")
    counted_by = signers("The two counters.")


class SessionSerializer(serializers.ModelSerializer):
    class Meta:
        model = TableSession
        fields = ["id", "venue", "table", "state", "gaming_day", "opening_inventory",
                  "opening_minor", "fills_minor", "credits_minor", "closing_inventory",
                  "closing_minor", "drop_minor", "count_variance_minor", "counted_by",
                  "win_minor", "hold_basis_points"]


class _TableWrite(APIView):
    permission_classes = PERMISSIONS
    roles_read = READERS
    roles_write = (Role.CAGE, Role.TABLE_CONTROLLER)
    request_serializer: type[StrictSerializer]

    def post(self, request: Request, table: str) -> Response:
        key = idempotency_key(request)
        body = self.request_serializer(data=request.data)
        body.is_valid(raise_exception=True)
        result = self.run(table, body.validated_data, request.user.get_username(), key)
        return Response(SessionSerializer(result["session"]).data, status=201,
                        headers={"Location": feed_location(request, result["position"])})


def _schema(serializer, summary: str):
    return extend_schema(summary=summary, request=serializer, parameters=[KEY],
                         responses={201: SessionSerializer, **ERRORS})


class OpeningsView(_TableWrite):
    request_serializer = InventorySerializer

    @_schema(InventorySerializer, "Open a table with its chip inventory")
    def post(self, request: Request, table: str) -> Response:
        return super().post(request, table)

    def run(self, table, data, actor, key):
        return commands.open_table(venue=data["venue"], table=table,
                                   inventory=data["inventory"], signed_by=data["signed_by"],
                                   actor=actor, idempotency_key=key)


class FillsView(_TableWrite):
    request_serializer = SlipSerializer

    @_schema(SlipSerializer, "Fill a table with chips from the cage (two signatures)")
    def post(self, request: Request, table: str) -> Response:
        return super().post(request, table)

    def run(self, table, data, actor, key):
        return commands.fill(venue=data["venue"], table=table, chips=data["chips"],
                             signed_by=data["signed_by"], actor=actor, idempotency_key=key)


class CreditsView(_TableWrite):
    request_serializer = SlipSerializer

    @_schema(SlipSerializer, "Send chips from a table back to the cage (two signatures)")
    def post(self, request: Request, table: str) -> Response:
        return super().post(request, table)

    def run(self, table, data, actor, key):
        return commands.credit(venue=data["venue"], table=table, chips=data["chips"],
                               signed_by=data["signed_by"], actor=actor, idempotency_key=key)


class ClosesView(_TableWrite):
    request_serializer = InventorySerializer

    @_schema(InventorySerializer, "Close a table with its chip inventory")
    def post(self, request: Request, table: str) -> Response:
        return super().post(request, table)

    def run(self, table, data, actor, key):
        return commands.close_table(venue=data["venue"], table=table,
                                    inventory=data["inventory"], signed_by=data["signed_by"],
                                    actor=actor, idempotency_key=key)


class SoftCountsView(_TableWrite):
    request_serializer = SoftCountSerializer

    @_schema(SoftCountSerializer, "Count a table's drop box (two counters)")
    def post(self, request: Request, table: str) -> Response:
        return super().post(request, table)

    def run(self, table, data, actor, key):
        return commands.soft_count(venue=data["venue"], table=table,
                                   first_count=data["first_count"],
                                   second_count=data["second_count"],
                                   counted_by=data["counted_by"], actor=actor,
                                   idempotency_key=key)
