"""Read-only admin of the games' projections (the events are the record)."""

from django.contrib import admin

from ledger import ReadOnlyAdmin

from .models import Bet, GameTable, Round


@admin.register(GameTable)
class GameTableAdmin(ReadOnlyAdmin):
    list_display = ("id", "venue", "game", "rulebook", "rounds_started")
    list_filter = ("venue", "game")


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    list_display = ("id", "state", "staked_minor", "returned_minor", "commission_minor",
                    "house_minor")
    list_filter = ("state",)


@admin.register(Bet)
class BetAdmin(ReadOnlyAdmin):
    list_display = ("id", "player_id", "kind", "stake_minor", "void_minor", "returned_minor",
                    "result", "row", "cite")
    search_fields = ("id", "player_id")
