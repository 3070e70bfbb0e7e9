"""Officer screens for the cage: each venue's daily movements, read-only.

The balances themselves (cage cash, the chip float, gaming accounts) are the
ledger's accounts, shown by ledger.admin; the float is also served by
GET /api/v1/cage/venues/<venue>/float.
"""

from django.contrib import admin

from ledger import ReadOnlyAdmin

from .models import CageDay


@admin.register(CageDay)
class CageDayAdmin(ReadOnlyAdmin):
    list_display = ["venue", "gaming_day", "currency", "deposits_cash_minor",
                    "withdrawals_cash_minor", "chips_sold_cash_minor",
                    "chips_redeemed_cash_minor", "cash_net_minor", "chips_net_minor",
                    "transactions", "last_position"]
    list_filter = ["venue", "gaming_day"]
    date_hierarchy = "gaming_day"
    search_fields = ["=venue"]
