"""The poker API: tables, buy-ins, cash-outs and hands.

Table controllers write; compliance officers and auditors read. Each write
reads its Idempotency-Key, validates its body, calls one command and answers
201 with the outcome (a retry under the same key answers the same body,
marked `Idempotent-Replayed: true`). An illegal action answers 422 with the
engine's code and reason and is on the record as `poker.action_rejected`;
state conflicts (a hand running, a hand finished or disputed) answer 409
(casino.exception_handler). A disputed hand is decided by a compliance
officer only (`DecisionView`).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from casino.api import ErrorSerializer, KeyedWriteView, write_schema
from casino.roles import Role

from .. import commands
from ..errors import PokerError, PokerErrorCode
from ..events import table_stacks
from ..models import Hand, Table
from .serializers import (
    ActionSerializer,
    BuyInSerializer,
    CashOutSerializer,
    DecisionSerializer,
    HandResultSerializer,
    HandSerializer,
    HandHistorySerializer,
    HandStartSerializer,
    SeatResultSerializer,
    ShowdownSerializer,
    TableDetailsSerializer,
    TableOpenSerializer,
    TableSerializer,
    TimeChargeResultSerializer,
    TimeChargeSerializer,
    VoidSerializer,
)

READERS = (Role.TABLE_CONTROLLER, Role.COMPLIANCE_OFFICER, Role.AUDITOR)
WRITERS = (Role.TABLE_CONTROLLER,)
DECIDERS = (Role.COMPLIANCE_OFFICER,)
ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="Malformed request or cards."),
    404: OpenApiResponse(ErrorSerializer, description="Unknown venue, table or hand."),
    409: OpenApiResponse(ErrorSerializer, description="A hand is running, finished or"
                         " disputed; or the key was reused for another request."),
    422: OpenApiResponse(ErrorSerializer, description="Refused by a betting, buy-in or"
                         " compliance rule (recorded)."),
}


def _write_schema(request_serializer, response_serializer, summary: str):
    return write_schema(request_serializer, response_serializer, summary, ERRORS)


class _PokerView(KeyedWriteView):
    roles_read = READERS
    roles_write = WRITERS



class TablesView(_PokerView):
    """Open a cash-game table."""

    @_write_schema(TableOpenSerializer, TableSerializer, "Open a poker table")
    def post(self, request: Request) -> Response:
        key, data = self._body(request, TableOpenSerializer)
        result = commands.open_table(
            venue=data["venue"], variant=data["variant"], structure=data["structure"],
            small_blind_minor=data.get("small_blind", 0),
            big_blind_minor=data.get("big_blind", 0), ante_minor=data.get("ante", 0),
            big_blind_ante_minor=data.get("big_blind_ante", 0),
            bring_in_minor=data.get("bring_in", 0), small_bet_minor=data.get("small_bet", 0),
            big_bet_minor=data.get("big_bet", 0), seats_max=data["seats_max"],
            buy_in_minor_min=data["buy_in_min"], buy_in_minor_max=data["buy_in_max"],
            rake=data["rake"], rake_cap_minor=data.get("rake_cap"),
            rake_percent_basis_points=data.get("rake_percent_basis_points"),
            jackpot=data["jackpot"], jackpot_drop_minor=data.get("jackpot_drop"),
            banzai=data["banzai"], time_charge_minor=data.get("time_charge"),
            time_charge_period_minutes=data.get("time_charge_period_minutes"),
            jackpot_fee=data["jackpot_fee"], electronic=data["electronic"],
            actor=request.user.get_username(), idempotency_key=key)
        return self._created(TableSerializer(result).data, result.replayed)


class TableDetailsView(_PokerView):
    """A table, its seats and the chips on it."""

    @extend_schema(summary="A poker table",
                   responses={200: TableDetailsSerializer, 404: ErrorSerializer})
    def get(self, request: Request, table_id: str) -> Response:
        from ledger.read import Account

        table = Table.objects.filter(id=table_id).first()
        if table is None:
            raise PokerError(PokerErrorCode.UNKNOWN_TABLE, f"no table {table_id!r}",
                             table_id=table_id)
        account = Account.objects.filter(code=table_stacks(table.id)).first()
        data = {
            "table_id": table.id, "venue": table.venue, "currency": table.currency,
            "rulebook": table.rulebook, "variant": table.variant,
            "structure": table.structure, "stakes": table.stakes,
            "seats_max": table.seats_max, "buy_in_minor_min": table.buy_in_minor_min,
            "buy_in_minor_max": table.buy_in_minor_max, "rake": table.rake,
            "drop": table.drop, "jackpot": table.jackpot or None, "banzai": table.banzai,
            "jackpot_time_fee": table.jackpot_time_fee, "electronic": table.electronic,
            "seats": list(table.seats.all()), "hands_started": table.hands_started,
            "table_stacks_minor": account.balance_minor if account else 0,
        }
        return Response(TableDetailsSerializer(data).data)


class BuyInsView(_PokerView):
    """Money from the gaming account (or cash) onto a seat's stack."""

    @_write_schema(BuyInSerializer, SeatResultSerializer, "Buy in at a table")
    def post(self, request: Request, table_id: str) -> Response:
        key, data = self._body(request, BuyInSerializer)
        result = commands.buy_in(table_id=table_id, seat=data["seat"],
                                 player_id=data["player_id"], amount_minor=data["amount"],
                                 paid_with=data["paid_with"],
                                 actor=request.user.get_username(), idempotency_key=key)
        return self._created(SeatResultSerializer(result).data, result.replayed)


class CashOutsView(_PokerView):
    """A seat's stack back to the gaming account (or cash); the seat is freed."""

    @_write_schema(CashOutSerializer, SeatResultSerializer, "Cash out from a table")
    def post(self, request: Request, table_id: str) -> Response:
        key, data = self._body(request, CashOutSerializer)
        result = commands.cash_out(table_id=table_id, seat=data["seat"],
                                   player_id=data["player_id"], paid_to=data["paid_to"],
                                   actor=request.user.get_username(), idempotency_key=key)
        return self._created(SeatResultSerializer(result).data, result.replayed)


class TimeChargesView(_PokerView):
    """Charge one period of the table's time charge, before the period starts."""

    @_write_schema(TimeChargeSerializer, TimeChargeResultSerializer, "Charge table time")
    def post(self, request: Request, table_id: str) -> Response:
        key, data = self._body(request, TimeChargeSerializer)
        result = commands.charge_time(table_id=table_id,
                                      consenting_players=data["consenting_players"],
                                      actor=request.user.get_username(), idempotency_key=key)
        return self._created(TimeChargeResultSerializer(result).data, result.replayed)


class HandsView(_PokerView):
    """Start the table's next hand."""

    @_write_schema(HandStartSerializer, HandResultSerializer, "Start a hand")
    def post(self, request: Request, table_id: str) -> Response:
        key, data = self._body(request, HandStartSerializer)
        deal = _deal(data)
        result = commands.start_hand(table_id=table_id, button=deal.button,
                                     blind_seats=deal.blind_seats, straddles=deal.straddles,
                                     first_seat=deal.first_seat,
                                     missed_blinds=deal.missed_blinds,
                                     actor=request.user.get_username(), idempotency_key=key)
        return self._created(HandResultSerializer(result).data, result.replayed)


class HandHistoriesView(_PokerView):
    """A complete hand in one request (electronic tables): all of it, or nothing."""

    @_write_schema(HandHistorySerializer, HandResultSerializer,
                   "Record a complete hand history")
    def post(self, request: Request, table_id: str) -> Response:
        key, data = self._body(request, HandHistorySerializer)
        showdown = data.get("showdown")
        result = commands.record_hand(
            table_id=table_id, deal=_deal(data),
            steps=[commands.Step(a["seat"], a["kind"], a.get("amount"), a["open_pair"])
                   for a in data["actions"]],
            showdown=None if showdown is None else commands.Showdown(
                showdown["board"], showdown["hands"], _claimed(showdown),
                showdown.get("runs"), showdown.get("agreed_by")),
            void_reason=data.get("void_reason"),
            actor=request.user.get_username(), idempotency_key=key)
        return self._created(HandResultSerializer(result).data, result.replayed)


def _deal(data: dict[str, Any]) -> commands.Deal:
    blinds = ((data.get("small_blind_seat"), data["big_blind_seat"])
              if "big_blind_seat" in data else None)
    return commands.Deal(data["button"], blinds, data["straddles"], data.get("first_seat"),
                         data.get("missed_blinds"))


def _claimed(showdown: dict[str, Any]) -> dict[int, int]:
    claimed: dict[int, int] = {}
    for award in showdown["claimed_awards"]:
        claimed[award["seat"]] = claimed.get(award["seat"], 0) + award["amount"]
    return claimed


class HandDetailsView(_PokerView):
    """A hand as its projection holds it."""

    @extend_schema(summary="A poker hand",
                   responses={200: HandSerializer, 404: ErrorSerializer})
    def get(self, request: Request, hand_id: str) -> Response:
        hand = Hand.objects.filter(id=hand_id).first()
        if hand is None:
            raise PokerError(PokerErrorCode.UNKNOWN_HAND, f"no hand {hand_id!r}",
                             hand_id=hand_id)
        return Response(HandSerializer(hand).data)


class ActionsView(_PokerView):
    """One player action; the betting engine validates it."""

    @_write_schema(ActionSerializer, HandResultSerializer, "Act in a hand")
    def post(self, request: Request, hand_id: str) -> Response:
        key, data = self._body(request, ActionSerializer)
        result = commands.act(hand_id=hand_id, seat=data["seat"], kind=data["kind"],
                              amount_minor=data.get("amount"), open_pair=data["open_pair"],
                              actor=request.user.get_username(), idempotency_key=key)
        return self._created(HandResultSerializer(result).data, result.replayed)


class ShowdownView(_PokerView):
    """The cards and the claimed result; the server verifies and settles or disputes."""

    @_write_schema(ShowdownSerializer, HandResultSerializer, "Show down a hand")
    def post(self, request: Request, hand_id: str) -> Response:
        key, data = self._body(request, ShowdownSerializer)
        result = commands.showdown(hand_id=hand_id, board=data["board"], hands=data["hands"],
                                   claimed_awards=_claimed(data), runs=data.get("runs"),
                                   agreed_by=data.get("agreed_by"),
                                   actor=request.user.get_username(), idempotency_key=key)
        return self._created(HandResultSerializer(result).data, result.replayed)


class VoidView(_PokerView):
    """Void a running hand: stacks back to the start of the hand."""

    @_write_schema(VoidSerializer, HandResultSerializer, "Void a hand")
    def post(self, request: Request, hand_id: str) -> Response:
        key, data = self._body(request, VoidSerializer)
        result = commands.void_hand(hand_id=hand_id, reason=data["reason"],
                                    actor=request.user.get_username(), idempotency_key=key)
        return self._created(HandResultSerializer(result).data, result.replayed)


class DecisionView(_PokerView):
    """A compliance officer's decision on a disputed hand: settle as verified, or void."""

    roles_write = DECIDERS

    @_write_schema(DecisionSerializer, HandResultSerializer, "Decide a disputed hand")
    def post(self, request: Request, hand_id: str) -> Response:
        key, data = self._body(request, DecisionSerializer)
        result = commands.decide_dispute(hand_id=hand_id, decision=data["decision"],
                                         note=data["note"],
                                         actor=request.user.get_username(),
                                         idempotency_key=key)
        return self._created(HandResultSerializer(result).data, result.replayed)
