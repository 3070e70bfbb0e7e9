"""Serializers of the machines API.

Money goes in as decimal strings in major units ("2.00", casino.api.
MoneyField; a round's total, re-used part and win may be "0.00") and
comes out as `_minor` integers.
"""

from __future__ import annotations

from rest_framework import serializers

from casino.api import MoneyField, StrictSerializer

from ..commands import (BATCH_ROUNDS_MAX, GAMES_MAX, JACKPOT_LINKS_MAX, ROUND_STAKES_MAX,
                        SOLO_GAMES, STAKE_OPTIONS_MAX)
from ..meters import REPORTED_METERS
from ..models import JackpotAmount, JackpotDrawnBy, JackpotScope, JackpotType
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
    long_interactive_rounds = serializers.BooleanField(
        required=False, default=False,
        help_text="Online slots only: a game whose rounds are notably long and interactive"
                  " (EUR 100 a round instead of 20, 002:L3477-3479).")
    paylines = serializers.IntegerField(required=False, default=None, allow_null=True,
                                        min_value=1, max_value=ROUND_STAKES_MAX)
    stake_options = serializers.ListField(child=MoneyField(), required=False, default=list,
                                          max_length=STAKE_OPTIONS_MAX,
                                          help_text="The stake amounts offered; none: any.")
    jackpot_links = serializers.ListField(child=serializers.CharField(max_length=40),
                                          required=False, default=list,
                                          max_length=JACKPOT_LINKS_MAX)
    online_game = serializers.ChoiceField(
        choices=sorted(SOLO_GAMES), required=False, default=None, allow_null=True,
        help_text="An online solo casino game's Part IV game (002:L3457-3461).")


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
    paylines = serializers.IntegerField(allow_null=True, required=False)
    stake_options = serializers.ListField(child=serializers.IntegerField(), required=False)
    jackpot_links = serializers.ListField(child=serializers.CharField(), required=False)
    online_game = serializers.CharField(allow_blank=True, required=False)


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
    jackpots_minor = serializers.IntegerField()
    cancelled_credits_minor = serializers.IntegerField()
    malfunction_credits_minor = serializers.IntegerField()
    jackpot_contributions_minor = serializers.IntegerField()


class JackpotTermsSerializer(StrictSerializer):
    """The venue's posted terms (configuration: the seed gives no figures)."""

    contribution_bp = serializers.IntegerField(required=False, min_value=1, max_value=10_000,
                                               help_text="Progressive: basis points of each"
                                                         " qualifying round's total.")
    seed = MoneyField(required=False, help_text="Progressive: the pool's first amount.")
    reset = AmountField(required=False, help_text="Progressive: the pool after a hit.")
    fixed = MoneyField(required=False, help_text="Fixed: the amount paid.")
    multiplier = serializers.IntegerField(required=False, min_value=1,
                                          help_text="Multiplier: times the hit round's total.")
    qualifying_stake = AmountField(required=False,
                                   help_text="The least round total that takes part"
                                             " (002:L1389).")
    combination = serializers.CharField(required=False, max_length=80,
                                        help_text="Combination jackpots: what triggers it.")


class MachineJackpotSerializer(StrictSerializer):
    jackpot_id = serializers.RegexField(r"^[A-Za-z0-9._-]{1,40}$")
    venue = serializers.CharField(max_length=60)
    name = serializers.CharField(max_length=200)
    type = serializers.ChoiceField(choices=JackpotType.choices)
    scope = serializers.ChoiceField(choices=JackpotScope.choices)
    drawn_by = serializers.ChoiceField(choices=JackpotDrawnBy.choices)
    amount = serializers.ChoiceField(choices=JackpotAmount.choices)
    terms = JackpotTermsSerializer()
    machines = serializers.ListField(child=serializers.CharField(max_length=60),
                                     min_length=1, max_length=500)


class MachineJackpotPostedSerializer(serializers.Serializer):
    jackpot_id = serializers.CharField()
    venue = serializers.CharField()
    type = serializers.CharField()
    scope = serializers.CharField()
    drawn_by = serializers.CharField()
    amount = serializers.CharField()
    terms = serializers.DictField()
    machines = serializers.ListField(child=serializers.CharField())
    pools = serializers.DictField(child=serializers.CharField())
    position = serializers.IntegerField()


class JackpotHitSerializer(StrictSerializer):
    machine_id = serializers.CharField(max_length=60)
    round_id = serializers.CharField(max_length=80)
    drawn_by = serializers.ChoiceField(choices=JackpotDrawnBy.choices)
    combination = serializers.CharField(max_length=80, required=False, default=None,
                                        allow_null=True)


class JackpotHitPaidSerializer(serializers.Serializer):
    jackpot_id = serializers.CharField()
    machine_id = serializers.CharField()
    round_id = serializers.CharField()
    amount_minor = serializers.IntegerField()
    paid_minor = serializers.IntegerField()
    capped_minor = serializers.IntegerField()
    reseed_minor = serializers.IntegerField()
    position = serializers.IntegerField()


class MalfunctionProposalSerializer(StrictSerializer):
    device_record = serializers.DictField(
        help_text="The device's own record: wins_minor, credits_minor, free_games (whole"
                  " numbers) and whatever else it logged (002:L1383-1385).")
    displayed = serializers.DictField(required=False, default=dict,
                                      help_text="What the display showed, for the record.")
    reason = serializers.CharField(max_length=2000)
    round_id = serializers.CharField(max_length=80, required=False, default=None,
                                     allow_null=True)
    player_id = serializers.CharField(max_length=40, required=False, default=None,
                                      allow_null=True, help_text="Online: whose account.")


class MalfunctionDecisionSerializer(StrictSerializer):
    note = serializers.CharField(max_length=2000, required=False, default="")


class MalfunctionCreditSerializer(serializers.Serializer):
    credit_id = serializers.CharField()
    machine_id = serializers.CharField()
    state = serializers.CharField()
    amount_minor = serializers.IntegerField()
    free_games = serializers.IntegerField()
    differences = serializers.DictField()
    position = serializers.IntegerField()


class PrizesSerializer(StrictSerializer):
    """Either fixed amounts or shares of the fees, first place first (002:L3317)."""

    fixed = serializers.ListField(child=MoneyField(), required=False, max_length=100)
    share_bp = serializers.ListField(child=serializers.IntegerField(min_value=1),
                                     required=False, max_length=100)


class SlotTournamentSerializer(StrictSerializer):
    tournament_id = serializers.RegexField(r"^[A-Za-z0-9._-]{1,40}$")
    venue = serializers.CharField(max_length=60)
    name = serializers.CharField(max_length=200)
    entry_fee = MoneyField(help_text="Capped: EUR 20 halls (002:L3375), EUR 2,000 casino"
                                     " (L3445), EUR 500 online (L3487).")
    prizes = PrizesSerializer()


class SlotTournamentPrizesSerializer(StrictSerializer):
    prizes = PrizesSerializer()


class SlotTournamentEntrySerializer(StrictSerializer):
    player_id = serializers.CharField(max_length=40)


class SlotTournamentFinishSerializer(StrictSerializer):
    ranking = serializers.ListField(child=serializers.CharField(max_length=40),
                                    max_length=100, help_text="Player ids, best first.")


class SlotTournamentStateSerializer(serializers.Serializer):
    tournament_id = serializers.CharField()
    venue = serializers.CharField()
    state = serializers.CharField()
    entry_fee_minor = serializers.IntegerField()
    prizes = serializers.DictField()
    paid = serializers.DictField(child=serializers.IntegerField())
    position = serializers.IntegerField()


class MeterReadingsSerializer(serializers.DictField):
    child = serializers.IntegerField(min_value=0)


class MetersReconciliationRequestSerializer(StrictSerializer):
    venue = serializers.CharField(max_length=60)
    gaming_day = serializers.DateField()
    reported = serializers.DictField(
        child=serializers.DictField(child=serializers.IntegerField(min_value=0)),
        required=False, default=dict,
        help_text=f"Per machine, the meters it reports: any of {', '.join(REPORTED_METERS)}.")


class MetersReconciliationSerializer(serializers.Serializer):
    venue = serializers.CharField()
    gaming_day = serializers.DateField()
    reconciled = serializers.BooleanField()
    machines = serializers.DictField()
    differences = serializers.ListField(child=serializers.DictField())
    alerts = serializers.IntegerField()
    position = serializers.IntegerField()


class MachinePayOutSerializer(StrictSerializer):
    to = serializers.ChoiceField(choices=["cash_desk", "account"],
                                 help_text="The venue's cash desk (the win verified from the"
                                           " machine, 002:L1399) or the player's account.")
    player_id = serializers.CharField(max_length=40, required=False, default=None,
                                      allow_null=True)
