"""Officer screens for alerts and corrections: read-only projections.

Deciding a correction goes through its command (API, and the officers'
admin actions of a later issue), so the two-person rule has one home.
"""

from django.contrib import admin

from ledger.admin import ReadOnlyAdmin

from .models import Alert, CashActivity, Correction, PlayerActivity


@admin.register(Alert)
class AlertAdmin(ReadOnlyAdmin):
    list_display = ["raised_at", "kind", "summary", "player_id", "venue", "raised_position"]
    list_filter = ["kind", "venue"]
    search_fields = ["=player_id", "summary"]


@admin.register(Correction)
class CorrectionAdmin(ReadOnlyAdmin):
    list_display = ["id", "state", "account", "amount_minor", "proposed_by", "decided_by",
                    "proposed_at"]
    list_filter = ["state"]


@admin.register(PlayerActivity)
class PlayerActivityAdmin(ReadOnlyAdmin):
    list_display = ["player_id", "venue", "day", "category", "staked_minor", "won_minor"]
    list_filter = ["category", "venue"]
    search_fields = ["=player_id"]


@admin.register(CashActivity)
class CashActivityAdmin(ReadOnlyAdmin):
    list_display = ["player_id", "venue", "gaming_day", "total_minor", "transactions"]
    search_fields = ["=player_id"]
