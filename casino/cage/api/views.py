"""The cage's REST API: four writes and the float.

Each write validates its body, calls one command and answers 201 with the
outcome (CageTransactionSerializer). A retry under the same Idempotency-Key
answers the same body and the same 201, marked by the header
`Idempotent-Replayed: true`; a refusal recorded the first time is refused the
same way again. Refusals by a rule answer 422 with the rule, limit, amount,
rulebook, citation and message (casino.exception_handler).
"""

from __future__ import annotations

from typing import Callable

from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api import ErrorSerializer, PERMISSIONS, idempotency_key
from casino.roles import Role

from .. import commands
from ..queries import venue_float
from .serializers import (
    CageTransactionSerializer,
    ChipPurchaseSerializer,
    ChipRedemptionSerializer,
    DepositSerializer,
    VenueFloatSerializer,
    WithdrawalSerializer,
)

READERS = (Role.CAGE, Role.COMPLIANCE_OFFICER, Role.ACCOUNTANT, Role.AUDITOR)
IDEMPOTENCY_KEY_HEADER = OpenApiParameter(
    "Idempotency-Key", location=OpenApiParameter.HEADER, required=True,
    description="1-200 printable ASCII characters; a retry with the same key and body"
                " returns the first answer and writes nothing.",
)
ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="A coded error (wrong currency), or"
                         ' DRF\'s per-field messages {"field": ["message"]} or'
                         ' {"detail": "JSON parse error ..."}.'),
    404: OpenApiResponse(ErrorSerializer, description="Unknown player or venue."),
    409: OpenApiResponse(ErrorSerializer, description="Key reused for another request."),
    422: OpenApiResponse(ErrorSerializer, description="Refused by a rule or the balance."),
}


class _CageWriteView(APIView):
    """Validate the body, run the command, answer with its outcome."""

    permission_classes = PERMISSIONS
    roles_read = READERS
    roles_write = (Role.CAGE,)
    request_serializer: type[serializers.Serializer]
    command: Callable[..., commands.CageResult]
    method_field: str

    def post(self, request: Request) -> Response:
        key = idempotency_key(request)
        body = self.request_serializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        result = self.command(
            player_id=data["player_id"], venue=data["venue"], amount_minor=data["amount"],
            currency=data["currency"], actor=request.user.get_username(),
            idempotency_key=key, **{self.method_field: data[self.method_field]},
            window=data.get("window", ""),
        )
        headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
        return Response(CageTransactionSerializer(result).data, status=201, headers=headers)


def _write_schema(request_serializer, summary: str):
    return extend_schema(
        summary=summary, request=request_serializer, parameters=[IDEMPOTENCY_KEY_HEADER],
        responses={201: CageTransactionSerializer, **ERRORS},
    )


@extend_schema_view(post=_write_schema(DepositSerializer, "Deposit into a gaming account"))
class DepositsView(_CageWriteView):
    """Cash at the cage or a bank transfer into the player's gaming account."""

    request_serializer = DepositSerializer
    command = staticmethod(commands.deposit)
    method_field = "method"


@extend_schema_view(post=_write_schema(WithdrawalSerializer, "Withdraw from a gaming account"))
class WithdrawalsView(_CageWriteView):
    """A payout from the player's gaming account, in cash or by bank transfer."""

    request_serializer = WithdrawalSerializer
    command = staticmethod(commands.withdraw)
    method_field = "method"


@extend_schema_view(post=_write_schema(ChipPurchaseSerializer, "Sell chips"))
class ChipPurchasesView(_CageWriteView):
    """Chips sold for cash or from the gaming account."""

    request_serializer = ChipPurchaseSerializer
    command = staticmethod(commands.buy_chips)
    method_field = "paid_with"


@extend_schema_view(post=_write_schema(ChipRedemptionSerializer, "Redeem chips"))
class ChipRedemptionsView(_CageWriteView):
    """Chips taken back for cash or into the gaming account."""

    request_serializer = ChipRedemptionSerializer
    command = staticmethod(commands.redeem_chips)
    method_field = "paid_to"


class VenueFloatView(APIView):
    """A venue's cage cash and chips outstanding (the chip float)."""

    permission_classes = PERMISSIONS
    roles_read = READERS
    roles_write = ()

    @extend_schema(summary="A cage's cash and chip float",
                   responses={200: VenueFloatSerializer, 404: ErrorSerializer})
    def get(self, request: Request, venue: str) -> Response:
        return Response(VenueFloatSerializer(venue_float(venue)).data)
