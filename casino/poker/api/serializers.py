"""Serializers of the poker API.

Amounts go in as decimal strings in major units ("150.00",
casino.api.MoneyField) and come out both ways: major-unit strings and
`_minor` integers. Pots and awards are never taken from a client except the
controller's claimed showdown result, which the server verifies.
"""

from __future__ import annotations

from rest_framework import serializers

from casino.api import MoneyField
from casino.poker.engine import ActionKind, BettingStructure, MissedBlind
from casino.poker.events import MUCK, OPEN_STREET


class TableOpenSerializer(serializers.Serializer):
    venue = serializers.CharField(max_length=60)
    variant = serializers.CharField(max_length=40, help_text="native_eval id, e.g. `holdem`.")
    structure = serializers.ChoiceField(choices=[s.value for s in BettingStructure])
    small_blind = MoneyField(required=False)
    big_blind = MoneyField(required=False, help_text="Board and draw games: required.")
    ante = MoneyField(required=False)
    big_blind_ante = MoneyField(required=False, help_text="Posted by the big blind for the"
                                " table (000:L939-941).")
    bring_in = MoneyField(required=False, help_text="Stud (000:L952-954, L2170-2174).")
    small_bet = MoneyField(required=False, help_text="Limit: the early streets' unit"
                           " (default: the big blind, or twice the bring-in).")
    big_bet = MoneyField(required=False, help_text="Limit: the late streets' unit"
                         " (default: twice the small bet).")
    seats_max = serializers.IntegerField(min_value=2, max_value=12)
    buy_in_min = MoneyField()
    buy_in_max = MoneyField()
    rake = serializers.ChoiceField(
        choices=["standard", "alternative", "house_fee", "time_charge", "time_rake"],
        default="standard",
        help_text="The rulebook's rake rule for this table: a pot rake, or a charge by"
                  " time (`time_charge` with its amount and period; Tallinn's"
                  " `time_rake`), collected with POST .../time-charges.")
    time_charge = MoneyField(required=False, help_text="`time_charge`: each player's"
                             " amount per period (000:L464-465; 002:L287-289).")
    time_charge_period_minutes = serializers.IntegerField(required=False, min_value=1,
                                                          max_value=24 * 60)
    jackpot_fee = serializers.ChoiceField(
        choices=["per_hand", "time_60", "time_15"], default="per_hand",
        help_text="Veikkaus jackpot tables: EUR 1 a hand, or by time with every"
                  " player's consent: EUR 40 per started hour or EUR 10 per 15 minutes"
                  " (000:L2876-2879).")
    banzai = serializers.BooleanField(default=False, help_text="Online Banzai: stacks of"
                                      " at most 10 big blinds (001:L219-223).")
    electronic = serializers.BooleanField(
        default=False, help_text="An electronic poker table (a special machine): its blind"
        " or ante is capped by its own row, EUR 2 at halls and partner premises (002:L3381),"
        " EUR 4,000 at the casino (002:L3443).")
    rake_cap = MoneyField(required=False, help_text="Per-hand cap, where the rules allow.")
    rake_percent_basis_points = serializers.IntegerField(required=False, min_value=1,
                                                         max_value=10_000)
    jackpot = serializers.BooleanField(default=False,
                                       help_text="Take the venue's jackpot drop.")
    jackpot_drop = MoneyField(required=False, help_text="RAY: the posted drop per hand.")


class TableSerializer(serializers.Serializer):
    table_id = serializers.CharField()
    venue = serializers.CharField()
    currency = serializers.CharField()
    rulebook = serializers.CharField()
    variant = serializers.CharField()
    structure = serializers.CharField()
    stakes = serializers.DictField(child=serializers.IntegerField())
    seats_max = serializers.IntegerField()
    buy_in_minor_min = serializers.IntegerField()
    buy_in_minor_max = serializers.IntegerField()
    rake = serializers.DictField()
    drop = serializers.DictField(allow_null=True)
    jackpot = serializers.CharField(allow_null=True)
    banzai = serializers.BooleanField()
    jackpot_time_fee = serializers.DictField(allow_null=True)
    electronic = serializers.BooleanField(default=False)


class TimeChargeSerializer(serializers.Serializer):
    consenting_players = serializers.ListField(
        child=serializers.CharField(max_length=40), default=list,
        help_text="Players who agreed to the time charge, where the rules ask for it.")


class TimeChargeResultSerializer(serializers.Serializer):
    table_id = serializers.CharField()
    rake_minor = serializers.IntegerField()
    jackpot_minor = serializers.IntegerField()
    period_minutes = serializers.IntegerField()
    stacks_minor = serializers.DictField(child=serializers.IntegerField())
    position = serializers.IntegerField()


class SeatSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    player_id = serializers.CharField()
    stack = MoneyField(source="stack_minor")
    stack_minor = serializers.IntegerField()


class TableDetailsSerializer(TableSerializer):
    seats = SeatSerializer(many=True)
    hands_started = serializers.IntegerField()
    table_stacks_minor = serializers.IntegerField(
        help_text="Balance of the table's ledger account: the sum of the stacks.")


# A seat is paid from or to the gaming account, in banknotes, or in the
# venue's cage chips (casino/poker/commands/seats.py SEAT_MEANS).
SEAT_MEANS = ("account", "cash", "chips")


class BuyInSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=1, max_value=12)
    player_id = serializers.CharField(max_length=40)
    amount = MoneyField()
    paid_with = serializers.ChoiceField(choices=SEAT_MEANS, default="account")


class CashOutSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=1, max_value=12)
    player_id = serializers.CharField(max_length=40)
    paid_to = serializers.ChoiceField(choices=SEAT_MEANS, default="account")


class SeatResultSerializer(serializers.Serializer):
    event_type = serializers.CharField()
    table_id = serializers.CharField()
    seat = serializers.IntegerField()
    player_id = serializers.CharField()
    amount = MoneyField(source="amount_minor")
    amount_minor = serializers.IntegerField()
    method = serializers.CharField()
    stack_minor = serializers.IntegerField()
    position = serializers.IntegerField()


class MissedBlindSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=1, max_value=12)
    missed = serializers.ChoiceField(
        choices=[m.value for m in MissedBlind],
        help_text="`big`: missed the big blind (and so the small); posts the big blind"
                  " live and the small blind dead (000:L1141-1155). `small`: posts the"
                  " small blind, live (000:L1158-1167).")


class HandStartSerializer(serializers.Serializer):
    button = serializers.IntegerField(min_value=1, max_value=12)
    small_blind_seat = serializers.IntegerField(
        min_value=1, max_value=12, required=False, allow_null=True,
        help_text="Moving-blind cases only (000:L1036-1070); with big_blind_seat."
                  " Null with big_blind_seat set: no small blind this hand.")
    big_blind_seat = serializers.IntegerField(min_value=1, max_value=12, required=False)
    straddles = serializers.IntegerField(min_value=0, max_value=11, default=0,
                                         help_text="Live straddles (000:L975-985).")
    first_seat = serializers.IntegerField(
        min_value=1, max_value=12, required=False,
        help_text="Stud without blinds: the seat that brings in (000:L2170-2186).")
    missed_blinds = MissedBlindSerializer(
        many=True, required=False,
        help_text="Returning players who post their missed blinds to play at once"
                  " (000:L1133-1167).")

    def validate_missed_blinds(self, value):
        seats = [entry["seat"] for entry in value]
        if len(set(seats)) != len(seats):
            raise serializers.ValidationError("one entry a seat")
        return {entry["seat"]: entry["missed"] for entry in value}

    def validate(self, data):
        if "small_blind_seat" in data and "big_blind_seat" not in data:
            raise serializers.ValidationError(
                {"big_blind_seat": "give it with small_blind_seat"})
        return data


ACTION_KINDS = [k.value for k in ActionKind] + [OPEN_STREET, MUCK]


class ActionSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=1, max_value=12)
    kind = serializers.ChoiceField(
        choices=ACTION_KINDS,
        help_text="A player action; or `open_street` (stud): the dealer names the"
                  " seat that acts first on the street (000:L2201-2213); or `muck`:"
                  " at the showdown the player throws the hand away unshown, a dead"
                  " hand (000:L245-248).")
    amount = MoneyField(required=False,
                        help_text="Bet or raise: the total on the street after it (to).")
    open_pair = serializers.BooleanField(
        default=False, help_text="open_street on fourth street of limit stud with an open"
                                 " pair: the big unit may be used (000:L2216-2230).")


class AwardSerializer(serializers.Serializer):
    seat = serializers.IntegerField(min_value=1, max_value=12)
    amount = MoneyField()


class ShowdownSerializer(serializers.Serializer):
    board = serializers.CharField(max_length=40, allow_blank=True, required=False,
                                  help_text='Community cards, e.g. "2c 7d 9h Js 4c"'
                                            ' (blank for a game without a board).'
                                            ' Give `board` or `boards`.')
    boards = serializers.ListField(
        child=serializers.CharField(max_length=40, allow_blank=True), min_length=2,
        max_length=2, required=False,
        help_text='Double Flop: the two boards, first then second (000:L2017-2034),'
                  ' e.g. ["Ah Kd 7c 2s 3h", "Qs Jd 9c 5h 4d"]. Give `board` or `boards`.')
    runs = serializers.ListField(
        child=serializers.CharField(max_length=40), min_length=2, max_length=2,
        required=False,
        help_text='The board run twice after an all-in (003:L132-136): both complete'
                  ' boards, sharing the cards out before the all-in. Instead of `board`;'
                  ' needs `agreed_by`.')
    agreed_by = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=12), required=False,
        help_text="With `runs`: the seats that agreed, every player in the hand"
                  " (003:L135).")
    hands = serializers.DictField(child=serializers.CharField(max_length=40),
                                  help_text='Seat -> cards of every player still'
                                            ' holding cards (mucked hands are dead).')
    claimed_awards = AwardSerializer(many=True)

    def validate_hands(self, value):
        try:
            return {int(seat): cards for seat, cards in value.items()}
        except ValueError:
            raise serializers.ValidationError("keys are seat numbers") from None

    def validate(self, data):
        # One field for the cards on the table: a board, Double Flop's two,
        # or a board run twice.
        if sum(field in data for field in ("board", "boards", "runs")) != 1:
            raise serializers.ValidationError(
                {"board": "give one of board, boards (Double Flop's two) or runs (the board"
                          " run twice)"})
        if ("runs" in data) != ("agreed_by" in data):
            raise serializers.ValidationError(
                {"agreed_by": "runs and agreed_by go together (003:L135)"})
        if "boards" in data:
            data["board"] = list(data.pop("boards"))
        data.setdefault("board", None)
        return data


class HandHistorySerializer(HandStartSerializer):
    """A complete hand in one request, validated step by step like the actions."""

    actions = ActionSerializer(many=True, help_text="In order, forced bets excluded"
                               " (they follow from the deal).")
    showdown = ShowdownSerializer(required=False, help_text="When the betting ended"
                                  " with two or more players in.")
    void_reason = serializers.CharField(max_length=500, required=False,
                                        help_text="A misdeal: the hand is voided.")

    def validate(self, data):
        data = super().validate(data)
        if "showdown" in data and "void_reason" in data:
            raise serializers.ValidationError("give a showdown or a void_reason, not both")
        return data


class VoidSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=500)


class DecisionSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(
        choices=["settle_verified", "void"],
        help_text="Settle with the verified awards, or void the hand.")
    note = serializers.CharField(max_length=500, help_text="Why: on the record.")


class HandResultSerializer(serializers.Serializer):
    hand_id = serializers.CharField()
    table_id = serializers.CharField()
    number = serializers.IntegerField()
    state = serializers.CharField()
    phase = serializers.CharField()
    to_act = serializers.IntegerField(allow_null=True)
    pot_minor = serializers.IntegerField()
    stacks_minor = serializers.DictField(child=serializers.IntegerField())
    rake_minor = serializers.IntegerField()
    drop_minor = serializers.IntegerField()
    awards_verified = serializers.DictField(child=serializers.IntegerField(), allow_null=True)
    awards_claimed = serializers.DictField(child=serializers.IntegerField(), allow_null=True)
    positions = serializers.ListField(child=serializers.IntegerField())


class HandSerializer(serializers.Serializer):
    """A hand as its projection holds it."""

    hand_id = serializers.CharField(source="id")
    table_id = serializers.CharField()
    number = serializers.IntegerField()
    state = serializers.CharField()
    button = serializers.IntegerField()
    to_act = serializers.IntegerField(allow_null=True)
    pot_minor = serializers.IntegerField()
    stacks_minor = serializers.DictField(child=serializers.IntegerField())
    rake_minor = serializers.IntegerField()
    drop_minor = serializers.IntegerField()
    awards_minor = serializers.DictField(child=serializers.IntegerField(), allow_null=True)
