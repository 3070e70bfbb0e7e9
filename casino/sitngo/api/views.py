"""The sit'n'go jackpot API: table controllers post series and count tournaments;
compliance officers and auditors read (casino.roles.MATRIX)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api import ErrorSerializer, KeyedWriteView, write_schema
from casino.roles import Role

from .. import commands
from ..errors import SitngoError, SitngoErrorCode
from ..models import SitngoSeries
from .serializers import (
    SeriesPostSerializer,
    SeriesSerializer,
    TournamentRecordedSerializer,
    TournamentRecordSerializer,
)

READERS = (Role.TABLE_CONTROLLER, Role.COMPLIANCE_OFFICER, Role.AUDITOR)
WRITERS = (Role.TABLE_CONTROLLER,)
ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="Malformed request."),
    404: OpenApiResponse(ErrorSerializer, description="Unknown venue, series or tournament."),
    409: OpenApiResponse(ErrorSerializer, description="Counted already, or the key reused."),
    422: OpenApiResponse(ErrorSerializer, description="Not an eligible sit'n'go, or a fee"
                         " refused by the compliance pipeline (recorded)."),
}


class SeriesView(KeyedWriteView):
    """Post a sit'n'go jackpot: its trigger and its fee (002:L3299)."""

    roles_read = READERS
    roles_write = WRITERS

    @write_schema(SeriesPostSerializer, SeriesSerializer, "Post a sit'n'go jackpot", ERRORS)
    def post(self, request: Request) -> Response:
        key, data = self._body(request, SeriesPostSerializer)
        result = commands.post_series(venue=data["venue"],
                                      wins_to_trigger=data["wins_to_trigger"],
                                      fee_minor=data["fee"], kind=data["kind"],
                                      actor=request.user.get_username(), idempotency_key=key)
        return self._created(SeriesSerializer(result).data, result.replayed)


class SeriesDetailsView(KeyedWriteView):
    roles_read = READERS
    roles_write = ()

    @extend_schema(summary="A sit'n'go jackpot: pool and streaks",
                   responses={200: SeriesSerializer, 404: ErrorSerializer})
    def get(self, request: Request, series_id: str) -> Response:
        series = SitngoSeries.objects.filter(id=series_id).first()
        if series is None:
            raise SitngoError(SitngoErrorCode.UNKNOWN_SERIES, f"no series {series_id!r}",
                              series_id=series_id)
        return Response(SeriesSerializer({
            "series_id": series.id, "venue": series.venue, "currency": series.currency,
            "wins_to_trigger": series.wins_to_trigger, "fee_minor": series.fee_minor,
            "kind": series.kind, "pool_minor": series.pool_minor, "paid_minor": series.paid_minor,
            "tournaments": series.tournaments,
            "streaks": {s.player_id: s.wins for s in series.streaks.filter(wins__gt=0)},
        }).data)


class TournamentsView(KeyedWriteView):
    """Count a finished sit'n'go for the jackpot: fees, streaks and a hit."""

    roles_read = READERS
    roles_write = WRITERS

    @write_schema(TournamentRecordSerializer, TournamentRecordedSerializer,
                  "Count a finished sit'n'go for the jackpot", ERRORS)
    def post(self, request: Request, series_id: str) -> Response:
        key, data = self._body(request, TournamentRecordSerializer)
        result = commands.record_tournament(series_id=series_id,
                                            tournament_id=data["tournament_id"],
                                            actor=request.user.get_username(),
                                            idempotency_key=key)
        return self._created(TournamentRecordedSerializer(result).data, result.replayed)
