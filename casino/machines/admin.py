"""Read-only admin of the machines' projections (the events are the record)."""

from django.contrib import admin

from ledger import ReadOnlyAdmin

from .models import (
    Machine,
    MachineDay,
    MachineJackpot,
    MachineJackpotHit,
    MachineRound,
    MalfunctionCredit,
    MeterReconciliation,
    Premises,
    SlotTournament,
    Voucher,
)


@admin.register(Machine)
class MachineAdmin(ReadOnlyAdmin):
    list_display = ("id", "venue", "kind", "long_interactive_rounds", "rulebook")
    list_filter = ("venue", "kind")


@admin.register(Premises)
class PremisesAdmin(ReadOnlyAdmin):
    list_display = ("venue", "adults_only", "posted_position")


@admin.register(MachineDay)
class MachineDayAdmin(ReadOnlyAdmin):
    list_display = ("machine", "day", "coin_in_minor", "coin_out_minor", "rounds",
                    "rounds_rejected", "vouchers_issued_minor")
    list_filter = ("day",)


@admin.register(Voucher)
class VoucherAdmin(ReadOnlyAdmin):
    list_display = ("id", "venue", "machine", "amount_minor", "state", "redeemed_at")
    list_filter = ("venue", "state")


@admin.register(MachineRound)
class MachineRoundAdmin(ReadOnlyAdmin):
    list_display = ("key", "status", "rule", "total_minor", "player_id", "position")
    list_filter = ("status",)
    search_fields = ("machine_id", "round_id")


@admin.register(MachineJackpot)
class MachineJackpotAdmin(ReadOnlyAdmin):
    list_display = ("id", "venue", "type", "scope", "drawn_by", "amount", "hits")
    list_filter = ("venue", "type", "amount")


@admin.register(MachineJackpotHit)
class MachineJackpotHitAdmin(ReadOnlyAdmin):
    list_display = ("key", "jackpot", "machine", "round_id", "paid_minor", "position")


@admin.register(MalfunctionCredit)
class MalfunctionCreditAdmin(ReadOnlyAdmin):
    list_display = ("id", "machine", "venue", "amount_minor", "free_games", "state",
                    "proposed_by", "decided_by")
    list_filter = ("state", "venue")


@admin.register(SlotTournament)
class SlotTournamentAdmin(ReadOnlyAdmin):
    list_display = ("id", "venue", "state", "entry_fee_minor", "entries", "fees_minor")
    list_filter = ("venue", "state")


@admin.register(MeterReconciliation)
class MeterReconciliationAdmin(ReadOnlyAdmin):
    list_display = ("key", "venue", "day", "reconciled", "machines")
    list_filter = ("venue", "reconciled")
