"""Read-only admin of the machines' projections (the events are the record)."""

from django.contrib import admin

from ledger import ReadOnlyAdmin

from .models import Machine, MachineDay, Premises, Voucher


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
