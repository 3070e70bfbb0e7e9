"""Serializers of the cage API.

Amounts go in and come out as decimal strings in major units ("150.00",
casino.api.MoneyField); every balance also comes out in minor units. Errors
are documented by the one shared `Error` component
(casino.api.ErrorSerializer).
"""

from __future__ import annotations

from rest_framework import serializers

from casino.api import StrictSerializer, ErrorSerializer, MoneyField

# Named once so the OpenAPI schema gives them stable enum names
# (SPECTACULAR_SETTINGS["ENUM_NAME_OVERRIDES"]).
TRANSFER_METHODS = ("cash", "bank")
CHIP_PAYMENT_MEANS = ("cash", "account")


class _CageRequestSerializer(StrictSerializer):
    player_id = serializers.CharField(max_length=40)
    venue = serializers.CharField(max_length=60,
                                  help_text="Venue code, e.g. `casino-helsinki`.")
    amount = MoneyField(help_text='Major units, at most two decimals, as a string: "150.00".')
    currency = serializers.RegexField(
        r"^[A-Z]{3}$", help_text="ISO 4217: the venue's currency.",
        error_messages={"invalid": "a three-letter ISO 4217 code"})
    window = serializers.RegexField(
        r"^[^/:]{1,40}$", required=False,
        help_text="The cashier window that served it (optional): its cash moves, so its"
                  " shift's count expects it; the window needs an open shift.")


class DepositSerializer(_CageRequestSerializer):
    method = serializers.ChoiceField(choices=TRANSFER_METHODS,
                                     help_text="Cash at the cage, or a bank transfer.")


class WithdrawalSerializer(_CageRequestSerializer):
    method = serializers.ChoiceField(choices=TRANSFER_METHODS,
                                     help_text="Cash from the cage, or a bank transfer.")


class ChipPurchaseSerializer(_CageRequestSerializer):
    paid_with = serializers.ChoiceField(choices=CHIP_PAYMENT_MEANS,
                                        help_text="Cash, or the player's gaming account.")


class ChipRedemptionSerializer(_CageRequestSerializer):
    paid_to = serializers.ChoiceField(choices=CHIP_PAYMENT_MEANS,
                                      help_text="Cash, or the player's gaming account.")


class CageTransactionSerializer(StrictSerializer):
    """A cage request's outcome; balances as of its event."""

    event_type = serializers.CharField()
    position = serializers.IntegerField(help_text="Position of the cage event in the log.")
    positions = serializers.ListField(child=serializers.IntegerField(),
                                      help_text="Every event the request wrote: the cage"
                                                " event, then any AML alerts.")
    player_id = serializers.CharField()
    venue = serializers.CharField()
    amount = MoneyField(source="amount_minor")
    amount_minor = serializers.IntegerField()
    currency = serializers.CharField()
    method = serializers.CharField(help_text="cash, bank or account.")
    gaming_day = serializers.DateField()
    account_balance = MoneyField(source="account_balance_minor",
                                 help_text="The player's gaming account after the request.")
    account_balance_minor = serializers.IntegerField()
    cage_cash = MoneyField(source="cage_cash_minor")
    cage_cash_minor = serializers.IntegerField()
    chips_outstanding = MoneyField(source="chips_outstanding_minor",
                                   help_text="The venue's chip float after the request.")
    chips_outstanding_minor = serializers.IntegerField()
    alerts = serializers.ListField(child=serializers.CharField(),
                                   help_text="Kinds of the AML alerts the request raised.")


class VenueFloatSerializer(StrictSerializer):
    venue = serializers.CharField()
    currency = serializers.CharField()
    cage_cash = MoneyField(source="cage_cash_minor")
    cage_cash_minor = serializers.IntegerField()
    chips_outstanding = MoneyField(source="chips_outstanding_minor",
                                   help_text="Chips sold and not yet redeemed: the chip float.")
    chips_outstanding_minor = serializers.IntegerField()
    as_of_position = serializers.IntegerField(help_text="The log position the balances are at.")
