"""Serializers for the rules read API: rulebook versions, their cited rows, venues.

Limits keep the rulebook files' own names and units (`stake_minor_max`, an
integer of cents), as casino.api allows for fields that say `_minor`, so a
row reads the same here as in casino/rules/data and the seed it cites.

`ErrorSerializer` documents the `{"code", "message", "details"}` body of
casino.exception_handler; it lives here, in the app every other app may
import, so the schema has one `Error` component.
"""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from casino.api import ErrorSerializer  # noqa: F401  re-exported for the apps' schemas
from casino.api import StrictSerializer

from ..models import Decision, Figure, RulebookVersion, StakeLimit, Venue, VenueType, WinLimit


class RulebookVersionSerializer(serializers.ModelSerializer):
    class Meta:
        model = RulebookVersion
        fields = [
            "key",
            "rulebook_id",
            "version",
            "effective_from",
            "effective_from_cite",
            "seed",
            "title",
            "venue_type",
            "currency",
            "time_zone",
            "content_sha256",
            "source_name",
            "loaded_position",
        ]


class StakeLimitSerializer(serializers.ModelSerializer):
    class Meta:
        model = StakeLimit
        fields = ["limit_id", "game", "bet_unit", "stake_minor_max", "raise_rule", "cite", "note"]


class WinLimitSerializer(serializers.ModelSerializer):
    class Meta:
        model = WinLimit
        fields = ["limit_id", "scope", "win_minor_max", "cite", "note"]


class FigureSerializer(serializers.ModelSerializer):
    value = serializers.JSONField(help_text="A number, string or boolean, in `unit`.")

    class Meta:
        model = Figure
        fields = ["figure_key", "value", "unit", "cite", "note", "decision", "effective_from"]


class DecisionSerializer(serializers.ModelSerializer):
    class Meta:
        model = Decision
        fields = ["index", "topic", "decision", "reason", "cite"]


class RulebookVersionDetailsSerializer(RulebookVersionSerializer):
    stake_limits = StakeLimitSerializer(many=True)
    win_limits = WinLimitSerializer(many=True)
    figures = FigureSerializer(many=True)
    decisions = DecisionSerializer(many=True)

    class Meta(RulebookVersionSerializer.Meta):
        fields = RulebookVersionSerializer.Meta.fields + [
            "stake_limits",
            "win_limits",
            "figures",
            "decisions",
        ]


@extend_schema_field({"type": "string", "pattern": r"^([01][0-9]|2[0-3]):[0-5][0-9]$",
                      "example": "06:00"})
class WallClockField(serializers.TimeField):
    """A wall-clock time in a venue's zone, "HH:MM"; not an RFC 3339 time,
    whose offset would change with DST."""

    def __init__(self, **kwargs):
        super().__init__(format="%H:%M", **kwargs)


class VenueSerializer(serializers.ModelSerializer):
    gaming_day_start = WallClockField(help_text="Local wall-clock time in `time_zone`.")

    class Meta:
        model = Venue
        fields = [
            "code",
            "name",
            "rulebook_id",
            "currency",
            "time_zone",
            "gaming_day_start",
            "venue_type",
            "adults_only",
            "registered_position",
        ]


class VenueRegistrationSerializer(StrictSerializer):
    code = serializers.RegexField(r"^[A-Za-z0-9._-]{1,60}$", help_text="The venue's code.")
    name = serializers.CharField(max_length=200)
    rulebook_id = serializers.CharField(max_length=60)
    venue_type = serializers.ChoiceField(
        choices=VenueType.choices,
        help_text="gaming_hall, partner_premises, casino or online (the poker and tournament"
                  " types too): must be the rulebook's type.")
    adults_only = serializers.BooleanField(
        required=False, default=False,
        help_text="Partner premises only: only people aged 18 or over enter (002:L1401,"
                  " L3371).")
    gaming_day_start = serializers.TimeField(required=False, default=None, allow_null=True)


class VenueChangeSerializer(StrictSerializer):
    name = serializers.CharField(max_length=200, required=False)
    adults_only = serializers.BooleanField(required=False)
