"""Serializers for the players API.

The identity document number goes in once, at registration, and never comes
back out: the player shows only `document_hint` (its last three characters).
A limit's value is money for the spending limits ("150.00", via MoneyField)
and whole minutes for `daily_time`, in both directions.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from casino.api import StrictSerializer, MoneyField

from ..commands import DOCUMENT_TYPES, NAME_LENGTH_MAX
from ..models import LimitKind, Player, PlayerLimit, VerificationMethod

LIMIT_VALUE_SCHEMA = {
    "oneOf": [
        {"type": "string", "example": "150.00", "description": "daily_spend, monthly_spend"},
        {"type": "integer", "example": 90, "description": "daily_time, in minutes"},
    ]
}


class PlayerSerializer(serializers.ModelSerializer):
    class Meta:
        model = Player
        fields = [
            "id",
            "given_name",
            "family_name",
            "date_of_birth",
            "nationality",
            "document_hint",
            "verification_status",
            "verification_method",
            "verified_at",
            "self_excluded_from",
            "self_excluded_until",
            "registered_position",
            "last_position",
        ]


class PlayerRegistrationSerializer(StrictSerializer):
    given_name = serializers.CharField(max_length=NAME_LENGTH_MAX)
    family_name = serializers.CharField(max_length=NAME_LENGTH_MAX)
    date_of_birth = serializers.DateField()
    nationality = serializers.CharField(help_text="ISO 3166 two-letter code, e.g. `FI`.")
    document_type = serializers.ChoiceField(choices=sorted(DOCUMENT_TYPES))
    document_number = serializers.CharField(
        write_only=True, trim_whitespace=False,
        help_text="Stored only as a hash (one player per document) and a hint of its"
                  " last three characters; never returned.",
    )


class IdentityVerificationSerializer(StrictSerializer):
    method = serializers.ChoiceField(choices=VerificationMethod.choices)


class SelfExclusionSerializer(StrictSerializer):
    months = serializers.IntegerField(
        help_text="1 to the venue rulebook's maximum (12 at ray-online, 002:L3086).")
    venue = serializers.CharField(help_text="The venue whose rulebook governs, e.g. `ray-online`.")


@extend_schema_field(LIMIT_VALUE_SCHEMA)
class LimitValueField(serializers.JSONField):
    """Money or minutes, depending on the limit's kind: checked by the serializer."""


class LimitSettingSerializer(StrictSerializer):
    """A player's own limit; `validate` turns `value` into the stored integer."""

    kind = serializers.ChoiceField(choices=LimitKind.choices)
    value = LimitValueField(help_text='Money as a string for the spending limits ("150.00"),'
                                      " whole minutes for daily_time.")
    venue = serializers.CharField(help_text="The venue whose rulebook sets the cooling-off.")

    def validate(self, attrs: dict) -> dict:
        value = attrs["value"]
        if attrs["kind"] == LimitKind.DAILY_TIME:
            if type(value) is not int or value <= 0:
                raise serializers.ValidationError(
                    {"value": ["daily_time is a whole number of minutes greater than zero"]})
            return attrs
        try:
            attrs["value"] = MoneyField().run_validation(value)
        except serializers.ValidationError as error:
            raise serializers.ValidationError({"value": error.detail}) from None
        return attrs


def _limit_value(kind: str, value: int | None) -> str | int | None:
    if value is None or kind == LimitKind.DAILY_TIME:
        return value
    return MoneyField().to_representation(value)


class PlayerLimitSerializer(StrictSerializer):
    """A limit as it stands at `context["now"]`.

    `value` is the limit in force now; `pending_value` and
    `pending_effective_at` show a raise still waiting out its cooling-off,
    and are null once it applies (it is then the `value`).
    """

    kind = serializers.ChoiceField(choices=LimitKind.choices)
    unit = serializers.SerializerMethodField()
    value = serializers.SerializerMethodField()
    pending_value = serializers.SerializerMethodField()
    pending_effective_at = serializers.SerializerMethodField()
    cite = serializers.CharField(help_text="The rulebook line that sets the cooling-off.")

    def _pending(self, limit: PlayerLimit) -> bool:
        return (limit.pending_effective_at is not None
                and self.context["now"] < limit.pending_effective_at)

    @extend_schema_field({"type": "string", "enum": ["money", "minutes"]})
    def get_unit(self, limit: PlayerLimit) -> str:
        return "minutes" if limit.kind == LimitKind.DAILY_TIME else "money"

    @extend_schema_field(LIMIT_VALUE_SCHEMA)
    def get_value(self, limit: PlayerLimit) -> str | int:
        return _limit_value(limit.kind, limit.value_at(self.context["now"]))

    @extend_schema_field({**LIMIT_VALUE_SCHEMA, "nullable": True})
    def get_pending_value(self, limit: PlayerLimit) -> str | int | None:
        return _limit_value(limit.kind, limit.pending_value) if self._pending(limit) else None

    @extend_schema_field({"type": "string", "format": "date-time", "nullable": True})
    def get_pending_effective_at(self, limit: PlayerLimit) -> str | None:
        if not self._pending(limit):
            return None
        return serializers.DateTimeField().to_representation(limit.pending_effective_at)
