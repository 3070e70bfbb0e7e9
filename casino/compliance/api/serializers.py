"""Serializers for the compliance API: the dry-run check, alerts, corrections.

Money is a decimal string in major units, as everywhere in the API. A
correction's amount is the one signed amount: it moves `account` in its
natural direction (a positive amount raises its balance, a negative one
lowers it), so `SignedMoneyField` accepts "-25.00" where MoneyField would not.
"""

from __future__ import annotations

import re
import typing
from decimal import Decimal

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from casino.api import StrictSerializer, MoneyField

from ..checks import AttemptKind
from ..models import Alert, Correction, WagerCategory

SIGNED_MONEY = re.compile(r"^-?[0-9]{1,10}(\.[0-9]{1,2})?$")


@extend_schema_field({"type": "string", "example": "-25.00"})
class SignedMoneyField(MoneyField):
    """A non-zero amount in major units as a string, either sign, as minor units."""

    default_error_messages = {
        "invalid": 'give the amount as a string with at most two decimals, e.g. "-25.00"',
        "zero": "the amount must not be zero",
    }

    def to_internal_value(self, data) -> int:
        if isinstance(data, bool) or not isinstance(data, (str, int)):
            self.fail("invalid")
        text = str(data).strip()
        if not SIGNED_MONEY.match(text):
            self.fail("invalid")
        minor = int(Decimal(text) * 100)
        if minor == 0:
            self.fail("zero")
        return minor


class StakeCheckSerializer(StrictSerializer):
    """An attempt to check: what, where, how much, and by whom (optional)."""

    kind = serializers.ChoiceField(choices=typing.get_args(AttemptKind), default="stake")
    venue = serializers.CharField()
    player_id = serializers.CharField(required=False, allow_null=True, default=None,
                                      help_text="Without it, only the venue's rules apply.")
    game = serializers.CharField(required=False, allow_null=True, default=None,
                                 help_text="Required for a stake, e.g. `roulette`.")
    bet_unit = serializers.CharField(required=False, allow_null=True, default=None,
                                     help_text="Required for a stake, e.g. `numbers_1`.")
    category = serializers.ChoiceField(choices=WagerCategory.choices, required=False,
                                       allow_null=True, default=None,
                                       help_text="For the daily loss caps.")
    account = serializers.CharField(required=False, allow_null=True, default=None,
                                    help_text="The player's gaming account, for a deposit's"
                                              " balance ceiling.")
    amount = MoneyField()
    currency = serializers.CharField()

    def validate(self, attrs: dict) -> dict:
        if attrs["kind"] == "stake":
            missing = {name: ["a stake names its game and bet unit"]
                       for name in ("game", "bet_unit") if not attrs.get(name)}
            if missing:
                raise serializers.ValidationError(missing)
        return attrs


class FailureSerializer(StrictSerializer):
    code = serializers.CharField(help_text="The check that failed, e.g. `compliance.max_stake`.")
    message = serializers.CharField()
    limit = MoneyField(source="limit_minor", allow_null=True)
    amount = MoneyField(source="amount_minor")
    cite = serializers.CharField(help_text="The seed line of the rule, e.g. `002:L3395`.")
    hint = serializers.CharField(help_text="What the officer or player can do.")


class VerdictSerializer(StrictSerializer):
    allowed = serializers.BooleanField()
    checks_passed = serializers.ListField(child=serializers.CharField(),
                                          help_text="In precedence order, up to the failure.")
    rulebook = serializers.CharField(help_text="The rulebook version applied, `<id>@<version>`.")
    failure = FailureSerializer(allow_null=True)


class AlertSerializer(serializers.ModelSerializer):
    class Meta:
        model = Alert
        fields = ["id", "kind", "player_id", "venue", "summary", "details", "raised_position",
                  "raised_at"]


class CorrectionProposalSerializer(StrictSerializer):
    account = serializers.CharField(help_text="The account to correct, e.g. `player/x/account`.")
    counter_account = serializers.CharField(help_text="Takes the other leg, same currency.")
    amount = SignedMoneyField(help_text="Moves `account` in its natural direction: positive"
                                        " raises its balance, negative lowers it.")
    reason = serializers.CharField(help_text="Why, with the ticket or case; 10+ characters.")


class CorrectionApprovalSerializer(StrictSerializer):
    note = serializers.CharField(required=False, allow_blank=True, default="")


class CorrectionRejectionSerializer(StrictSerializer):
    note = serializers.CharField(help_text="Why it is rejected.")


class CorrectionSerializer(serializers.ModelSerializer):
    amount = SignedMoneyField(source="amount_minor")
    balance_before = SignedMoneyField(source="balance_before_minor",
                                      help_text="`account`'s balance when proposed (natural"
                                                " direction).")
    balance_after = SignedMoneyField(source="balance_after_minor", allow_null=True,
                                     help_text="`account`'s balance once posted.")

    class Meta:
        model = Correction
        fields = ["id", "state", "account", "counter_account", "amount", "currency", "reason",
                  "proposed_by", "proposed_at", "balance_before", "decided_by", "decided_at",
                  "decision_note", "balance_after", "last_position"]
