"""Serializers of the machines API.

Money goes in as decimal strings in major units ("2.00", casino.api.
MoneyField; a round's total, re-used part and win may be "0.00") and
comes out as `_minor` integers.
"""

from __future__ import annotations

from rest_framework import serializers

from casino.api import MoneyField, StrictSerializer

from ..commands import BATCH_ROUNDS_MAX, GAMES_MAX, ROUND_STAKES_MAX
from ..models import MachineKind


class AmountField(MoneyField):
    """Like MoneyField, but zero is an amount too (a round that won nothing)."""

    def to_internal_value(self, data) -> int:
        if isinstance(data, str) and data.strip() in ("0", "0.0", "0.00"):
            return 0
        return super().to_internal_value(data)


class MachinePremisesEntrySerializer(StrictSerializer):
    venue = serializers.CharField(max_length=60)
    adults_only = serializers.BooleanField(
        help_text="Whether only people aged 18 or over enter (002:L1401, L3371).")


class MachinePremisesSerializer(StrictSerializer):
    venue = serializers.CharField()
    adults_only = serializers.BooleanField()
    position = serializers.IntegerField()


class MachineRegisterSerializer(StrictSerializer):
    machine_id = serializers.RegexField(r"^[A-Za-z0-9._-]{1,60}$",
                                        help_text="The machine's own id (asset number).")
    venue = serializers.CharField(max_length=60)
    kind = serializers.ChoiceField(choices=MachineKind.choices)
    games = serializers.ListField(child=serializers.CharField(max_length=80),
                                  min_length=1, max_length=GAMES_MAX)
    long_interactive_rounds = serializers.BooleanField(required=False, default=False)


class MachineSerializer(StrictSerializer):
    machine_id = serializers.CharField()
    venue = serializers.CharField()
    kind = serializers.CharField()
    games = serializers.ListField(child=serializers.CharField())
    long_interactive_rounds = serializers.BooleanField()
    currency = serializers.CharField()
    rulebook = serializers.CharField()
    credit_minor = serializers.IntegerField(required=False)
    position = serializers.IntegerField(required=False)


class MachineStakeSerializer(StrictSerializer):
    option = serializers.CharField(max_length=40, required=False, default="",
                                   help_text="The line or option staked on.")
    unit = serializers.CharField(
        max_length=40, required=False, default=None, allow_null=True,
        help_text="The Part IV bet unit: slots need none; terminal roulette"
                  " `position_number_field` or `position_side_field`; blackjack machine"
                  " `main`, `side_game` or `raise`; electronic poker table"
                  " `opening_stake` or `raise`.")
    amount = MoneyField()


class MachineRoundSerializer(StrictSerializer):
    round_id = serializers.RegexField(r"^[A-Za-z0-9._-]{1,80}$",
                                      help_text="The machine's own round id.")
    stakes = serializers.ListField(child=MachineStakeSerializer(), max_length=ROUND_STAKES_MAX,
                                   required=False, default=list)
    total = AmountField(help_text="Every stake of the round, re-used ones included.")
    reused = AmountField(required=False, default=0,
                         help_text="The part of the total staked from the round's own"
                                   " earlier wins (002:L3373).")
    win = AmountField(required=False, default=0, help_text="Every win of the round.")
    player_id = serializers.CharField(max_length=40, required=False, default=None,
                                      allow_null=True, help_text="A card-in player.")
    played_at = serializers.DateTimeField(required=False, default=None, allow_null=True)


class RoundsReportSerializer(StrictSerializer):
    rounds = serializers.ListField(child=MachineRoundSerializer(), min_length=1,
                                   max_length=BATCH_ROUNDS_MAX)


class MachineRoundOutcomeSerializer(serializers.Serializer):
    round_id = serializers.CharField()
    status = serializers.ChoiceField(choices=["accepted", "refused"])
    code = serializers.CharField(allow_null=True)
    rule = serializers.CharField(allow_null=True)
    message = serializers.CharField(allow_blank=True)
    position = serializers.IntegerField(allow_null=True)
    replayed = serializers.BooleanField()


class RoundsReportedSerializer(serializers.Serializer):
    machine_id = serializers.CharField()
    accepted = serializers.IntegerField()
    refused = serializers.IntegerField()
    rounds = MachineRoundOutcomeSerializer(many=True)
    position = serializers.IntegerField()


class MachineCashInSerializer(StrictSerializer):
    amount = MoneyField()


class MachineEmptySerializer(StrictSerializer):
    pass


class MachineCreditSerializer(serializers.Serializer):
    machine_id = serializers.CharField()
    amount_minor = serializers.IntegerField()
    voucher_id = serializers.CharField(allow_null=True)
    position = serializers.IntegerField()


class VoucherRedemptionSerializer(StrictSerializer):
    machine_id = serializers.CharField(
        max_length=60, required=False, default=None, allow_null=True,
        help_text="Redeem into this machine's credit; none: cash at the venue's cage.")


class VoucherSerializer(serializers.Serializer):
    voucher_id = serializers.CharField()
    venue = serializers.CharField()
    amount_minor = serializers.IntegerField()
    redeemed_at = serializers.CharField()
    machine_id = serializers.CharField(allow_null=True)
    position = serializers.IntegerField()


class MachineMetersSerializer(serializers.Serializer):
    machine_id = serializers.CharField()
    day = serializers.DateField()
    coin_in_minor = serializers.IntegerField()
    coin_out_minor = serializers.IntegerField()
    ledger_coin_in_minor = serializers.IntegerField()
    ledger_coin_out_minor = serializers.IntegerField()
    cash_in_minor = serializers.IntegerField()
    vouchers_issued_minor = serializers.IntegerField()
    vouchers_redeemed_minor = serializers.IntegerField()
    rounds = serializers.IntegerField()
    rounds_rejected = serializers.IntegerField()
