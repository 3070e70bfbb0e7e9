"""The compliance API: the dry-run check, alerts, and two-person corrections.

Writes validate the body, call one command of casino.compliance.commands
with the caller as actor and the request's Idempotency-Key, and serialize
the result; coded errors become 4xx answers in casino.exception_handler.

Roles. The dry run answers "would this be allowed, and why" for those who
take or watch stakes (cage, table controllers) and those who answer for the
rules (compliance officers, auditors). Alerts are for compliance officers
and auditors. Corrections are read by compliance officers, accountants and
auditors; a compliance officer or an accountant may propose one (an
accountant is often the one who finds the difference), and only a compliance
officer other than the proposer may approve or reject it: the view admits
compliance officers only, and the command enforces both rules again (403
`compliance.not_an_approver`, 403 `compliance.approver_is_proposer`).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api import BAD_REQUEST, ErrorSerializer, PERMISSIONS, idempotency_key
from casino.pagination import CursorListView
from casino.roles import Role

from ..commands import approve_correction, propose_correction, reject_correction
from ..errors import ComplianceError, ComplianceErrorCode
from ..models import Alert, Correction
from ..pipeline import Attempt, check
from .filters import AlertFilter, CorrectionFilter
from .serializers import (
    AlertSerializer,
    CorrectionApprovalSerializer,
    CorrectionProposalSerializer,
    CorrectionRejectionSerializer,
    CorrectionSerializer,
    StakeCheckSerializer,
    VerdictSerializer,
)

CHECKERS = (Role.CAGE, Role.TABLE_CONTROLLER, Role.COMPLIANCE_OFFICER, Role.AUDITOR)
ALERT_READERS = (Role.COMPLIANCE_OFFICER, Role.AUDITOR)
CORRECTION_READERS = (Role.COMPLIANCE_OFFICER, Role.ACCOUNTANT, Role.AUDITOR)
CORRECTION_PROPOSERS = (Role.COMPLIANCE_OFFICER, Role.ACCOUNTANT)
CORRECTION_DECIDERS = (Role.COMPLIANCE_OFFICER,)

NOT_FOUND = OpenApiResponse(ErrorSerializer, description="Unknown id (coded).")
CONFLICT = OpenApiResponse(ErrorSerializer, description="The Idempotency-Key was used for a"
                                                        " different request, or the correction"
                                                        " is no longer proposed (coded).")
FORBIDDEN = OpenApiResponse(ErrorSerializer, description="`compliance.approver_is_proposer` or"
                                                         " `compliance.not_an_approver`.")


def _correction(correction_id: str) -> Correction:
    correction = Correction.objects.filter(id=correction_id).first()
    if correction is None:
        raise ComplianceError(ComplianceErrorCode.UNKNOWN_CORRECTION,
                              f"no correction {correction_id!r}",
                              correction=correction_id)
    return correction


class StakeCheckView(APIView):
    """Dry run: would this stake (or deposit, withdrawal, buy-in, chip
    purchase or redemption, win) be allowed now, and if not, why.

    Runs the same checks, in the same precedence order, as every real
    attempt, and answers 200 either way: `failure` names the first rule that
    refuses it, with its limit, citation and a hint. It writes nothing (no
    event, no alert), so it takes no Idempotency-Key: it is a query that
    needs a body. Roles: cage, table_controller, compliance_officer, auditor.
    """

    permission_classes = PERMISSIONS
    roles_read = CHECKERS
    roles_write = CHECKERS
    takes_idempotency_key = False   # a query with a body (casino.openapi_conventions)

    @extend_schema(
        request=StakeCheckSerializer,
        responses={200: VerdictSerializer, 400: BAD_REQUEST,
                   404: OpenApiResponse(ErrorSerializer, description="Unknown player or venue.")},
    )
    def post(self, request: Request) -> Response:
        body = StakeCheckSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        verdict = check(Attempt(
            kind=data["kind"], venue=data["venue"], amount_minor=data["amount"],
            currency=data["currency"], player_id=data["player_id"], game=data["game"],
            bet_unit=data["bet_unit"], category=data["category"], account=data["account"],
        ))
        return Response(VerdictSerializer(verdict).data)


class AlertsView(CursorListView):
    """Alerts, newest first, filtered by kind, player and venue; in cursor
    pages of `limit` rows (at most 500): follow `next` (casino.pagination).

    Roles: compliance_officer, auditor.
    """

    roles_read = ALERT_READERS
    roles_write = ()
    queryset = Alert.objects.all()
    serializer_class = AlertSerializer
    filterset_class = AlertFilter
    ordering = "-raised_position"

    @extend_schema(operation_id="v1_alerts_list",
                   responses={200: AlertSerializer(many=True), 400: BAD_REQUEST})
    def get(self, request: Request) -> Response:
        return self.list(request)


class AlertDetailsView(APIView):
    """One alert, with the details of the event that raised it.

    Roles: compliance_officer, auditor.
    """

    permission_classes = PERMISSIONS
    roles_read = ALERT_READERS
    roles_write = ()

    @extend_schema(responses={200: AlertSerializer,
                              404: OpenApiResponse(ErrorSerializer, description="No such alert.")})
    def get(self, request: Request, alert_id: str) -> Response:
        alert = Alert.objects.filter(id=alert_id).first()
        if alert is None:
            raise ComplianceError(ComplianceErrorCode.UNKNOWN_ALERT, f"no alert {alert_id!r}",
                                  alert=alert_id)
        return Response(AlertSerializer(alert).data)


class CorrectionsView(CursorListView):
    """GET lists corrections, newest first (filters: state, account; cursor
    pages, casino.pagination); POST proposes one.

    A proposal moves nothing: a second person, a compliance officer, must
    approve it. Roles: read compliance_officer, accountant, auditor; propose
    compliance_officer, accountant.
    """

    roles_read = CORRECTION_READERS
    roles_write = CORRECTION_PROPOSERS
    queryset = Correction.objects.all()
    serializer_class = CorrectionSerializer
    filterset_class = CorrectionFilter
    ordering = ("-proposed_at", "-id")

    @extend_schema(operation_id="v1_corrections_list",
                   responses={200: CorrectionSerializer(many=True), 400: BAD_REQUEST})
    def get(self, request: Request) -> Response:
        return self.list(request)

    @extend_schema(
        request=CorrectionProposalSerializer,
        responses={201: CorrectionSerializer, 400: BAD_REQUEST, 404: NOT_FOUND, 409: CONFLICT},
    )
    def post(self, request: Request) -> Response:
        key = idempotency_key(request)
        body = CorrectionProposalSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        correction = propose_correction(
            account=data["account"], counter_account=data["counter_account"],
            amount_minor=data["amount"], reason=data["reason"], actor=request.user.username,
            idempotency_key=key,
        )
        return Response(CorrectionSerializer(correction).data, status=201)


class CorrectionDetailsView(APIView):
    """One correction: who proposed and decided it, why, and the balances.

    Roles: compliance_officer, accountant, auditor.
    """

    permission_classes = PERMISSIONS
    roles_read = CORRECTION_READERS
    roles_write = ()

    @extend_schema(responses={200: CorrectionSerializer, 404: NOT_FOUND})
    def get(self, request: Request, correction_id: str) -> Response:
        return Response(CorrectionSerializer(_correction(correction_id)).data)


class CorrectionApprovalView(APIView):
    """Approve a proposed correction and post it, in one append.

    The approver must be a compliance officer other than the proposer. The
    answer shows `account`'s balance before and after. Roles: write
    compliance_officer; read compliance_officer, accountant, auditor.
    """

    permission_classes = PERMISSIONS
    roles_read = CORRECTION_READERS
    roles_write = CORRECTION_DECIDERS

    @extend_schema(
        request=CorrectionApprovalSerializer,
        responses={200: CorrectionSerializer, 400: BAD_REQUEST, 403: FORBIDDEN,
                   404: NOT_FOUND, 409: CONFLICT},
    )
    def post(self, request: Request, correction_id: str) -> Response:
        key = idempotency_key(request)
        body = CorrectionApprovalSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        correction = approve_correction(correction_id=correction_id,
                                        actor=request.user.username,
                                        note=body.validated_data["note"], idempotency_key=key)
        return Response(CorrectionSerializer(correction).data)


class CorrectionRejectionView(APIView):
    """Reject a proposed correction; nothing moves, and it cannot be approved
    later.

    The same two-person rule as approval. Roles: write compliance_officer;
    read compliance_officer, accountant, auditor.
    """

    permission_classes = PERMISSIONS
    roles_read = CORRECTION_READERS
    roles_write = CORRECTION_DECIDERS

    @extend_schema(
        request=CorrectionRejectionSerializer,
        responses={200: CorrectionSerializer, 400: BAD_REQUEST, 403: FORBIDDEN,
                   404: NOT_FOUND, 409: CONFLICT},
    )
    def post(self, request: Request, correction_id: str) -> Response:
        key = idempotency_key(request)
        body = CorrectionRejectionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        correction = reject_correction(correction_id=correction_id,
                                       actor=request.user.username,
                                       note=body.validated_data["note"], idempotency_key=key)
        return Response(CorrectionSerializer(correction).data)
