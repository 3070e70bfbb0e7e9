"""Officer screens for players: read-only, since every change is an event."""

from django.contrib import admin

from ledger import ReadOnlyAdmin, ReadOnlyInline

from .models import Player, PlayerLimit


class PlayerLimitInline(ReadOnlyInline):
    model = PlayerLimit
    fields = ["kind", "value", "pending_value", "pending_effective_at", "cite"]
    readonly_fields = fields


@admin.register(Player)
class PlayerAdmin(ReadOnlyAdmin):
    list_display = ["id", "given_name", "family_name", "date_of_birth", "verification_status",
                    "self_excluded_until"]
    list_filter = ["verification_status", "nationality"]
    search_fields = ["=id", "family_name", "given_name"]
    exclude = ["identity_key"]
    inlines = [PlayerLimitInline]
