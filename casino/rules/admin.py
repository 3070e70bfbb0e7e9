"""Officer screens for rulebooks: every figure with its citation, read-only."""

from django.contrib import admin

from ledger import ReadOnlyAdmin, ReadOnlyInline

from .models import Decision, Figure, RulebookVersion, RuleTable, StakeLimit, Venue, WinLimit


class StakeLimitInline(ReadOnlyInline):
    model = StakeLimit
    fields = ["game", "bet_unit", "stake_minor_max", "raise_rule", "cite", "note"]
    readonly_fields = fields


class WinLimitInline(ReadOnlyInline):
    model = WinLimit
    fields = ["limit_id", "scope", "win_minor_max", "cite", "note"]
    readonly_fields = fields


class DecisionInline(ReadOnlyInline):
    model = Decision
    fields = ["topic", "decision", "reason", "cite"]
    readonly_fields = fields


class RuleTableInline(ReadOnlyInline):
    model = RuleTable
    fields = ["table_key", "cite", "note", "decision", "rows"]
    readonly_fields = fields


@admin.register(RulebookVersion)
class RulebookVersionAdmin(ReadOnlyAdmin):
    list_display = ["rulebook_id", "version", "effective_from", "venue_type", "seed",
                    "time_zone", "loaded_position"]
    list_filter = ["venue_type", "rulebook_id"]
    inlines = [StakeLimitInline, WinLimitInline, DecisionInline, RuleTableInline]


@admin.register(StakeLimit)
class StakeLimitAdmin(ReadOnlyAdmin):
    list_display = ["rulebook", "game", "bet_unit", "stake_minor_max", "raise_rule", "cite"]
    list_filter = ["rulebook", "game", "bet_unit", "raise_rule"]
    search_fields = ["game", "bet_unit", "cite"]


class FigureUnitFilter(admin.SimpleListFilter):
    """The figure's unit, amounts in minor units named "money"."""

    title = "unit"
    parameter_name = "unit"

    def lookups(self, request, model_admin):
        units = Figure.objects.order_by("unit").values_list("unit", flat=True).distinct()
        return [(unit, "money" if unit == "minor" else unit) for unit in units]

    def queryset(self, request, queryset):
        return queryset.filter(unit=self.value()) if self.value() else queryset


@admin.register(Figure)
class FigureAdmin(ReadOnlyAdmin):
    list_display = ["rulebook", "figure_key", "value", "unit", "cite", "decision"]
    list_filter = ["rulebook", FigureUnitFilter]
    search_fields = ["figure_key", "cite", "note"]


@admin.register(Decision)
class DecisionAdmin(ReadOnlyAdmin):
    list_display = ["rulebook", "topic", "decision", "cite"]
    list_filter = ["rulebook"]
    search_fields = ["topic", "decision", "reason"]


@admin.register(RuleTable)
class RuleTableAdmin(ReadOnlyAdmin):
    list_display = ["rulebook", "table_key", "cite", "decision"]
    list_filter = ["rulebook"]
    search_fields = ["table_key", "cite", "note"]


@admin.register(Venue)
class VenueAdmin(ReadOnlyAdmin):
    list_display = ["code", "name", "rulebook_id", "currency", "time_zone", "gaming_day_start"]
