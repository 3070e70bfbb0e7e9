"""Officer screens for webhooks: subscriptions and their deliveries, failures first.

Read-only, like every screen of the event-backed apps. The signing
secrets' values are never shown (only when they were made and retire).
"""

from django.contrib import admin

from ledger import ReadOnlyAdmin, ReadOnlyInline

from .models import Delivery, SigningSecret, Subscription


class SigningSecretInline(ReadOnlyInline):
    model = SigningSecret
    fields = ["public_id", "created_at", "retires_at"]
    readonly_fields = fields


@admin.register(Subscription)
class SubscriptionAdmin(ReadOnlyAdmin):
    list_display = ["public_id", "owner", "url", "active", "event_types", "venues",
                    "starts_after_position", "created_at"]
    list_filter = ["active"]
    search_fields = ["=public_id", "url", "owner__username"]
    fields = ["public_id", "owner", "key", "url", "event_types", "venues", "active",
              "recorded_position", "starts_after_position", "backfilled", "created_at"]
    readonly_fields = fields
    inlines = [SigningSecretInline]


@admin.register(Delivery)
class DeliveryAdmin(ReadOnlyAdmin):
    list_display = ["id", "subscription", "position", "event_type", "stream", "status",
                    "attempts", "last_status_code", "last_error", "next_attempt_at",
                    "delivered_at"]
    list_filter = ["status", "event_type"]
    search_fields = ["=stream", "=position"]
    ordering = ["-position", "subscription"]
