"""Subscriptions, their signing secrets, and the outbox of deliveries."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

URL_LENGTH_MAX = 500
EVENT_TYPES_MAX = 100
VENUES_MAX = 100


class Subscription(models.Model):
    """A URL that receives the events of some types and venues its owner may read."""

    # The id clients use, and the stream of its events (`webhook/<public_id>`).
    public_id = models.CharField(max_length=32, unique=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="webhook_subscriptions")
    # The key the subscription was made with: its venues narrow the reach,
    # as they narrow the feed (None: a session, every venue).
    key = models.ForeignKey("keys.ClientKey", on_delete=models.SET_NULL, null=True,
                            blank=True, related_name="webhook_subscriptions")
    url = models.URLField(max_length=URL_LENGTH_MAX)
    event_types = models.JSONField(
        default=list, blank=True,
        help_text="Event types, or prefixes ending in a dot (`cage.`); empty: every type"
                  " the owner may read.")
    venues = models.JSONField(default=list, blank=True,
                              help_text="Venue codes; empty: every venue the owner may read.")
    active = models.BooleanField(default=True)
    # The `webhooks.subscribed` event that recorded it.
    recorded_position = models.BigIntegerField(default=0)
    # The main book's head when it was made, and every book's (book key ->
    # position; empty for a subscription made before books were recorded:
    # the main book's alone): deliveries start after them (backfill below).
    starts_after_position = models.BigIntegerField(default=0)
    starts_after_heads = models.JSONField(default=dict, blank=True)
    # False until the sender has filled the outbox for the events committed
    # between those heads and the moment every writer process saw the
    # subscription (projections.SUBSCRIPTIONS_CACHE_SECONDS).
    backfilled = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"webhook {self.public_id} -> {self.url}"


class SigningSecret(models.Model):
    """An HMAC-SHA256 key of a subscription; active until `retires_at` (None: no end)."""

    subscription = models.ForeignKey(Subscription, on_delete=models.CASCADE,
                                     related_name="secrets")
    # Named by the event that made it (`webhooks.subscribed`/`secret_rotated`).
    public_id = models.CharField(max_length=32, unique=True)
    secret = models.CharField(max_length=100)
    created_at = models.DateTimeField(default=timezone.now)
    retires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"secret {self.public_id} of webhook {self.subscription_id}"

    def active_at(self, moment) -> bool:
        return self.retires_at is None or self.retires_at > moment


class Delivery(models.Model):
    """One event for one subscription: the outbox row, then its sending record."""

    class Status(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        DEAD = "dead"           # attempts exhausted: the dead-letter state
        WITHHELD = "withheld"   # no longer within the owner's reach when sent

    subscription = models.ForeignKey(Subscription, on_delete=models.CASCADE,
                                     related_name="deliveries")
    position = models.BigIntegerField()
    stream = models.CharField(max_length=200)
    event_type = models.CharField(max_length=100)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.IntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    last_status_code = models.IntegerField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "deliveries"
        constraints = [models.UniqueConstraint(fields=["subscription", "position"],
                                               name="webhooks_delivery_once")]
        indexes = [
            models.Index(fields=["subscription", "status", "position"],
                         name="webhooks_delivery_pending"),
            models.Index(fields=["status", "next_attempt_at"], name="webhooks_delivery_due"),
        ]

    def __str__(self) -> str:
        return f"position {self.position} to webhook {self.subscription_id} ({self.status})"
