"""Read-only admin for the log and the balances.

Events, postings and accounts are backed by the log: no user, superusers
included, may add, change or delete them here. Corrections are new events.
"""

from django.contrib import admin

from .models import Account, Event, IdempotencyRecord, Posting


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class PostingInline(ReadOnlyInline):
    model = Posting
    fields = ["index", "account", "amount_minor", "currency"]
    readonly_fields = fields


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ["position", "type", "stream", "version", "gaming_day", "occurred_at"]
    list_filter = ["type", "gaming_day"]
    search_fields = ["=stream", "=idempotency_key", "type"]
    date_hierarchy = "occurred_at"
    inlines = [PostingInline]
    show_full_result_count = False


@admin.register(Posting)
class PostingAdmin(ReadOnlyAdmin):
    list_display = ["event", "index", "account", "amount_minor", "currency"]
    list_filter = ["currency", "event__gaming_day"]
    search_fields = ["=account__code", "=event__stream"]
    list_select_related = ["event"]
    show_full_result_count = False


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ["code", "type", "currency", "balance_minor", "must_not_go_negative",
                    "balance_max_minor", "last_position"]
    list_filter = ["type", "currency", "must_not_go_negative"]
    search_fields = ["code", "name"]


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdmin):
    list_display = ["key", "first_position", "last_position", "recorded_at"]
    search_fields = ["=key"]
