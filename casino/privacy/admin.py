"""Officer screens for erasures: who proposed, who approved, when (read-only).

The keys are never shown: their table has no admin.
"""

from django.contrib import admin

from ledger import ReadOnlyAdmin

from .models import Erasure


@admin.register(Erasure)
class ErasureAdmin(ReadOnlyAdmin):
    list_display = ["player_id", "state", "proposed_by", "approved_by", "proposed_position",
                    "erased_position"]
    list_filter = ["state"]
    search_fields = ["=player_id"]
