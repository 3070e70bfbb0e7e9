"""Officer and accountant screens for the cashier windows, read-only.

A shift shows its bank and count by denomination, the expected amount and
the over/short with its reason (money, counts and times are made readable
by casino.officers.readable); transfers show their two signatures.
"""

from django.contrib import admin

from casino.compliance.admin import RoleViewMixin
from casino.roles import Role
from ledger import ReadOnlyAdmin

from .models import Shift, Transfer

ROLES = (Role.COMPLIANCE_OFFICER, Role.AUDITOR, Role.ACCOUNTANT)


@admin.register(Shift)
class ShiftAdmin(RoleViewMixin, ReadOnlyAdmin):
    view_roles = ROLES
    list_display = ["window", "venue", "cashier", "state", "gaming_day", "bank_minor",
                    "expected_minor", "counted_minor", "over_short_minor", "reason",
                    "opened_at", "closed_at"]
    list_filter = ["state", "venue", "gaming_day"]
    search_fields = ["=cashier", "=window", "=id"]
    fields = ["id", "venue", "window", "cashier", "state", "gaming_day", "bank",
              "bank_minor", "opened_at", "opened_position", "count", "counted_minor",
              "expected_minor", "over_short_minor", "reason", "closed_at",
              "closed_position"]


@admin.register(Transfer)
class TransferAdmin(RoleViewMixin, ReadOnlyAdmin):
    view_roles = ROLES
    list_display = ["id", "venue", "source", "target", "amount_minor", "first_signature",
                    "second_signature", "gaming_day", "made_at"]
    list_filter = ["venue", "gaming_day"]
    search_fields = ["=id", "=first_signature", "=second_signature"]
