"""The reports' REST API: the journal export, daily closes, exports, seals.

Read by accountants, auditors and compliance officers; a close is recorded
by an accountant or a compliance officer. The journal is a GET that also
records the export (`reports.journal_exported`): the record is part of
reading the books, as an auditor needs every copy accounted for.
"""

from __future__ import annotations

import datetime as dt

import django_filters
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework.exceptions import ValidationError
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api import ErrorSerializer, PERMISSIONS, idempotency_key
from casino.pagination import CursorListView
from casino.roles import Role
from casino.rules import queries as rules

from .. import commands
from ..close import compute_close
from ..models import DayClose, DaySeal, JournalExport
from ..responses import XLSX_CONTENT_TYPE, journal_response
from .serializers import (
    CloseSerializer,
    DayCloseRowSerializer,
    DaySealSerializer,
    JournalExportRowSerializer,
    JournalQuerySerializer,
)

READERS = (Role.ACCOUNTANT, Role.AUDITOR, Role.COMPLIANCE_OFFICER)
CLOSERS = (Role.ACCOUNTANT, Role.COMPLIANCE_OFFICER)
LIST_ROWS_MAX = 500
ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="Bad dates, range or parameters."),
    404: OpenApiResponse(ErrorSerializer, description="Unknown venue."),
}


class JsonForErrors(BaseContentNegotiation):
    """Render DRF's own answers (errors) as JSON whatever `format` says.

    The journal's `format` query parameter names the file's format, not a
    DRF renderer; files are returned as Django responses that skip
    rendering.
    """

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


def _day(text: str, name: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except (TypeError, ValueError):
        raise ValidationError({name: ["give an ISO date, e.g. 2026-06-16"]}) from None


@extend_schema_view(get=extend_schema(
    summary="Export the journal of a range of gaming days (CSV or XLSX)",
    parameters=[JournalQuerySerializer],
    responses={(200, "text/csv"): OpenApiTypes.BINARY,
               (200, XLSX_CONTENT_TYPE): OpenApiTypes.BINARY, 400: ERRORS[400]},
))
class JournalView(APIView):
    """One row per posting, GL codes mapped; a trial balance; streamed."""

    permission_classes = PERMISSIONS
    roles_read = READERS
    roles_write = ()
    content_negotiation_class = JsonForErrors

    def get(self, request: Request):
        query = JournalQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        return journal_response(first=data["from"], last=data["to"], format=data["format"],
                                part=data["part"], head_position=data.get("head"),
                                heads=data.get("heads"), actor=request.user.get_username())


VENUE = OpenApiParameter("venue", location=OpenApiParameter.PATH, type=str)
DAY = OpenApiParameter("day", location=OpenApiParameter.PATH, type=str,
                       description="Gaming day, ISO date.")


@extend_schema_view(
    get=extend_schema(summary="Compute a venue's close of a gaming day (not recorded)",
                      parameters=[VENUE, DAY], responses={200: CloseSerializer, **ERRORS}),
    post=extend_schema(
        summary="Record a venue's close of a gaming day (once; later calls return it)",
        parameters=[VENUE, DAY, OpenApiParameter(
            "Idempotency-Key", location=OpenApiParameter.HEADER, required=True,
            description="Required as for every write; the close itself is recorded once"
                        " per venue and gaming day whatever the key.")],
        request=None,
        responses={201: CloseSerializer, 200: CloseSerializer, **ERRORS,
                   409: OpenApiResponse(ErrorSerializer,
                                        description="The gaming day has not ended.")}),
)
class DayCloseView(APIView):
    """The daily close of one venue: drop, rake, jackpots, float, reconciled."""

    permission_classes = PERMISSIONS
    roles_read = READERS
    roles_write = CLOSERS

    def get(self, request: Request, venue: str, day: str) -> Response:
        gaming_day = _day(day, "day")
        rules.venue(venue)
        close = compute_close(venue, gaming_day)
        recorded = DayClose.objects.filter(key=f"{venue}/{gaming_day.isoformat()}").first()
        body = {**close.payload(), "position": recorded.position if recorded else None}
        return Response(CloseSerializer(body).data)

    def post(self, request: Request, venue: str, day: str) -> Response:
        key = idempotency_key(request)
        gaming_day = _day(day, "day")
        result = commands.close_day(venue=venue, gaming_day=gaming_day,
                                    actor=request.user.get_username(), idempotency_key=key)
        # 201 when this request (or the one it retries) closed the day; 200
        # with `replayed` when the day was closed already by another request.
        body = {**result.payload, "position": result.position,
                "replayed": not result.created}
        return Response(CloseSerializer(body).data, status=201 if result.created else 200)


class DayCloseFilter(django_filters.FilterSet):
    venue = django_filters.CharFilter(help_text="Closes of this venue.")
    to = django_filters.DateFilter(field_name="gaming_day", lookup_expr="lte",
                                   help_text="Last gaming day, YYYY-MM-DD.")

    class Meta:
        model = DayClose
        fields = ["venue"]


# `from` is a Python keyword, and a filter is named by its query parameter.
DayCloseFilter.base_filters["from"] = django_filters.DateFilter(
    field_name="gaming_day", lookup_expr="gte", help_text="First gaming day, YYYY-MM-DD.")


@extend_schema_view(get=extend_schema(
    summary="Recorded daily closes (newest first)",
    responses={200: DayCloseRowSerializer(many=True), 400: ERRORS[400]}))
class DayClosesView(CursorListView):
    roles_read = READERS
    roles_write = ()
    queryset = DayClose.objects.all()
    serializer_class = DayCloseRowSerializer
    filterset_class = DayCloseFilter
    ordering = ("-gaming_day", "venue")
    page_size_max = LIST_ROWS_MAX

    def get(self, request: Request) -> Response:
        return self.list(request)


@extend_schema_view(get=extend_schema(
    summary="Recorded journal exports (newest first): who, what, digest, head",
    responses={200: JournalExportRowSerializer(many=True)}))
class JournalExportsView(CursorListView):
    roles_read = READERS
    roles_write = ()
    queryset = JournalExport.objects.all()
    serializer_class = JournalExportRowSerializer
    ordering = "-position"
    page_size_max = LIST_ROWS_MAX

    def get(self, request: Request) -> Response:
        return self.list(request)


@extend_schema_view(get=extend_schema(
    summary="Daily seals (newest first): the verified head per gaming day",
    responses={200: DaySealSerializer(many=True)}))
class DaySealsView(CursorListView):
    roles_read = READERS
    roles_write = ()
    queryset = DaySeal.objects.all()
    serializer_class = DaySealSerializer
    ordering = "-gaming_day"
    page_size_max = LIST_ROWS_MAX

    def get(self, request: Request) -> Response:
        return self.list(request)
