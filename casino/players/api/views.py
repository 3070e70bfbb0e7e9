"""The players API: registration, identity verification, self-exclusion and
player-set limits.

Each write validates the body, calls one command of casino.players.commands
with the caller as actor and the request's Idempotency-Key, and serializes
what the command returns; the command decides and its coded errors become
4xx answers in casino.exception_handler.

Roles. A player record is personal data (name, date of birth, nationality,
document hint), so it is read only by those who need it: the cage (who
serves the player), compliance officers (who act on it) and auditors (who
check both). Accountants and table controllers work on accounts and tables,
not people, and do not read it. The cage registers players. A player's own
requests (verification, self-exclusion, limits) are taken at the cage or by a
compliance officer online, so both may record them.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino import clock
from casino.api import BAD_REQUEST, ErrorSerializer, PERMISSIONS, idempotency_key
from casino.pagination import CursorListView
from casino.roles import Role

from ..commands import load_player, register_player, self_exclude, set_limit, verify_identity
from ..models import PlayerLimit
from .serializers import (
    IdentityVerificationSerializer,
    LimitSettingSerializer,
    PlayerLimitSerializer,
    PlayerRegistrationSerializer,
    PlayerSerializer,
    SelfExclusionSerializer,
)

PERSONAL_DATA_READERS = (Role.CAGE, Role.COMPLIANCE_OFFICER, Role.AUDITOR)
PLAYER_REQUEST_TAKERS = (Role.CAGE, Role.COMPLIANCE_OFFICER)

UNKNOWN_PLAYER = OpenApiResponse(ErrorSerializer,
                                 description="`players.unknown_player` (or an unknown"
                                             " venue: `rules.unknown_venue`).")
CONFLICT = OpenApiResponse(ErrorSerializer, description="The Idempotency-Key was used for a"
                                                        " different request, or the state"
                                                        " forbids it (coded).")


class PlayerRegistrationView(APIView):
    """Register a player; the document number is never returned.

    Roles: write cage; read (no GET here) cage, compliance_officer, auditor.
    A second registration of the same document is a 409
    (`players.duplicate_identity`), unless it is a retry under the same key.
    """

    permission_classes = PERMISSIONS
    roles_read = PERSONAL_DATA_READERS
    roles_write = (Role.CAGE,)

    @extend_schema(
        request=PlayerRegistrationSerializer,
        responses={201: PlayerSerializer, 400: BAD_REQUEST, 409: CONFLICT},
    )
    def post(self, request: Request) -> Response:
        key = idempotency_key(request)
        body = PlayerRegistrationSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player = register_player(**body.validated_data, actor=request.user.username,
                                 idempotency_key=key)
        return Response(PlayerSerializer(player).data, status=201)


class PlayerDetailsView(APIView):
    """A player: identity (without the document number), verification and
    self-exclusion.

    Roles: read cage, compliance_officer, auditor (personal data).
    """

    permission_classes = PERMISSIONS
    roles_read = PERSONAL_DATA_READERS
    roles_write = ()

    @extend_schema(responses={200: PlayerSerializer, 404: UNKNOWN_PLAYER})
    def get(self, request: Request, player_id: str) -> Response:
        return Response(PlayerSerializer(load_player(player_id)).data)


class IdentityVerificationView(APIView):
    """Record that the player's identity was verified, and by which method.

    Roles: write cage, compliance_officer; read cage, compliance_officer,
    auditor.
    """

    permission_classes = PERMISSIONS
    roles_read = PERSONAL_DATA_READERS
    roles_write = PLAYER_REQUEST_TAKERS

    @extend_schema(
        request=IdentityVerificationSerializer,
        responses={200: PlayerSerializer, 400: BAD_REQUEST, 404: UNKNOWN_PLAYER, 409: CONFLICT},
    )
    def post(self, request: Request, player_id: str) -> Response:
        key = idempotency_key(request)
        body = IdentityVerificationSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player = verify_identity(player_id=player_id, method=body.validated_data["method"],
                                 actor=request.user.username, idempotency_key=key)
        return Response(PlayerSerializer(player).data)


class SelfExclusionView(APIView):
    """Exclude the player from all play, at once, for 1 to 12 months.

    The maximum is the venue rulebook's (002:L3086); a running exclusion
    cannot be changed. Roles: write cage, compliance_officer; read cage,
    compliance_officer, auditor.
    """

    permission_classes = PERMISSIONS
    roles_read = PERSONAL_DATA_READERS
    roles_write = PLAYER_REQUEST_TAKERS

    @extend_schema(
        request=SelfExclusionSerializer,
        responses={200: PlayerSerializer, 400: BAD_REQUEST, 404: UNKNOWN_PLAYER, 409: CONFLICT},
    )
    def post(self, request: Request, player_id: str) -> Response:
        key = idempotency_key(request)
        body = SelfExclusionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        player = self_exclude(player_id=player_id, months=body.validated_data["months"],
                              venue_code=body.validated_data["venue"],
                              actor=request.user.username, idempotency_key=key)
        return Response(PlayerSerializer(player).data)


class PlayerLimitsView(CursorListView):
    """The player's own limits: GET lists them as they stand now; POST sets one.

    Lowering applies at once; raising waits out the venue rulebook's
    cooling-off and shows as `pending_value` until then. Roles: read cage,
    compliance_officer, auditor; write cage, compliance_officer.
    """

    permission_classes = PERMISSIONS
    roles_read = PERSONAL_DATA_READERS
    roles_write = PLAYER_REQUEST_TAKERS
    queryset = PlayerLimit.objects.none()       # the model, for the schema
    serializer_class = PlayerLimitSerializer
    ordering = "kind"

    def get_queryset(self):
        return PlayerLimit.objects.filter(player=load_player(self.kwargs["player_id"]))

    def get_serializer_context(self) -> dict:
        return {**super().get_serializer_context(), "now": clock.now()}

    @extend_schema(responses={200: PlayerLimitSerializer(many=True), 404: UNKNOWN_PLAYER})
    def get(self, request: Request, player_id: str) -> Response:
        return self.list(request)

    @extend_schema(
        request=LimitSettingSerializer,
        responses={200: PlayerLimitSerializer, 400: BAD_REQUEST, 404: UNKNOWN_PLAYER,
                   409: CONFLICT},
    )
    def post(self, request: Request, player_id: str) -> Response:
        key = idempotency_key(request)
        body = LimitSettingSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        limit = set_limit(player_id=player_id, kind=body.validated_data["kind"],
                          value=body.validated_data["value"],
                          venue_code=body.validated_data["venue"],
                          actor=request.user.username, idempotency_key=key)
        return Response(PlayerLimitSerializer(limit, context={"now": clock.now()}).data)
