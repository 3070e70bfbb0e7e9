"""Serializers of the tournaments API.

Money goes in as integer minor units where a field says `_minor`; answers
give both. Errors are the shared `Error` component (casino.api).
"""

from __future__ import annotations

from rest_framework import serializers

from casino.api import StrictSerializer

FORMATS = ("freezeout", "rebuy", "re_entry", "bounty", "progressive_bounty", "satellite",
           "sit_and_go", "hexapro")
ENTRY_KINDS = ("entry", "late_entry", "re_entry")


class PriceSerializer(StrictSerializer):
    prize_minor = serializers.IntegerField(min_value=0, help_text="To the prize pool.")
    fee_minor = serializers.IntegerField(min_value=0, default=0, help_text="To the house.")
    bounty_minor = serializers.IntegerField(min_value=0, default=0,
                                            help_text="Onto the buyer's bounty.")


class SpecialPrizeSerializer(StrictSerializer):
    name = serializers.SlugField(max_length=60)
    basis_points = serializers.IntegerField(min_value=1, max_value=9_999,
                                            help_text="Its share of the pool as fixed.")
    description = serializers.CharField(
        max_length=200, default="", allow_blank=True,
        help_text="What wins it, as the structure says.")


class AnnounceSerializer(StrictSerializer):
    venue = serializers.CharField(max_length=60)
    name = serializers.CharField(max_length=200)
    format = serializers.ChoiceField(choices=FORMATS)
    entry = PriceSerializer()
    rebuy = PriceSerializer(required=False, allow_null=True, default=None)
    add_on = PriceSerializer(required=False, allow_null=True, default=None)
    re_entry = serializers.BooleanField(default=False)
    entries_per_player_max = serializers.IntegerField(min_value=1, max_value=100, default=1)
    rebuys_per_player_max = serializers.IntegerField(min_value=0, required=False,
                                                     allow_null=True, default=None)
    re_entries_per_paid_field_step = serializers.IntegerField(
        min_value=1, required=False, allow_null=True, default=None,
        help_text="Paid field +1 per this many re-entries; default from the rulebook.")
    progressive_basis_points = serializers.IntegerField(
        min_value=0, max_value=10_000, required=False, allow_null=True, default=None)
    payout_table = serializers.SlugField(default="standard",
                                         help_text="`tournaments.payout.<this>` of the rulebook.")
    min_entrants = serializers.IntegerField(min_value=2, required=False, allow_null=True,
                                            default=None)
    seats_per_table = serializers.IntegerField(min_value=2, max_value=12, default=9)
    satellite_seat_minor = serializers.IntegerField(min_value=1, required=False,
                                                    allow_null=True, default=None)
    reserved_basis_points = serializers.IntegerField(
        min_value=0, max_value=9_999, default=0,
        help_text="The share of the pool kept for a later tournament (000:L3386-3388).")
    reserve_added_minor = serializers.IntegerField(
        min_value=0, default=0,
        help_text="What this pool takes from the venue's tournament reserve when fixed.")
    guaranteed_pool_minor = serializers.IntegerField(
        min_value=0, default=0,
        help_text="The pool the house guarantees, topped up when the pool is fixed"
                  " (001:L580); with an entry of 0 a freeroll (001:L330-332, L602).")
    special_prizes = SpecialPrizeSerializer(
        many=True, required=False, default=list,
        help_text="Prizes from the pool the structure announces with their share, e.g."
                  " the first player out (000:L3410-3413); where the rulebook offers"
                  " them.")
    target_tournament_id = serializers.CharField(
        max_length=60, required=False, allow_null=True, default=None,
        help_text="A satellite's target: its seats are entries there, paid from the"
                  " satellite's pool; it must be registering, in the same currency,"
                  " and its buy-in including the fee is the seat's value.")


class PlayerSerializer(StrictSerializer):
    player_id = serializers.CharField(max_length=40)


class EntrySerializer(PlayerSerializer):
    kind = serializers.ChoiceField(choices=ENTRY_KINDS, default="entry")
    payment = serializers.ChoiceField(
        choices=["account", "ticket"], default="account",
        help_text="`ticket`: paid from the player's own tournament tickets (seats won and"
                  " not used; 000:L3344-3345, 001:L312).")


class SpecialPrizeAwardSerializer(PlayerSerializer):
    prize = serializers.SlugField(
        max_length=60, help_text="The special prize's name in the structure.")


class UnregisterSerializer(PlayerSerializer):
    approved_by = serializers.CharField(
        max_length=150, required=False,
        help_text="The poker manager who approved the withdrawal, where the rules ask for"
                  " it (Tallinn, 003:L174).")


class ReasonSerializer(PlayerSerializer):
    reason = serializers.CharField(max_length=500)


class OutSerializer(StrictSerializer):
    player_id = serializers.CharField(max_length=40)
    stack = serializers.IntegerField(min_value=0, default=0,
                                     help_text="Chips at the start of the hand.")
    table = serializers.CharField(max_length=40, default="", allow_blank=True)
    tie_break = serializers.IntegerField(min_value=1, required=False, allow_null=True,
                                         default=None)


class EliminationSerializer(StrictSerializer):
    outs = OutSerializer(many=True)
    eliminators = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField(max_length=40)),
        default=dict, help_text="Eliminated player -> who took their chips.")


class DealSerializer(StrictSerializer):
    amounts_minor = serializers.DictField(child=serializers.IntegerField(min_value=0))
    consents = serializers.ListField(child=serializers.CharField(max_length=40))
    pay_by_table = serializers.BooleanField(default=False)


class StacksSerializer(StrictSerializer):
    stacks = serializers.DictField(child=serializers.IntegerField(min_value=1), default=dict,
                                   help_text="Chip counts of the players still in.")


class FinishSerializer(StrictSerializer):
    final_stacks = serializers.DictField(child=serializers.IntegerField(min_value=0),
                                         default=dict)


class DrawSerializer(StrictSerializer):
    multiplier = serializers.RegexField(
        r"^x[0-9_]+$", required=False,
        help_text='Omitted: the house draws it with the published probabilities'
                  ' (001:L480-487). Given (e.g. "x25", "x1_5"): a draw the game client'
                  ' made, recorded as such.')


class EmptySerializer(StrictSerializer):
    pass


class TransferSerializer(StrictSerializer):
    source = serializers.CharField(source="from")
    to = serializers.CharField()
    amount_minor = serializers.IntegerField()
    reason = serializers.CharField()


class TournamentResultSerializer(StrictSerializer):
    tournament_id = serializers.CharField()
    event_type = serializers.CharField()
    positions = serializers.ListField(child=serializers.IntegerField())
    state = serializers.CharField()
    pool_minor = serializers.IntegerField()
    fees_minor = serializers.IntegerField()
    bounties_minor = serializers.IntegerField()
    transfers = TransferSerializer(many=True)


class EntrantSerializer(StrictSerializer):
    player_id = serializers.CharField()
    status = serializers.CharField()
    entries = serializers.IntegerField()
    rebuys = serializers.IntegerField()
    add_ons = serializers.IntegerField()
    paid_minor = serializers.IntegerField()
    bounty_minor = serializers.IntegerField()
    bounties_won_minor = serializers.IntegerField()
    place = serializers.IntegerField(allow_null=True)
    prize_minor = serializers.IntegerField()


class PrizeSerializer(StrictSerializer):
    place = serializers.IntegerField()
    prize_minor = serializers.IntegerField()


class TournamentSerializer(StrictSerializer):
    """A tournament: the prize pool and payout table are shown before payment."""

    id = serializers.CharField()
    name = serializers.CharField()
    venue = serializers.CharField()
    currency = serializers.CharField()
    rulebook = serializers.CharField()
    format = serializers.CharField()
    state = serializers.CharField()
    entries = serializers.IntegerField()
    re_entries = serializers.IntegerField()
    players_left = serializers.IntegerField()
    pool_minor = serializers.IntegerField()
    fees_minor = serializers.IntegerField()
    bounties_minor = serializers.IntegerField()
    paid_field = serializers.IntegerField()
    prize_table = PrizeSerializer(many=True)
    payout = serializers.JSONField(allow_null=True)
    config = serializers.JSONField()
    entrants = EntrantSerializer(many=True, source="entrants.all")
