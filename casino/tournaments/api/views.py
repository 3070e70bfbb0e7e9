"""The tournaments REST API: announce, act on a tournament, read it.

Every write takes an `Idempotency-Key`, calls one command and answers 201
with the outcome; a retry under the same key answers the same, marked
`Idempotent-Replayed: true`. GET shows the prize pool and the payout table
before any money is paid, then the payout.
"""

from __future__ import annotations

from typing import Any, Callable

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api import ErrorSerializer, PERMISSIONS, idempotency_key
from casino.roles import Role

from .. import commands
from ..errors import TournamentError, TournamentErrorCode
from ..models import Tournament
from . import serializers as s

READERS = (Role.CAGE, Role.TABLE_CONTROLLER, Role.COMPLIANCE_OFFICER, Role.ACCOUNTANT,
           Role.AUDITOR)
WRITERS = (Role.TABLE_CONTROLLER,)      # casino.roles.MATRIX
MONEY_WRITERS = (Role.CAGE, Role.TABLE_CONTROLLER)     # entries, rebuys, add-ons
IDEMPOTENCY_KEY_HEADER = OpenApiParameter(
    "Idempotency-Key", location=OpenApiParameter.HEADER, required=True,
    description="1-200 printable ASCII characters; a retry with the same key and body"
                " returns the first answer and writes nothing.")
ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="Malformed request."),
    404: OpenApiResponse(ErrorSerializer, description="Unknown tournament, player or venue."),
    409: OpenApiResponse(ErrorSerializer, description="Wrong phase, or key reused."),
    422: OpenApiResponse(ErrorSerializer, description="Refused by a rule or the balance."),
}


def _answer(result: commands.TournamentResult) -> Response:
    headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
    return Response(s.TournamentResultSerializer(result).data, status=201, headers=headers)


class AnnounceView(APIView):
    """Announce a tournament (its structure is published before it opens)."""

    permission_classes = PERMISSIONS
    roles_read = READERS
    roles_write = (Role.TABLE_CONTROLLER,)

    @extend_schema(summary="Announce a tournament", request=s.AnnounceSerializer,
                   parameters=[IDEMPOTENCY_KEY_HEADER],
                   responses={201: s.TournamentResultSerializer, **ERRORS})
    def post(self, request: Request) -> Response:
        key = idempotency_key(request)
        body = s.AnnounceSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return _answer(commands.announce(**body.validated_data,
                                         actor=request.user.get_username(),
                                         idempotency_key=key))


class TournamentDetailsView(APIView):
    """A tournament's pool, payout table, entrants and (once paid) payout."""

    permission_classes = PERMISSIONS
    roles_read = READERS
    roles_write = ()

    @extend_schema(summary="A tournament", responses={200: s.TournamentSerializer,
                                                      404: ErrorSerializer})
    def get(self, request: Request, tournament_id: str) -> Response:
        row = Tournament.objects.filter(id=tournament_id).first()
        if row is None:
            raise TournamentError(TournamentErrorCode.UNKNOWN_TOURNAMENT,
                                  f"no tournament {tournament_id!r}")
        return Response(s.TournamentSerializer(row).data)


class _ActionView(APIView):
    permission_classes = PERMISSIONS
    roles_read = READERS
    roles_write = WRITERS
    request_serializer: type[serializers.Serializer] = s.EmptySerializer
    command: Callable[..., commands.TournamentResult]

    def post(self, request: Request, tournament_id: str) -> Response:
        key = idempotency_key(request)
        body = self.request_serializer(data=request.data)
        body.is_valid(raise_exception=True)
        data: dict[str, Any] = dict(body.validated_data)
        return _answer(type(self).command(tournament_id=tournament_id, **data,
                                          actor=request.user.get_username(),
                                          idempotency_key=key))


def action(name: str, command, request_serializer=s.EmptySerializer, summary: str = "",
           roles_write=WRITERS):
    """Build the view of one action on a tournament."""
    view = type(name, (_ActionView,), {
        "request_serializer": request_serializer, "command": staticmethod(command),
        "roles_write": roles_write,
        "__doc__": command.__doc__.splitlines()[0] if command.__doc__ else summary,
    })
    def post(self, request: Request, tournament_id: str) -> Response:
        return _ActionView.post(self, request, tournament_id)

    view.post = extend_schema(summary=summary, request=request_serializer,
                              parameters=[IDEMPOTENCY_KEY_HEADER],
                              responses={201: s.TournamentResultSerializer, **ERRORS})(post)
    return view


ACTIONS = {
    "registration": action("OpenRegistrationView", commands.open_registration,
                           summary="Open registration"),
    "entries": action("EntriesView", commands.register, s.EntrySerializer,
                      "Register an entry, late entry or re-entry", MONEY_WRITERS),
    "unregistrations": action("UnregistrationsView", commands.unregister,
                              s.UnregisterSerializer,
                              "Withdraw a registration before the start", MONEY_WRITERS),
    "rebuys": action("RebuysView", commands.rebuy, s.PlayerSerializer, "Buy a rebuy",
                     MONEY_WRITERS),
    "add-ons": action("AddOnsView", commands.add_on, s.PlayerSerializer, "Buy the add-on",
                      MONEY_WRITERS),
    "start": action("StartView", commands.start, summary="Start (or cancel if too few)"),
    "prize-pool": action("FixPrizePoolView", commands.fix_prize_pool,
                         summary="Fix the prize pool"),
    "draw": action("DrawView", commands.draw_prize_pool, s.DrawSerializer,
                   "Draw a HexaPro prize pool"),
    "eliminations": action("EliminationsView", commands.eliminate, s.EliminationSerializer,
                           "Record the players out in one hand"),
    "special-prizes": action("SpecialPrizesView", commands.award_special_prize,
                             s.SpecialPrizeAwardSerializer,
                             "Award a special prize of the structure (000:L3410-3413)"),
    "disqualifications": action("DisqualificationsView", commands.disqualify,
                                s.ReasonSerializer, "Disqualify a player"),
    "exclusions": action("ExclusionsView", commands.exclude, s.ReasonSerializer,
                         "Exclude a player (keeps the place)"),
    "deals": action("DealsView", commands.record_deal, s.DealSerializer, "Record a deal"),
    "finish": action("FinishView", commands.finish, s.FinishSerializer, "Pay out"),
    "cancel": action("CancelView", commands.cancel, s.StacksSerializer,
                     "Cancel or interrupt"),
}
