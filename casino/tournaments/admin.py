"""Officer screens for tournaments: each tournament and its entrants, read-only.

The money itself is in the ledger's accounts (`tournament/<id>/prize_pool`,
`tournament/<id>/bounties`, `house/<venue>/tournament_fees`), shown by
ledger.admin.
"""

from django.contrib import admin

from ledger import ReadOnlyAdmin

from .models import Entrant, Tournament


@admin.register(Tournament)
class TournamentAdmin(ReadOnlyAdmin):
    list_display = ["id", "name", "venue", "format", "state", "entries", "re_entries",
                    "players_left", "pool_minor", "fees_minor", "bounties_minor",
                    "paid_field", "last_position"]
    list_filter = ["venue", "format", "state"]
    search_fields = ["=id", "name"]


@admin.register(Entrant)
class EntrantAdmin(ReadOnlyAdmin):
    list_display = ["tournament", "player_id", "status", "entries", "rebuys", "add_ons",
                    "paid_minor", "bounty_minor", "bounties_won_minor", "place",
                    "prize_minor"]
    list_filter = ["status", "tournament__venue"]
    search_fields = ["=player_id", "=tournament__id"]
