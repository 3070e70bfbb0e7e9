"""The games API for table controllers: tables, rounds, bets, outcomes, settlement.

Table controllers write; compliance officers and auditors read (an officer
also settles or voids a disputed round). Each write reads its
Idempotency-Key, validates its body, calls one command and answers 201 with
the round (a retry answers the same, marked `Idempotent-Replayed: true`).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api import ErrorSerializer, KeyedWriteView, idempotency_key, write_schema
from casino.roles import Role

from .. import commands
from ..errors import GamesError, GamesErrorCode
from ..models import GameTable, Round
from .serializers import (
    GameBetPlaceSerializer,
    GameBetResultSerializer,
    GameEmptySerializer,
    GameOutcomeSerializer,
    GameRoundSerializer,
    GameSettleSerializer,
    GameTableOpenSerializer,
    GameTableSerializer,
    GameVoidSerializer,
)

READERS = (Role.TABLE_CONTROLLER, Role.COMPLIANCE_OFFICER, Role.AUDITOR)
WRITERS = (Role.TABLE_CONTROLLER,)      # casino.roles.MATRIX
ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="Malformed request or bet."),
    404: OpenApiResponse(ErrorSerializer, description="Unknown venue, table or round."),
    409: OpenApiResponse(ErrorSerializer, description="Wrong round state, betting closed,"
                         " disputed; or the key was reused for another request."),
    422: OpenApiResponse(ErrorSerializer, description="Refused by a game or compliance"
                         " rule (recorded)."),
}


def _write_schema(request_serializer, response_serializer, summary: str):
    return write_schema(request_serializer, response_serializer, summary, ERRORS)


class _GamesView(KeyedWriteView):
    roles_read = READERS
    roles_write = WRITERS

    @staticmethod
    def _round(round_id: str, replayed: bool = False, status: int = 201) -> Response:
        round_ = Round.objects.filter(id=round_id).first()
        if round_ is None:
            raise GamesError(GamesErrorCode.UNKNOWN_ROUND, f"no round {round_id!r}",
                             round_id=round_id)
        headers = {"Idempotent-Replayed": "true"} if replayed else {}
        data = GameRoundSerializer(round_).data
        return Response(data, status=status, headers=headers)


class TablesView(_GamesView):
    """Open a house-game table."""

    @_write_schema(GameTableOpenSerializer, GameTableSerializer, "Open a house-game table")
    def post(self, request: Request) -> Response:
        key, data = self._body(request, GameTableOpenSerializer)
        result = commands.open_table(
            venue=data["venue"], game=data["game"], config=data["config"],
            stake_minor_min=data["stake_min"], stake_minor_max=data["stake_max"],
            actor=request.user.get_username(), idempotency_key=key)
        headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        return Response(GameTableSerializer(result).data, status=201, headers=headers)


class TableDetailsView(_GamesView):
    @extend_schema(summary="A house-game table",
                   responses={200: GameTableSerializer, 404: ErrorSerializer})
    def get(self, request: Request, table_id: str) -> Response:
        table = GameTable.objects.filter(id=table_id).first()
        if table is None:
            raise GamesError(GamesErrorCode.UNKNOWN_TABLE, f"no table {table_id!r}",
                             table_id=table_id)
        return Response(GameTableSerializer({
            "table_id": table.id, "venue": table.venue, "game": table.game,
            "currency": table.currency, "rulebook": table.rulebook, "config": table.config,
            "stake_minor_min": table.stake_minor_min,
            "stake_minor_max": table.stake_minor_max}).data)


class RoundsView(_GamesView):
    @_write_schema(GameEmptySerializer, GameRoundSerializer, "Open the table's next round")
    def post(self, request: Request, table_id: str) -> Response:
        key = idempotency_key(request)
        result = commands.open_round(table_id=table_id, actor=request.user.get_username(),
                                     idempotency_key=key)
        return self._round(result.round_id, result.replayed)


class RoundDetailsView(_GamesView):
    @extend_schema(summary="A round with every bet, its computed payout and its rule",
                   responses={200: GameRoundSerializer, 404: ErrorSerializer})
    def get(self, request: Request, round_id: str) -> Response:
        return self._round(round_id, status=200)


class BetsView(_GamesView):
    @_write_schema(GameBetPlaceSerializer, GameBetResultSerializer, "Place a bet")
    def post(self, request: Request, round_id: str) -> Response:
        key, data = self._body(request, GameBetPlaceSerializer)
        result = commands.place_bet(round_id=round_id, player_id=data["player_id"],
                                    kind=data["kind"], spec=data["spec"],
                                    stake_minor=data["stake"], paid_with=data["paid_with"],
                                    actor=request.user.get_username(), idempotency_key=key)
        headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        return Response(GameBetResultSerializer(result).data, status=201, headers=headers)


class CloseView(_GamesView):
    @_write_schema(GameEmptySerializer, GameRoundSerializer, "No more bets")
    def post(self, request: Request, round_id: str) -> Response:
        key = idempotency_key(request)
        result = commands.close_betting(round_id=round_id, actor=request.user.get_username(),
                                        idempotency_key=key)
        return self._round(result.round_id, result.replayed)


class OutcomeView(_GamesView):
    @_write_schema(GameOutcomeSerializer, GameRoundSerializer, "Record the round's outcome")
    def post(self, request: Request, round_id: str) -> Response:
        key, data = self._body(request, GameOutcomeSerializer)
        result = commands.record_outcome(round_id=round_id, outcome=data["outcome"],
                                         actor=request.user.get_username(),
                                         idempotency_key=key)
        return self._round(result.round_id, result.replayed)


class SettleView(_GamesView):
    @_write_schema(GameSettleSerializer, GameRoundSerializer,
                   "Settle the round from the pay tables (or dispute it)")
    def post(self, request: Request, round_id: str) -> Response:
        key, data = self._body(request, GameSettleSerializer)
        result = commands.settle_round(round_id=round_id, declared_minor=data["declared"],
                                       actor=request.user.get_username(), idempotency_key=key)
        return self._round(result.round_id, result.replayed)


class VoidView(_GamesView):
    @_write_schema(GameVoidSerializer, GameRoundSerializer, "Void the round: every stake back")
    def post(self, request: Request, round_id: str) -> Response:
        key, data = self._body(request, GameVoidSerializer)
        result = commands.void_round(round_id=round_id, reason=data["reason"],
                                     actor=request.user.get_username(), idempotency_key=key)
        return self._round(result.round_id, result.replayed)
