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

from casino.api import ErrorSerializer, KeyedWriteView, idempotency_key, write_schema
from casino.roles import Role
from ledger.read import Account

from .. import commands, jackpots, malfunctions, meters, tournaments
from ..errors import MachinesError, MachinesErrorCode
from ..events import credit_account
from ..models import Machine, MachineDay
from ..projections import ledger_meters
from .rounds import parse_rounds
from .serializers import (
    MachineCashInSerializer,
    MachineCreditSerializer,
    MachineEmptySerializer,
    MachineRegisterSerializer,
    MachineSerializer,
    MachineMetersSerializer,
    MachinePremisesEntrySerializer,
    MachinePremisesSerializer,
    MachinePayOutSerializer,
    VoucherRedemptionSerializer,
    RoundsReportedSerializer,
    RoundsReportSerializer,
    VoucherSerializer,
    JackpotHitPaidSerializer,
    JackpotHitSerializer,
    MachineJackpotPostedSerializer,
    MachineJackpotSerializer,
    MalfunctionCreditSerializer,
    MalfunctionDecisionSerializer,
    MalfunctionProposalSerializer,
    MetersReconciliationRequestSerializer,
    MetersReconciliationSerializer,
    SlotTournamentEntrySerializer,
    SlotTournamentFinishSerializer,
    SlotTournamentPrizesSerializer,
    SlotTournamentSerializer,
    SlotTournamentStateSerializer,
)

READERS = (Role.TABLE_CONTROLLER, Role.COMPLIANCE_OFFICER, Role.ACCOUNTANT, Role.AUDITOR)
CONTROLLERS = (Role.TABLE_CONTROLLER,)
OFFICERS = (Role.COMPLIANCE_OFFICER,)
REDEEMERS = (Role.CAGE, Role.TABLE_CONTROLLER)
PROPOSERS = (Role.TABLE_CONTROLLER, Role.COMPLIANCE_OFFICER)
ENTRY_TAKERS = (Role.CAGE, Role.TABLE_CONTROLLER)
RECONCILERS = (Role.ACCOUNTANT, Role.COMPLIANCE_OFFICER)
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
            paylines=data["paylines"], stake_options=data["stake_options"],
            jackpot_links=data["jackpot_links"], online_game=data["online_game"],
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
            "credit_minor": credit, "position": machine.registered_position,
            "paylines": machine.paylines, "stake_options": machine.stake_options,
            "jackpot_links": list(machine.jackpot_links.values_list("jackpot_id", flat=True)),
            "online_game": machine.online_game}).data)


class RoundsView(KeyedWriteView):
    """Report a batch of up to 1,000 rounds; each is accepted or refused on its own."""

    roles_read = READERS
    roles_write = CONTROLLERS

    @_write_schema(RoundsReportSerializer, RoundsReportedSerializer,
                   "Report a batch of rounds (each keyed by the machine's round id)")
    def post(self, request: Request, machine_id: str) -> Response:
        # The body is RoundsReportSerializer's, read by hand (api/rounds.py):
        # a thousand rounds through nested fields cost a third of the request.
        key = idempotency_key(request)
        rounds = parse_rounds(request.data)
        result = commands.report_rounds(machine_id=machine_id, rounds=rounds,
                                        actor=_actor(request), idempotency_key=key)
        return _created({"machine_id": result.machine_id, "accepted": result.accepted,
                         "refused": result.refused,
                         "rounds": [{**o, "replayed": o.get("replayed", False)}
                                    for o in result.rounds],
                         "position": result.position}, result.replayed)


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


class PayOutsView(KeyedWriteView):
    """Pay the whole credit out by hand: at the cash desk, or to the player's account."""

    roles_read = READERS
    roles_write = CONTROLLERS

    @_write_schema(MachinePayOutSerializer, MachineCreditSerializer,
                   "Pay the credit out at the cash desk or to an account (cancelled credits)")
    def post(self, request: Request, machine_id: str) -> Response:
        key, data = self._body(request, MachinePayOutSerializer)
        result = commands.pay_out(machine_id=machine_id, to=data["to"],
                                  player_id=data["player_id"], actor=_actor(request),
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
                                "rounds_rejected", "jackpots_minor", "cancelled_credits_minor",
                                "malfunction_credits_minor", "jackpot_contributions_minor")}
        ledger = ledger_meters(machine.id, day)
        return Response(MachineMetersSerializer({
            "machine_id": machine.id, "day": day, **figures,
            "ledger_coin_in_minor": ledger["coin_in_minor"],
            "ledger_coin_out_minor": ledger["coin_out_minor"]}).data)


def _minor_terms(terms: dict) -> dict:
    names = {"seed": "seed_minor", "reset": "reset_minor", "fixed": "fixed_minor",
             "qualifying_stake": "qualifying_stake_minor"}
    return {names.get(name, name): value for name, value in terms.items()}


def _prizes(prizes: dict) -> dict:
    if "fixed" in prizes:
        return {"fixed_minor": prizes["fixed"], **({"share_bp": prizes["share_bp"]}
                                                   if "share_bp" in prizes else {})}
    return dict(prizes)


class MachineJackpotsView(KeyedWriteView):
    """Post a machine jackpot: type, scope, drawer, amount and the venue's terms."""

    roles_read = READERS
    roles_write = OFFICERS

    @_write_schema(MachineJackpotSerializer, MachineJackpotPostedSerializer,
                   "Post a machine jackpot (002:L1387-1389)")
    def post(self, request: Request) -> Response:
        key, data = self._body(request, MachineJackpotSerializer)
        result = jackpots.configure_jackpot(
            jackpot_id=data["jackpot_id"], venue=data["venue"], name=data["name"],
            type=data["type"], scope=data["scope"], drawn_by=data["drawn_by"],
            amount=data["amount"], terms=_minor_terms(data["terms"]),
            machines=data["machines"], actor=_actor(request), idempotency_key=key)
        return _created(MachineJackpotPostedSerializer(result).data, result.replayed)


class JackpotHitsView(KeyedWriteView):
    """Claim a hit: checked against the jackpot's terms, paid capped at the maximum win."""

    roles_read = READERS
    roles_write = CONTROLLERS

    @_write_schema(JackpotHitSerializer, JackpotHitPaidSerializer,
                   "Pay a machine jackpot hit (re-seeded after)")
    def post(self, request: Request, jackpot_id: str) -> Response:
        key, data = self._body(request, JackpotHitSerializer)
        result = jackpots.pay_jackpot_hit(
            jackpot_id=jackpot_id, machine_id=data["machine_id"], round_id=data["round_id"],
            drawn_by=data["drawn_by"], combination=data["combination"],
            actor=_actor(request), idempotency_key=key)
        return _created(JackpotHitPaidSerializer(result).data, result.replayed)


class MalfunctionCreditsView(KeyedWriteView):
    """Propose a malfunction credit from the device's record (a second person approves)."""

    roles_read = READERS
    roles_write = PROPOSERS

    @_write_schema(MalfunctionProposalSerializer, MalfunctionCreditSerializer,
                   "Propose a malfunction credit (002:L1383-1385, L3039-3041)")
    def post(self, request: Request, machine_id: str) -> Response:
        key, data = self._body(request, MalfunctionProposalSerializer)
        result = malfunctions.propose_malfunction_credit(
            machine_id=machine_id, device_record=data["device_record"],
            displayed=data["displayed"], reason=data["reason"], round_id=data["round_id"],
            player_id=data["player_id"], actor=_actor(request), idempotency_key=key)
        return _created(MalfunctionCreditSerializer(result).data, result.replayed)


class MalfunctionDecisionView(KeyedWriteView):
    roles_read = READERS
    roles_write = OFFICERS
    approve = True

    def post(self, request: Request, credit_id: str) -> Response:
        key, data = self._body(request, MalfunctionDecisionSerializer)
        decide = (malfunctions.approve_malfunction_credit if self.approve
                  else malfunctions.reject_malfunction_credit)
        result = decide(credit_id=credit_id, note=data["note"], actor=_actor(request),
                        idempotency_key=key)
        return _created(MalfunctionCreditSerializer(result).data, result.replayed)


class MalfunctionApproveView(MalfunctionDecisionView):
    """Approve a malfunction credit (not its proposer): the credit is posted."""

    @_write_schema(MalfunctionDecisionSerializer, MalfunctionCreditSerializer,
                   "Approve a malfunction credit")
    def post(self, request: Request, credit_id: str) -> Response:
        return super().post(request, credit_id)


class MalfunctionRejectView(MalfunctionDecisionView):
    """Reject a malfunction credit (not its proposer): nothing moves."""

    approve = False

    @_write_schema(MalfunctionDecisionSerializer, MalfunctionCreditSerializer,
                   "Reject a malfunction credit")
    def post(self, request: Request, credit_id: str) -> Response:
        return super().post(request, credit_id)


class SlotTournamentsView(KeyedWriteView):
    """Announce a slot tournament with its entry fee (capped) and its prizes."""

    roles_read = READERS
    roles_write = OFFICERS

    @_write_schema(SlotTournamentSerializer, SlotTournamentStateSerializer,
                   "Announce a slot tournament")
    def post(self, request: Request) -> Response:
        key, data = self._body(request, SlotTournamentSerializer)
        result = tournaments.announce_slot_tournament(
            tournament_id=data["tournament_id"], venue=data["venue"], name=data["name"],
            entry_fee_minor=data["entry_fee"], prizes=_prizes(data["prizes"]),
            actor=_actor(request), idempotency_key=key)
        return _created(SlotTournamentStateSerializer(result).data, result.replayed)


class SlotTournamentPrizesView(KeyedWriteView):
    """Publish the prizes again, before the start only."""

    roles_read = READERS
    roles_write = OFFICERS

    @_write_schema(SlotTournamentPrizesSerializer, SlotTournamentStateSerializer,
                   "Publish a slot tournament's prizes")
    def post(self, request: Request, tournament_id: str) -> Response:
        key, data = self._body(request, SlotTournamentPrizesSerializer)
        result = tournaments.publish_prizes(tournament_id=tournament_id,
                                            prizes=_prizes(data["prizes"]),
                                            actor=_actor(request), idempotency_key=key)
        return _created(SlotTournamentStateSerializer(result).data, result.replayed)


class SlotTournamentEntriesView(KeyedWriteView):
    """Enter a player, paying the fee (cash at a land cage, online the gaming account)."""

    roles_read = READERS
    roles_write = ENTRY_TAKERS

    @_write_schema(SlotTournamentEntrySerializer, SlotTournamentStateSerializer,
                   "Enter a slot tournament")
    def post(self, request: Request, tournament_id: str) -> Response:
        key, data = self._body(request, SlotTournamentEntrySerializer)
        result = tournaments.enter_slot_tournament(tournament_id=tournament_id,
                                                   player_id=data["player_id"],
                                                   actor=_actor(request), idempotency_key=key)
        return _created(SlotTournamentStateSerializer(result).data, result.replayed)


class SlotTournamentStartView(KeyedWriteView):
    """Start a slot tournament: entries and prize publications close."""

    roles_read = READERS
    roles_write = OFFICERS

    @_write_schema(MachineEmptySerializer, SlotTournamentStateSerializer,
                   "Start a slot tournament")
    def post(self, request: Request, tournament_id: str) -> Response:
        key, _ = self._body(request, MachineEmptySerializer)
        result = tournaments.start_slot_tournament(tournament_id=tournament_id,
                                                   actor=_actor(request), idempotency_key=key)
        return _created(SlotTournamentStateSerializer(result).data, result.replayed)


class SlotTournamentFinishView(KeyedWriteView):
    """Finish a slot tournament with its ranking and pay the published prizes."""

    roles_read = READERS
    roles_write = OFFICERS

    @_write_schema(SlotTournamentFinishSerializer, SlotTournamentStateSerializer,
                   "Finish a slot tournament")
    def post(self, request: Request, tournament_id: str) -> Response:
        key, data = self._body(request, SlotTournamentFinishSerializer)
        result = tournaments.finish_slot_tournament(
            tournament_id=tournament_id, ranking=data["ranking"], actor=_actor(request),
            idempotency_key=key)
        return _created(SlotTournamentStateSerializer(result).data, result.replayed)


class MetersReconciliationsView(KeyedWriteView):
    """Reconcile a venue's machines' meters of a day with the ledger and their reports."""

    roles_read = READERS
    roles_write = RECONCILERS

    @_write_schema(MetersReconciliationRequestSerializer, MetersReconciliationSerializer,
                   "Reconcile machine meters (an alert for each machine that differs)")
    def post(self, request: Request) -> Response:
        key, data = self._body(request, MetersReconciliationRequestSerializer)
        result = meters.reconcile_meters(venue=data["venue"], gaming_day=data["gaming_day"],
                                         reported=data["reported"], actor=_actor(request),
                                         idempotency_key=key)
        return _created(MetersReconciliationSerializer(result).data, result.replayed)
