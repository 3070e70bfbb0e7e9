"""Screens of table-games accounting: sessions with win and hold, and slips.

The chips by denomination: the stock at the cage's chip bank, each tray
and with the players; chip deliveries; the chip bank's counts with their
differences by denomination.

Read-only; money, counts and times are made readable by
casino.officers.readable. Hold is shown as a percentage.
"""

from django.contrib import admin

from casino.compliance.admin import RoleViewMixin
from casino.roles import Role
from ledger import ReadOnlyAdmin

from .models import ChipBankCount, ChipReceipt, ChipStock, Slip, TableSession

ROLES = (Role.COMPLIANCE_OFFICER, Role.AUDITOR, Role.ACCOUNTANT)


def hold_percent(basis_points: int | None) -> str:
    if basis_points is None:
        return "-"
    sign = "-" if basis_points < 0 else ""
    return f"{sign}{abs(basis_points) // 100}.{abs(basis_points) % 100:02d} %"


@admin.register(TableSession)
class TableSessionAdmin(RoleViewMixin, ReadOnlyAdmin):
    view_roles = ROLES
    list_display = ["table", "venue", "gaming_day", "state", "opening_minor", "fills_minor",
                    "credits_minor", "closing_minor", "drop_minor", "count_variance_minor",
                    "win_minor", "hold"]
    list_filter = ["state", "venue", "gaming_day"]
    search_fields = ["=table", "=id"]
    fields = ["id", "venue", "table", "state", "gaming_day", "opened_at", "opening_inventory",
              "opening_minor", "fills_minor", "credits_minor", "closed_at",
              "closing_inventory", "closing_minor", "drop_minor", "count_variance_minor",
              "counted_by", "win_minor", "hold", "last_position"]
    readonly_fields = ["hold"]

    @admin.display(description="hold", ordering="hold_basis_points")
    def hold(self, obj) -> str:
        return hold_percent(obj.hold_basis_points)


@admin.register(Slip)
class SlipAdmin(RoleViewMixin, ReadOnlyAdmin):
    view_roles = ROLES
    list_display = ["id", "kind", "table", "venue", "amount_minor", "cage_signature",
                    "table_signature", "made_at"]
    list_filter = ["kind", "venue"]
    search_fields = ["=id", "=table"]


@admin.register(ChipStock)
class ChipStockAdmin(RoleViewMixin, ReadOnlyAdmin):
    view_roles = ROLES
    list_display = ["venue", "place", "denomination_minor", "pieces", "value_minor",
                    "last_position"]
    list_filter = ["venue", "place"]
    search_fields = ["=place"]
    fields = ["venue", "place", "denomination_minor", "pieces", "currency", "last_position"]


@admin.register(ChipReceipt)
class ChipReceiptAdmin(RoleViewMixin, ReadOnlyAdmin):
    view_roles = ROLES
    list_display = ["id", "venue", "amount_minor", "first_signature", "second_signature",
                    "received_at"]
    list_filter = ["venue"]


@admin.register(ChipBankCount)
class ChipBankCountAdmin(RoleViewMixin, ReadOnlyAdmin):
    view_roles = ROLES
    list_display = ["id", "venue", "gaming_day", "counted_minor", "expected_minor",
                    "over_short_minor", "reason", "first_signature", "second_signature",
                    "counted_at"]
    list_filter = ["venue", "gaming_day"]
    fields = ["id", "venue", "gaming_day", "count", "counted_minor", "expected_count",
              "expected_minor", "count_differences", "over_short_minor", "reason",
              "first_signature", "second_signature", "counted_at", "position"]
