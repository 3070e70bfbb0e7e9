"""The rules read API: rulebook versions with their cited rows, and venues.

Everything here is public reference data inside the operator, so every role
reads it. Rulebooks are loaded by `manage.py load_rulebooks`; venues are
registered (`POST venues`) and changed (`PATCH venues/<code>`) by a
compliance officer, or by `manage.py register_venue`, through the command
runner (casino.rules.commands).
"""

import django_filters
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api import PERMISSIONS, KeyedWriteView, write_schema
from casino.pagination import CursorListView
from casino.roles import Role
from ledger import Metadata

from .. import commands, queries
from ..errors import RulesError, RulesErrorCode
from ..models import RulebookVersion, Venue, VenueType
from .serializers import (
    ErrorSerializer,
    RulebookVersionDetailsSerializer,
    RulebookVersionSerializer,
    VenueChangeSerializer,
    VenueRegistrationSerializer,
    VenueSerializer,
)

EVERY_ROLE = tuple(Role)
VENUE_WRITERS = (Role.COMPLIANCE_OFFICER,)
VENUE_ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="Malformed request."),
    404: OpenApiResponse(ErrorSerializer, description="Unknown rulebook or venue."),
    409: OpenApiResponse(ErrorSerializer, description="The venue exists, or the key was"
                         " reused for another request."),
    422: OpenApiResponse(ErrorSerializer, description="The rulebook is for another venue"
                         " type."),
}


def _metadata(request: Request) -> Metadata:
    return Metadata(actor=request.user.get_username(), source=commands.SOURCE)


class RulebookVersionFilter(django_filters.FilterSet):
    rulebook_id = django_filters.CharFilter(help_text="Versions of this rulebook.")
    venue_type = django_filters.ChoiceFilter(choices=VenueType.choices,
                                             help_text="Rulebooks for this type of venue.")

    class Meta:
        model = RulebookVersion
        fields = ["rulebook_id", "venue_type"]


class VenueFilter(django_filters.FilterSet):
    rulebook_id = django_filters.CharFilter(help_text="Venues playing under this rulebook.")
    venue_type = django_filters.ChoiceFilter(choices=VenueType.choices,
                                             help_text="Venues of this type.")

    class Meta:
        model = Venue
        fields = ["rulebook_id", "venue_type"]


class RulebookVersionsView(CursorListView):
    """Every loaded rulebook version, by rulebook id and version (cursor
    pages, casino.pagination).

    Roles: every role reads.
    """

    roles_read = EVERY_ROLE
    roles_write = ()
    queryset = RulebookVersion.objects.all()
    serializer_class = RulebookVersionSerializer
    filterset_class = RulebookVersionFilter
    ordering = ("rulebook_id", "version")

    @extend_schema(responses=RulebookVersionSerializer(many=True))
    def get(self, request: Request) -> Response:
        return self.list(request)


class RulebookVersionDetailsView(APIView):
    """One rulebook version with its stake limits, win limits, figures and
    decisions, each with the seed line it cites.

    Roles: every role reads.
    """

    permission_classes = PERMISSIONS
    roles_read = EVERY_ROLE
    roles_write = ()

    @extend_schema(responses={200: RulebookVersionDetailsSerializer, 404: ErrorSerializer})
    def get(self, request: Request, rulebook_id: str, version: int) -> Response:
        rulebook = (
            RulebookVersion.objects.filter(rulebook_id=rulebook_id, version=version)
            .prefetch_related("stake_limits", "win_limits", "figures", "decisions")
            .first()
        )
        if rulebook is None:
            raise RulesError(RulesErrorCode.UNKNOWN_RULEBOOK,
                             f"no rulebook {rulebook_id!r} version {version}",
                             rulebook_id=rulebook_id, version=version)
        return Response(RulebookVersionDetailsSerializer(rulebook).data)


class VenuesView(CursorListView, KeyedWriteView):
    """Every registered venue and the rulebook it plays under; register one.

    Roles: every role reads; a compliance officer registers.
    """

    permission_classes = PERMISSIONS
    roles_read = EVERY_ROLE
    roles_write = VENUE_WRITERS

    queryset = Venue.objects.all()
    serializer_class = VenueSerializer
    filterset_class = VenueFilter
    ordering = "code"

    @extend_schema(responses=VenueSerializer(many=True))
    def get(self, request: Request) -> Response:
        return self.list(request)

    @write_schema(VenueRegistrationSerializer, VenueSerializer,
                  "Register a venue: a hall, partner premises (18+ or not), casino or online",
                  VENUE_ERRORS)
    def post(self, request: Request) -> Response:
        key, data = self._body(request, VenueRegistrationSerializer)
        venue = commands.register_venue(
            code=data["code"], name=data["name"], rulebook_id=data["rulebook_id"],
            gaming_day_start=data.get("gaming_day_start"), venue_type=data["venue_type"],
            adults_only=data["adults_only"], metadata=_metadata(request),
            idempotency_key=key)
        return Response(VenueSerializer(venue).data, status=201)


class VenueDetailsView(APIView):
    """One venue: its rulebook, type, currency, time zone and gaming-day start.

    Roles: every role reads.
    """

    permission_classes = PERMISSIONS
    roles_read = EVERY_ROLE
    roles_write = ()

    @extend_schema(responses={200: VenueSerializer, 404: ErrorSerializer})
    def get(self, request: Request, code: str) -> Response:
        return Response(VenueSerializer(queries.venue(code)).data)


class VenueChangesView(KeyedWriteView):
    """Change a venue's name or 18+ entry (its rulebook and gaming-day start stay).

    Roles: a compliance officer changes; every role reads the venue.
    """

    permission_classes = PERMISSIONS
    roles_read = EVERY_ROLE
    roles_write = VENUE_WRITERS

    @write_schema(VenueChangeSerializer, VenueSerializer, "Change a venue's name or 18+ entry",
                  VENUE_ERRORS)
    def post(self, request: Request, code: str) -> Response:
        key, data = self._body(request, VenueChangeSerializer)
        venue = commands.change_venue(code=code, name=data.get("name"),
                                      adults_only=data.get("adults_only"),
                                      metadata=_metadata(request), idempotency_key=key)
        return Response(VenueSerializer(venue).data, status=201)
