"""The erasure API: an officer proposes erasing a player's personal data, another approves.

Both are keyed writes through the runner (casino.privacy.commands); the
approval by the proposer is refused with 403 `privacy.approver_is_proposer`
and recorded.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api import BAD_REQUEST, ErrorSerializer, KeyedWriteView, StrictSerializer
from casino.api import write_schema
from casino.roles import Role

from .. import commands


class ProposalSerializer(StrictSerializer):
    reason = serializers.CharField(max_length=commands.REASON_LENGTH_MAX,
                                   help_text="Why the data may go: the retention period over.")


class ApprovalSerializer(StrictSerializer):
    """The approval names the player in its URL; a note is optional."""

    note = serializers.CharField(max_length=commands.REASON_LENGTH_MAX, required=False,
                                 allow_blank=True, default="")


class ErasureSerializer(serializers.Serializer):
    player_id = serializers.CharField()
    state = serializers.ChoiceField(choices=["proposed", "erased"])
    position = serializers.IntegerField(help_text="The event that recorded it.")


ERRORS = {
    400: BAD_REQUEST,
    403: OpenApiResponse(ErrorSerializer, description="`privacy.approver_is_proposer`."),
    404: OpenApiResponse(ErrorSerializer, description="`privacy.unknown_player`."),
    409: OpenApiResponse(ErrorSerializer, description="`privacy.retention_not_over`,"
                         " `privacy.erasure_exists`, `privacy.erasure_not_proposed`, or the"
                         " key reused for another request."),
}


def _answer(result: commands.ErasureResult) -> dict:
    return ErasureSerializer({"player_id": result.player_id, "state": result.state,
                              "position": result.position}).data


class ErasuresView(KeyedWriteView):
    """Propose erasing a player's personal data (after their retention period)."""

    roles_read = (Role.COMPLIANCE_OFFICER,)
    roles_write = (Role.COMPLIANCE_OFFICER,)

    @write_schema(ProposalSerializer, ErasureSerializer, "Propose a personal data erasure",
                  ERRORS)
    def post(self, request: Request, player_id: str) -> Response:
        key, data = self._body(request, ProposalSerializer)
        result = commands.propose_erasure(player_id=player_id, reason=data["reason"],
                                          actor=request.user.get_username(),
                                          idempotency_key=key)
        return self._created(_answer(result), result.replayed)


class ErasureApprovalView(KeyedWriteView):
    """Approve a proposed erasure (a second officer): the player's key is destroyed."""

    roles_read = (Role.COMPLIANCE_OFFICER,)
    roles_write = (Role.COMPLIANCE_OFFICER,)

    @write_schema(ApprovalSerializer, ErasureSerializer, "Approve a personal data erasure",
                  ERRORS)
    def post(self, request: Request, player_id: str) -> Response:
        key, data = self._body(request, ApprovalSerializer)
        result = commands.approve_erasure(player_id=player_id, note=data["note"],
                                          actor=request.user.get_username(),
                                          idempotency_key=key)
        return self._created(_answer(result), result.replayed)
