"""Officer screens for poker: tables, seats and hands, read-only.

Every row is a projection of events; the chips themselves are the ledger's
`table/<id>/stacks` accounts, shown by ledger.admin.
"""

from django.contrib import admin

from ledger import ReadOnlyAdmin

from .models import Hand, Seat, Table


@admin.register(Table)
class TableAdmin(ReadOnlyAdmin):
    list_display = ["id", "venue", "variant", "structure", "seats_max", "buy_in_minor_min",
                    "buy_in_minor_max", "hands_started"]
    list_filter = ["venue", "variant"]
    search_fields = ["=id"]


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ["table", "number", "player_id", "stack_minor"]
    search_fields = ["=player_id", "=table__id"]


@admin.register(Hand)
class HandAdmin(ReadOnlyAdmin):
    list_display = ["id", "table", "number", "state", "pot_minor", "rake_minor", "drop_minor"]
    list_filter = ["state"]
    search_fields = ["=id"]
