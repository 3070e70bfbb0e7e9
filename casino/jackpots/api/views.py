"""The jackpots API: pools, their history and roll-ups, hits and decisions.

Compliance officers approve, reject and pay hits (the approver is recorded);
accountants and officers may run a pool's roll-up now (the beat does it
daily; a rerun posts nothing); table controllers, officers, accountants and
auditors read. Writes take an Idempotency-Key.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api import PERMISSIONS, ErrorSerializer, idempotency_key
from casino.pagination import CursorListView
from casino.roles import Role

from .. import commands, queries
from ..errors import JackpotError, JackpotErrorCode
from ..models import JackpotHit, JackpotPool, JackpotRollup, JackpotTerms
from .filters import HitFilter, PoolFilter
from .serializers import (
    HitSerializer,
    PoolHistorySerializer,
    PoolOpenSerializer,
    PoolSerializer,
    RejectSerializer,
    RollupRequestSerializer,
    RollupRowSerializer,
    RollupSerializer,
    TermsPostSerializer,
    TermsSerializer,
)

READERS = (Role.COMPLIANCE_OFFICER, Role.ACCOUNTANT, Role.AUDITOR)      # casino.roles.MATRIX
OFFICERS = (Role.COMPLIANCE_OFFICER,)
OPERATORS = (Role.COMPLIANCE_OFFICER,)
IDEMPOTENCY_KEY_HEADER = OpenApiParameter(
    "Idempotency-Key", location=OpenApiParameter.HEADER, required=True,
    description="1-200 printable ASCII characters; a retry with the same key returns the"
                " first answer and writes nothing.")
ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="Malformed request."),
    404: OpenApiResponse(ErrorSerializer, description="Unknown venue, pool or hit."),
    409: OpenApiResponse(ErrorSerializer, description="Wrong state: a day not closed, a hit"
                         " not awaiting this step, an earlier hit open; or a reused key."),
    422: OpenApiResponse(ErrorSerializer, description="Refused by an account's limit."),
}


class _JackpotView(APIView):
    permission_classes = PERMISSIONS
    roles_read = READERS
    roles_write = OFFICERS


class PoolsView(CursorListView, _JackpotView):
    """Every pool; POST opens a venue's pool from its rulebook (idempotent)."""

    roles_write = OPERATORS

    queryset = JackpotPool.objects.all()
    serializer_class = PoolSerializer
    filterset_class = PoolFilter
    ordering = "key"

    @extend_schema(summary="Jackpot pools", responses={200: PoolSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return self.list(request)

    @extend_schema(summary="Open a venue's jackpot pool", request=PoolOpenSerializer,
                   parameters=[IDEMPOTENCY_KEY_HEADER],
                   responses={201: PoolSerializer, **ERRORS})
    def post(self, request: Request) -> Response:
        key = idempotency_key(request)
        body = PoolOpenSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        result = commands.ensure_pool(venue=body.validated_data["venue"],
                                      kind=body.validated_data["kind"],
                                      actor=request.user.get_username(), idempotency_key=key)
        # 201 when this request (or the one it retries) opened the pool; 200
        # when it was open already.
        return Response(PoolSerializer(JackpotPool.objects.get(key=result.key)).data,
                        status=201 if result.created else 200)


class PoolDetailsView(_JackpotView):
    """A pool's balances and reconciled history, summed from the ledger."""

    @extend_schema(summary="A jackpot pool's history and balances",
                   responses={200: PoolHistorySerializer, 404: ErrorSerializer})
    def get(self, request: Request, venue: str, kind: str) -> Response:
        history = queries.pool_history(venue, kind)
        return Response(PoolHistorySerializer(history).data)


class RollupsView(CursorListView, _JackpotView):
    """A pool's daily roll-ups; POST runs them now for closed days."""

    roles_write = OPERATORS

    queryset = JackpotRollup.objects.none()     # the model, for the schema
    serializer_class = RollupRowSerializer
    ordering = "gaming_day"

    def get_queryset(self):
        pool = queries.pool(self.kwargs["venue"], self.kwargs["kind"])
        return JackpotRollup.objects.filter(pool=pool)

    @extend_schema(summary="A pool's roll-ups", responses={200: RollupRowSerializer(many=True),
                                                           404: ErrorSerializer})
    def get(self, request: Request, venue: str, kind: str) -> Response:
        return self.list(request)

    @extend_schema(summary="Roll up a closed gaming day now", request=RollupRequestSerializer,
                   parameters=[IDEMPOTENCY_KEY_HEADER],
                   responses={201: RollupSerializer(many=True), **ERRORS})
    def post(self, request: Request, venue: str, kind: str) -> Response:
        key = idempotency_key(request)
        body = RollupRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        result = commands.rollup_day(venue=venue, kind=kind,
                                     gaming_day=body.validated_data["gaming_day"],
                                     actor=request.user.get_username(), idempotency_key=key)
        return Response(RollupSerializer([result], many=True).data, status=201)


class HitsView(CursorListView, _JackpotView):
    """Hits, newest hand first; `?state=hit` for those awaiting approval."""

    queryset = JackpotHit.objects.all()
    serializer_class = HitSerializer
    filterset_class = HitFilter
    ordering = ("-hand_started_at", "-id")

    @extend_schema(summary="Jackpot hits", responses={200: HitSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return self.list(request)


class HitDetailsView(_JackpotView):
    @extend_schema(summary="A jackpot hit", responses={200: HitSerializer,
                                                       404: ErrorSerializer})
    def get(self, request: Request, hit_id: str) -> Response:
        return Response(HitSerializer(_hit(hit_id)).data)


def _hit(hit_id: str) -> JackpotHit:
    hit = JackpotHit.objects.filter(id=hit_id).first()
    if hit is None:
        raise JackpotError(JackpotErrorCode.UNKNOWN_HIT, f"no jackpot hit {hit_id!r}",
                           hit_id=hit_id)
    return hit


class _DecisionView(_JackpotView):
    def _answer(self, result) -> Response:
        headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        return Response(HitSerializer(_hit(result.hit_id)).data, status=201, headers=headers)


class ApproveHitView(_DecisionView):
    """A compliance officer approves: the shares are fixed and recorded."""

    @extend_schema(summary="Approve a jackpot hit", request=None,
                   parameters=[IDEMPOTENCY_KEY_HEADER], responses={201: HitSerializer, **ERRORS})
    def post(self, request: Request, hit_id: str) -> Response:
        key = idempotency_key(request)
        return self._answer(commands.approve_hit(hit_id=hit_id, actor=request.user.get_username(),
                                                 idempotency_key=key))


class RejectHitView(_DecisionView):
    @extend_schema(summary="Reject a jackpot hit", request=RejectSerializer,
                   parameters=[IDEMPOTENCY_KEY_HEADER], responses={201: HitSerializer, **ERRORS})
    def post(self, request: Request, hit_id: str) -> Response:
        key = idempotency_key(request)
        body = RejectSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return self._answer(commands.reject_hit(hit_id=hit_id, actor=request.user.get_username(),
                                                reason=body.validated_data["reason"],
                                                idempotency_key=key))


class PayHitView(_DecisionView):
    """Post an approved hit's shares to the players' gaming accounts."""

    @extend_schema(summary="Pay an approved jackpot hit", request=None,
                   parameters=[IDEMPOTENCY_KEY_HEADER], responses={201: HitSerializer, **ERRORS})
    def post(self, request: Request, hit_id: str) -> Response:
        key = idempotency_key(request)
        return self._answer(commands.pay_hit(hit_id=hit_id, actor=request.user.get_username(),
                                             idempotency_key=key))


class TermsView(CursorListView, _JackpotView):
    """A pool's posted terms, oldest first; POST records the venue's posting.

    The RAY casino's bad-beat criteria, shares and minimum (002:L1792, L1808)
    and Tallinn's award rules (003:L141-142) are posted in the gaming area; a
    compliance officer records the posting here, and from then the pool
    takes drops and detects hits (decision jackpots.posted_terms).
    """

    roles_write = OPERATORS

    queryset = JackpotTerms.objects.none()      # the model, for the schema
    serializer_class = TermsSerializer
    ordering = "position"

    def get_queryset(self):
        pool = queries.pool(self.kwargs["venue"], self.kwargs["kind"])
        return JackpotTerms.objects.filter(pool=pool)

    @extend_schema(summary="A pool's posted terms",
                   responses={200: TermsSerializer(many=True), 404: ErrorSerializer})
    def get(self, request: Request, venue: str, kind: str) -> Response:
        return self.list(request)

    @extend_schema(summary="Record the terms a venue posted", request=TermsPostSerializer,
                   parameters=[IDEMPOTENCY_KEY_HEADER],
                   responses={201: TermsSerializer, **ERRORS})
    def post(self, request: Request, venue: str, kind: str) -> Response:
        key = idempotency_key(request)
        body = TermsPostSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        result = commands.post_terms(venue=venue, kind=kind, notice=data["notice"],
                                     criteria=data["criteria"], shares=data["shares"],
                                     base_guarantee_minor=data["base_guarantee"],
                                     actor=request.user.get_username(), idempotency_key=key)
        headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        return Response(TermsSerializer(JackpotTerms.objects.get(position=result.position)).data,
                        status=201, headers=headers)
