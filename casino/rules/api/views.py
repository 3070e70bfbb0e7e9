"""The rules read API: rulebook versions with their cited rows, and venues.

Everything here is public reference data inside the operator, so every role
reads it; nothing is written through this API (rulebooks are loaded by
`manage.py load_rulebooks`, venues registered by casino.rules.commands).
"""

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api import PERMISSIONS
from casino.roles import Role

from .. import queries
from ..errors import RulesError, RulesErrorCode
from ..models import RulebookVersion, Venue
from .serializers import (
    ErrorSerializer,
    RulebookVersionDetailsSerializer,
    RulebookVersionSerializer,
    VenueSerializer,
)

EVERY_ROLE = tuple(Role)


class RulebookVersionsView(APIView):
    """Every loaded rulebook version, by rulebook id and version.

    Roles: every role reads.
    """

    permission_classes = PERMISSIONS
    roles_read = EVERY_ROLE
    roles_write = ()

    @extend_schema(responses=RulebookVersionSerializer(many=True))
    def get(self, request: Request) -> Response:
        versions = RulebookVersion.objects.all()
        return Response(RulebookVersionSerializer(versions, many=True).data)


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


class VenuesView(APIView):
    """Every registered venue and the rulebook it plays under.

    Roles: every role reads.
    """

    permission_classes = PERMISSIONS
    roles_read = EVERY_ROLE
    roles_write = ()

    @extend_schema(responses=VenueSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(VenueSerializer(Venue.objects.all(), many=True).data)


class VenueDetailsView(APIView):
    """One venue: its rulebook, currency, time zone and gaming-day start.

    Roles: every role reads.
    """

    permission_classes = PERMISSIONS
    roles_read = EVERY_ROLE
    roles_write = ()

    @extend_schema(responses={200: VenueSerializer, 404: ErrorSerializer})
    def get(self, request: Request, code: str) -> Response:
        return Response(VenueSerializer(queries.venue(code)).data)
