"""Request and answer bodies of the webhook subscriptions API."""

from rest_framework import serializers

from casino.api import StrictSerializer

from ..models import EVENT_TYPES_MAX, URL_LENGTH_MAX, VENUES_MAX

# Decision (issue 18): during a rotation the previous secrets stay valid a
# day by default, at most a week, so receivers can switch without downtime.
PREVIOUS_VALID_SECONDS_DEFAULT = 86_400
PREVIOUS_VALID_SECONDS_MAX = 7 * 86_400


class SubscriptionRequestSerializer(StrictSerializer):
    url = serializers.URLField(max_length=URL_LENGTH_MAX,
                               help_text="Where deliveries are POSTed (http or https).")
    event_types = serializers.ListField(
        child=serializers.RegexField(r"^[a-z_]+(\.[a-z_]*)?$", max_length=100),
        max_length=EVENT_TYPES_MAX, default=list,
        help_text="Event types (`cage.deposit_made`) or prefixes (`cage.`); empty: all"
                  " the client may read.")
    venues = serializers.ListField(child=serializers.CharField(max_length=50),
                                   max_length=VENUES_MAX, default=list,
                                   help_text="Venue codes; empty: all the client may read.")


class RotationRequestSerializer(StrictSerializer):
    previous_valid_seconds = serializers.IntegerField(
        min_value=0, max_value=PREVIOUS_VALID_SECONDS_MAX,
        default=PREVIOUS_VALID_SECONDS_DEFAULT,
        help_text="How long the secrets in use stay valid beside the new one.")


class SecretSerializer(serializers.Serializer):
    id = serializers.CharField()
    created_at = serializers.DateTimeField()
    retires_at = serializers.DateTimeField(allow_null=True)


class SubscriptionSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="The subscription's id; its events' stream is"
                                         " `webhook/<id>`.")
    url = serializers.URLField()
    event_types = serializers.ListField(child=serializers.CharField())
    venues = serializers.ListField(child=serializers.CharField())
    active = serializers.BooleanField()
    starts_after_position = serializers.IntegerField(
        help_text="Deliveries are of the main book's events after this position.")
    starts_after_heads = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Per book key, the position after which its events are delivered (a"
                  " book opened later: all of its events).")
    created_at = serializers.DateTimeField()
    secrets = SecretSerializer(many=True, help_text="Active secrets, newest first.")


class SubscriptionCreatedSerializer(SubscriptionSerializer):
    secret = serializers.CharField(help_text="The new signing secret: shown in this answer"
                                             " only (and its replay).")
