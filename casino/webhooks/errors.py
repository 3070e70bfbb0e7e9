"""Webhook errors, each with a stable code (never renamed)."""

from enum import StrEnum

from casino.errors import CodedError


class WebhookErrorCode(StrEnum):
    UNKNOWN_SUBSCRIPTION = "webhooks.unknown_subscription"
    """No subscription of this client with that id: 404."""
    EVENT_TYPE_OUT_OF_REACH = "webhooks.event_type_out_of_reach"
    """A chosen type the client's roles may not read in the feed: 422."""
    VENUE_OUT_OF_REACH = "webhooks.venue_out_of_reach"
    """A chosen venue the client's API key does not serve: 422."""


class WebhookError(CodedError):
    """A subscription request refused; nothing was written."""
