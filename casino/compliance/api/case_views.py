"""The cases API: open, read and work a case; dismiss an alert; verify the chain.

Under /api/v1/compliance/. Writes validate the body, call one command of
casino.compliance.cases (or verification) as the caller with the request's
Idempotency-Key, and serialize the projection row.

Roles. Cases and dismissals are read by compliance officers and auditors
and written by compliance officers (the commands check the role again).
A chain verification may be run by a compliance officer or an auditor, and
its record read by them and accountants.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api import BAD_REQUEST, ErrorSerializer, PERMISSIONS, idempotency_key
from casino.pagination import CursorListView
from casino.roles import ClientRateThrottle, Role, WriteRateThrottle

from ..cases import get_case, add_case_note, dismiss_alert, link_case_events, move_case, open_case
from ..models import Case, ChainVerification
from ..verification import verify_and_record
from .case_serializers import (
    AlertDismissalInputSerializer,
    AlertDismissalSerializer,
    CaseDetailsSerializer,
    CaseLinkInputSerializer,
    CaseNoteInputSerializer,
    CaseNoteSerializer,
    CaseOpeningSerializer,
    CaseSerializer,
    CaseStateInputSerializer,
    ChainVerificationSerializer,
)
from .filters import CaseFilter

CASE_READERS = (Role.COMPLIANCE_OFFICER, Role.AUDITOR)
CASE_WRITERS = (Role.COMPLIANCE_OFFICER,)
VERIFIERS = (Role.COMPLIANCE_OFFICER,)      # casino.roles.MATRIX
VERIFICATION_READERS = (Role.COMPLIANCE_OFFICER, Role.AUDITOR)

FORBIDDEN = OpenApiResponse(ErrorSerializer, description="`compliance.not_a_compliance_officer`.")
NOT_FOUND = OpenApiResponse(ErrorSerializer, description="Unknown case, alert or event"
                                                         " position (coded).")
CONFLICT = OpenApiResponse(ErrorSerializer,
                           description="`compliance.case_transition_not_allowed`,"
                                       " `compliance.case_closed`,"
                                       " `compliance.alert_already_handled`, or the"
                                       " Idempotency-Key was used for another request.")


def _details(case: Case) -> dict:
    case = Case.objects.prefetch_related("notes", "links").get(id=case.id)
    return CaseDetailsSerializer(case).data


class CasesView(CursorListView):
    """GET lists cases, newest first (filters: state, player_id, alert_id;
    cursor pages, casino.pagination); POST opens one, from an alert or from a
    title and the events it concerns.

    Roles: read compliance_officer, auditor; open compliance_officer.
    """

    roles_read = CASE_READERS
    roles_write = CASE_WRITERS
    queryset = Case.objects.all()
    serializer_class = CaseSerializer
    filterset_class = CaseFilter
    ordering = "-opened_position"

    @extend_schema(operation_id="v1_compliance_cases_list",
                   responses={200: CaseSerializer(many=True), 400: BAD_REQUEST})
    def get(self, request: Request) -> Response:
        return self.list(request)

    @extend_schema(request=CaseOpeningSerializer,
                   responses={201: CaseDetailsSerializer, 400: BAD_REQUEST, 403: FORBIDDEN,
                              404: NOT_FOUND, 409: CONFLICT})
    def post(self, request: Request) -> Response:
        key = idempotency_key(request)
        body = CaseOpeningSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        case = open_case(actor=request.user.username, alert_id=data["alert_id"],
                         title=data["title"], positions=data["positions"], note=data["note"],
                         idempotency_key=key)
        return Response(_details(case), status=201)


class CaseDetailsView(APIView):
    """One case with its notes and the events it concerns.

    Roles: compliance_officer, auditor.
    """

    permission_classes = PERMISSIONS
    roles_read = CASE_READERS
    roles_write = ()

    @extend_schema(responses={200: CaseDetailsSerializer, 404: NOT_FOUND})
    def get(self, request: Request, case_id: str) -> Response:
        return Response(_details(get_case(case_id)))


class CaseNotesView(APIView):
    """Add a note to a case that is not closed.

    Roles: write compliance_officer; read compliance_officer, auditor.
    """

    permission_classes = PERMISSIONS
    roles_read = CASE_READERS
    roles_write = CASE_WRITERS

    @extend_schema(request=CaseNoteInputSerializer,
                   responses={201: CaseNoteSerializer, 400: BAD_REQUEST, 403: FORBIDDEN,
                              404: NOT_FOUND, 409: CONFLICT})
    def post(self, request: Request, case_id: str) -> Response:
        key = idempotency_key(request)
        body = CaseNoteInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        note = add_case_note(case_id=case_id, text=body.validated_data["text"],
                             actor=request.user.username, idempotency_key=key)
        return Response(CaseNoteSerializer(note).data, status=201)


class CaseStateView(APIView):
    """Move a case: open -> investigating -> escalated -> closed, or
    investigating -> closed; closing needs a reason.

    Roles: write compliance_officer; read compliance_officer, auditor.
    """

    permission_classes = PERMISSIONS
    roles_read = CASE_READERS
    roles_write = CASE_WRITERS

    @extend_schema(request=CaseStateInputSerializer,
                   responses={200: CaseDetailsSerializer, 400: BAD_REQUEST, 403: FORBIDDEN,
                              404: NOT_FOUND, 409: CONFLICT})
    def post(self, request: Request, case_id: str) -> Response:
        key = idempotency_key(request)
        body = CaseStateInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        case = move_case(case_id=case_id, to=body.validated_data["to"],
                         reason=body.validated_data["reason"], actor=request.user.username,
                         idempotency_key=key)
        return Response(_details(case))


class CaseEventsView(APIView):
    """Add events, by ledger position, to those a case concerns.

    Roles: write compliance_officer; read compliance_officer, auditor.
    """

    permission_classes = PERMISSIONS
    roles_read = CASE_READERS
    roles_write = CASE_WRITERS

    @extend_schema(request=CaseLinkInputSerializer,
                   responses={200: CaseDetailsSerializer, 400: BAD_REQUEST, 403: FORBIDDEN,
                              404: NOT_FOUND, 409: CONFLICT})
    def post(self, request: Request, case_id: str) -> Response:
        key = idempotency_key(request)
        body = CaseLinkInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        case = link_case_events(case_id=case_id, positions=body.validated_data["positions"],
                                actor=request.user.username, idempotency_key=key)
        return Response(_details(case))


class AlertDismissalsView(APIView):
    """Dismiss an alert that needs no case, with the reason.

    Roles: write compliance_officer; read compliance_officer, auditor.
    """

    permission_classes = PERMISSIONS
    roles_read = CASE_READERS
    roles_write = CASE_WRITERS

    @extend_schema(request=AlertDismissalInputSerializer,
                   responses={201: AlertDismissalSerializer, 400: BAD_REQUEST,
                              403: FORBIDDEN, 404: NOT_FOUND, 409: CONFLICT})
    def post(self, request: Request) -> Response:
        key = idempotency_key(request)
        body = AlertDismissalInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        dismissal = dismiss_alert(alert_id=body.validated_data["alert_id"],
                                  reason=body.validated_data["reason"],
                                  actor=request.user.username, idempotency_key=key)
        return Response(AlertDismissalSerializer(dismissal).data, status=201)


class ChainVerificationsView(CursorListView):
    """GET lists recorded verifications of the hash chain, newest first (cursor
    pages, casino.pagination); POST runs one now (the whole log) and records
    it as `compliance.chain_verified`.

    The answer says ok, or the first bad position and why. Roles: run
    compliance_officer, auditor; read those and accountant.
    """

    roles_read = VERIFICATION_READERS
    roles_write = VERIFIERS
    # A run re-reads the whole log: at most CASINO_VERIFY_RATE per client (429).
    throttle_classes = [ClientRateThrottle, WriteRateThrottle]
    write_rate = "CASINO_VERIFY_RATE"
    queryset = ChainVerification.objects.all()
    serializer_class = ChainVerificationSerializer
    ordering = "-position"

    @extend_schema(operation_id="v1_compliance_chain_verifications_list",
                   responses={200: ChainVerificationSerializer(many=True), 400: BAD_REQUEST})
    def get(self, request: Request) -> Response:
        return self.list(request)

    @extend_schema(request=None,
                   responses={201: ChainVerificationSerializer, 400: BAD_REQUEST,
                              409: CONFLICT})
    def post(self, request: Request) -> Response:
        key = idempotency_key(request)
        verification = verify_and_record(actor=request.user.username, idempotency_key=key)
        return Response(ChainVerificationSerializer(verification).data, status=201)
