"""The machines API: registration, batched rounds, credit, vouchers, meters.

Machine controllers (table_controller) report rounds and move credit;
compliance officers register machines and post a venue's entry rule; the
cage (and a controller, into another machine) redeems vouchers. Each
write reads its Idempotency-Key, validates its body, calls one command and
answers 201 (a retry answers the same, marked `Idempotent-Replayed: true`).
"""

from __future__ import annotations

import datetime as dt

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api import ErrorSerializer, KeyedWriteView, write_schema
from casino.roles import Role
from ledger.read import Account

from .. import commands
from ..errors import MachinesError, MachinesErrorCode
from ..events import credit_account
from ..models import Machine, MachineDay
from ..projections import ledger_meters
from .serializers import (
    MachineCashInSerializer,
    MachineCreditSerializer,
    MachineEmptySerializer,
    MachineRegisterSerializer,
    MachineSerializer,
    MachineMetersSerializer,
    MachinePremisesEntrySerializer,
    MachinePremisesSerializer,
    VoucherRedemptionSerializer,
    RoundsReportedSerializer,
    RoundsReportSerializer,
    VoucherSerializer,
)

READERS = (Role.TABLE_CONTROLLER, Role.COMPLIANCE_OFFICER, Role.ACCOUNTANT, Role.AUDITOR)
CONTROLLERS = (Role.TABLE_CONTROLLER,)
OFFICERS = (Role.COMPLIANCE_OFFICER,)
REDEEMERS = (Role.CAGE, Role.TABLE_CONTROLLER)
ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="Malformed request."),
    404: OpenApiResponse(ErrorSerializer, description="Unknown venue, machine or voucher."),
    409: OpenApiResponse(ErrorSerializer, description="Machine exists, nothing to cash out,"
                         " voucher redeemed; or the key was reused for another request."),
    422: OpenApiResponse(ErrorSerializer, description="Refused by a rule (placement is"
                         " recorded)."),
}


def _write_schema(request_serializer, response_serializer, summary: str):
    return write_schema(request_serializer, response_serializer, summary, ERRORS)


def _created(data, replayed: bool) -> Response:
    return KeyedWriteView._created(data, replayed)


def _actor(request: Request) -> str:
    return request.user.get_username()


class PremisesView(KeyedWriteView):
    """Post whether a venue admits only people aged 18 or over."""

    roles_read = READERS
    roles_write = OFFICERS

    @_write_schema(MachinePremisesEntrySerializer, MachinePremisesSerializer,
                   "Post a venue's entry rule (18+ or not)")
    def post(self, request: Request) -> Response:
        key, data = self._body(request, MachinePremisesEntrySerializer)
        result = commands.post_premises_entry(venue=data["venue"],
                                              adults_only=data["adults_only"],
                                              actor=_actor(request), idempotency_key=key)
        return _created(MachinePremisesSerializer(result).data, result.replayed)


class MachinesView(KeyedWriteView):
    """Register a gaming machine to a venue."""

    roles_read = READERS
    roles_write = OFFICERS

    @_write_schema(MachineRegisterSerializer, MachineSerializer, "Register a machine")
    def post(self, request: Request) -> Response:
        key, data = self._body(request, MachineRegisterSerializer)
        result = commands.register_machine(
            machine_id=data["machine_id"], venue=data["venue"], kind=data["kind"],
            games=data["games"], long_interactive_rounds=data["long_interactive_rounds"],
            actor=_actor(request), idempotency_key=key)
        return _created(MachineSerializer(result).data, result.replayed)


def _machine_or_404(machine_id: str) -> Machine:
    machine = Machine.objects.filter(id=machine_id).first()
    if machine is None:
        raise MachinesError(MachinesErrorCode.UNKNOWN_MACHINE, f"no machine {machine_id!r}", machine_id=machine_id)
    return machine


class MachineDetailsView(KeyedWriteView):
    roles_read = READERS
    roles_write = ()

    @extend_schema(summary="A machine and its credit",
                   responses={200: MachineSerializer, 404: ErrorSerializer})
    def get(self, request: Request, machine_id: str) -> Response:
        machine = _machine_or_404(machine_id)
        credit = Account.objects.filter(code=credit_account(machine.id)).values_list(
            "balance_minor", flat=True).first() or 0
        return Response(MachineSerializer({
            "machine_id": machine.id, "venue": machine.venue, "kind": machine.kind,
            "games": machine.games, "long_interactive_rounds": machine.long_interactive_rounds,
            "currency": machine.currency, "rulebook": machine.rulebook,
            "credit_minor": credit, "position": machine.registered_position}).data)


class RoundsView(KeyedWriteView):
    """Report a batch of up to 1,000 rounds; each is accepted or refused on its own."""

    roles_read = READERS
    roles_write = CONTROLLERS

    @_write_schema(RoundsReportSerializer, RoundsReportedSerializer,
                   "Report a batch of rounds (each keyed by the machine's round id)")
    def post(self, request: Request, machine_id: str) -> Response:
        key, data = self._body(request, RoundsReportSerializer)
        rounds = [{"round_id": r["round_id"],
                   "stakes": [{"option": s["option"], "unit": s["unit"],
                               "amount_minor": s["amount"]} for s in r["stakes"]],
                   "total_minor": r["total"], "reused_minor": r["reused"],
                   "win_minor": r["win"], "player_id": r["player_id"],
                   "played_at": r["played_at"]} for r in data["rounds"]]
        result = commands.report_rounds(machine_id=machine_id, rounds=rounds,
                                        actor=_actor(request), idempotency_key=key)
        return _created(RoundsReportedSerializer(result).data, result.replayed)


class CashInsView(KeyedWriteView):
    roles_read = READERS
    roles_write = CONTROLLERS

    @_write_schema(MachineCashInSerializer, MachineCreditSerializer, "Cash into a machine's credit")
    def post(self, request: Request, machine_id: str) -> Response:
        key, data = self._body(request, MachineCashInSerializer)
        result = commands.insert_cash(machine_id=machine_id, amount_minor=data["amount"],
                                      actor=_actor(request), idempotency_key=key)
        return _created(MachineCreditSerializer(result).data, result.replayed)


class CashOutsView(KeyedWriteView):
    roles_read = READERS
    roles_write = CONTROLLERS

    @_write_schema(MachineEmptySerializer, MachineCreditSerializer, "Cash the whole credit out to a voucher")
    def post(self, request: Request, machine_id: str) -> Response:
        key, _ = self._body(request, MachineEmptySerializer)
        result = commands.cash_out(machine_id=machine_id, actor=_actor(request),
                                   idempotency_key=key)
        return _created(MachineCreditSerializer(result).data, result.replayed)


class RedemptionsView(KeyedWriteView):
    roles_read = READERS
    roles_write = REDEEMERS

    @_write_schema(VoucherRedemptionSerializer, VoucherSerializer,
                   "Redeem a voucher once: at the cage, or into a machine of its venue")
    def post(self, request: Request, voucher_id: str) -> Response:
        key, data = self._body(request, VoucherRedemptionSerializer)
        result = commands.redeem_voucher(voucher_id=voucher_id, machine_id=data["machine_id"],
                                         actor=_actor(request), idempotency_key=key)
        return _created(VoucherSerializer(result).data, result.replayed)


class MetersView(KeyedWriteView):
    roles_read = READERS
    roles_write = ()

    @extend_schema(summary="A machine's meters for a gaming day, beside the ledger's",
                   parameters=[OpenApiParameter("day", str, required=True,
                                                description="The gaming day, YYYY-MM-DD.")],
                   responses={200: MachineMetersSerializer, 400: ErrorSerializer,
                              404: ErrorSerializer})
    def get(self, request: Request, machine_id: str) -> Response:
        machine = _machine_or_404(machine_id)
        try:
            day = dt.date.fromisoformat(request.query_params.get("day", ""))
        except ValueError:
            raise MachinesError(MachinesErrorCode.INVALID_REQUEST,
                                "day: a gaming day as YYYY-MM-DD",
                                field="day") from None
        row = MachineDay.objects.filter(machine=machine, day=day).first()
        figures = {name: getattr(row, name, 0) if row else 0
                   for name in ("coin_in_minor", "coin_out_minor", "cash_in_minor",
                                "vouchers_issued_minor", "vouchers_redeemed_minor", "rounds",
                                "rounds_rejected")}
        ledger = ledger_meters(machine.id, day)
        return Response(MachineMetersSerializer({
            "machine_id": machine.id, "day": day, **figures,
            "ledger_coin_in_minor": ledger["coin_in_minor"],
            "ledger_coin_out_minor": ledger["coin_out_minor"]}).data)
