"""Serializers of the games API.

Stakes go in as decimal strings in major units ("10.00", casino.api.
MoneyField); amounts come out as `_minor` integers. Payouts are never taken
from a client: a dealer's declared payouts are compared with the computed
ones and a difference holds the round.
"""

from __future__ import annotations

from rest_framework import serializers

from casino.api import StrictSerializer, MoneyField

from ..engine import GAMES


class GameTableOpenSerializer(StrictSerializer):
    venue = serializers.CharField(max_length=60)
    game = serializers.ChoiceField(choices=sorted(GAMES))
    config = serializers.DictField(
        required=False, default=dict,
        help_text="Blackjack: `version` (a-s, base, variant_a, variant_b), `blackjack_pays`"
                  " (e.g. `3:2`), `side_game` (a-i). Punto banco: `banco` (`commission`,"
                  " `no_commission_6`, `no_commission_5`). Texas Hold'em Bonus: `ante_rule`"
                  " (a-c), `bonus_table` (i, ii). Ultimate Texas Hold'em: `trips_table`"
                  " (i-iv). Oasis: `version` (base, a, b, c, d), `win_minor_max` (the table's"
                  " posted win cap), `bonus` (fixed, progressive). Punto banco also"
                  " `commission_minor_min`. Roulette (casino): `wheel` (single_zero, double_zero)."
                  " Pai gow: `bank` (house, player). Open-faced chinese"
                  " poker and chinese poker: `point_value_minor`, `scoring`. Other games:"
                  " none.")
    stake_min = MoneyField(help_text="The table's posted minimum stake.")
    stake_max = MoneyField(help_text="The table's posted maximum; the Part IV cap applies"
                           " when lower.")


class GameTableSerializer(StrictSerializer):
    table_id = serializers.CharField()
    venue = serializers.CharField()
    game = serializers.CharField()
    currency = serializers.CharField()
    rulebook = serializers.CharField()
    config = serializers.DictField()
    stake_minor_min = serializers.IntegerField()
    stake_minor_max = serializers.IntegerField()


# A stake is paid from the gaming account or in the venue's cage chips
# (casino/games/commands.py STAKE_MEANS, decision games.stake_means).
STAKE_MEANS = ("account", "chips")


class GameBetPlaceSerializer(StrictSerializer):
    player_id = serializers.CharField(max_length=40)
    kind = serializers.CharField(max_length=40, help_text="e.g. `straight`, `red`, `ante`,"
                                 " `play`, `box`, `double`, `banco`, `symbol`.")
    spec = serializers.DictField(required=False, default=dict,
                                 help_text="Where the bet is: `numbers`, `which`, `box`,"
                                           " `hand`, `total`, `symbol`...")
    stake = MoneyField()
    paid_with = serializers.ChoiceField(
        choices=STAKE_MEANS, default="account",
        help_text="`account`: from the gaming account; `chips`: the venue's chips bought at"
                  " its cage (land tables), the return paid back in chips.")


class GameBetResultSerializer(StrictSerializer):
    bet_id = serializers.CharField()
    round_id = serializers.CharField()
    player_id = serializers.CharField()
    kind = serializers.CharField()
    spec = serializers.DictField()
    bet_unit = serializers.CharField()
    stake_minor = serializers.IntegerField(help_text="The valid stake taken.")
    void_minor = serializers.IntegerField(help_text="The part above the cap: void, never"
                                          " taken (002:L139).")
    cap_minor = serializers.IntegerField(allow_null=True)


class GameEmptySerializer(StrictSerializer):
    pass


class GameOutcomeSerializer(StrictSerializer):
    outcome = serializers.DictField(
        help_text="The game's facts: roulette `number`; lucky dice `red`, `green`; sic bo"
                  " `dice`; money wheel `symbol`; punto banco `punto`, `banco` cards;"
                  " three-card games `dealer` and `boxes`; blackjack `dealer` and `boxes`"
                  " ({hands, surrender, even_money}); red dog `base`, `third` (bulldog"
                  " `thirds`); hold'em games `dealer`, `board`, `boxes`; oasis `dealer`,"
                  " `boxes`, `dealer_replacement` (version d: `community`, `boxes`);"
                  " pai gow `dealer` (7 cards, `JK` the joker),"
                  " `boxes` ({front, back}) and with a player bank `banker` ({front, back}),"
                  " `dealer_stake_minor`; baccara `punto`, `banco`, `choices`; triple bet"
                  " `community`, `boxes`, `withdrawn`; chinese poker games `button`, `hands`"
                  " ({seat: {front, middle, back}}).")


class GameSettleSerializer(StrictSerializer):
    declared = serializers.DictField(child=MoneyField(), required=False, default=dict,
                                     help_text="bet id -> what the dealer pays back on it,"
                                               " stake included; compared, never trusted.")


class GameVoidSerializer(StrictSerializer):
    reason = serializers.CharField(max_length=200)


class GameBetSerializer(StrictSerializer):
    bet_id = serializers.CharField(source="id")
    player_id = serializers.CharField()
    kind = serializers.CharField()
    spec = serializers.DictField()
    bet_unit = serializers.CharField()
    stake_minor = serializers.IntegerField()
    void_minor = serializers.IntegerField()
    returned_minor = serializers.IntegerField(allow_null=True,
                                              help_text="Computed payout, stake included.")
    result = serializers.CharField()
    pay_table = serializers.CharField(help_text="Rulebook table key of the rule applied.")
    row = serializers.CharField(help_text="Row id in that table.")
    cite = serializers.CharField(help_text="Seed line of the rule.")
    commission_minor = serializers.IntegerField()
    declared_minor = serializers.IntegerField(allow_null=True)
    detail = serializers.DictField()


class GameRoundSerializer(StrictSerializer):
    round_id = serializers.CharField(source="id")
    table_id = serializers.CharField()
    number = serializers.IntegerField()
    state = serializers.CharField()
    outcome = serializers.DictField(allow_null=True)
    staked_minor = serializers.IntegerField()
    returned_minor = serializers.IntegerField()
    commission_minor = serializers.IntegerField()
    contribution_minor = serializers.IntegerField(help_text="Posted to progressive pools.")
    house_minor = serializers.IntegerField()
    void_reason = serializers.CharField()
    bets = GameBetSerializer(many=True)
