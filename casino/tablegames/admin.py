"""Screens of table-games accounting: sessions with win and hold, and slips.

The chips by denomination: the stock at the cage's chip bank, each tray
and with the players; chip deliveries; the chip bank's counts with their
differences by denomination.

Read-only; money, counts and times are made readable by
casino.officers.readable. Hold is shown as a percentage. The cage (its
role only) receives chips and counts the chip bank from the admin:
Chip receipts > "Receive chips", Chip bank counts > "Count the chip bank";
the forms call the same commands (through the runner) as the signed-in user,
who signs first; a resent form replays its first outcome.
"""

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from casino.compliance.admin import RoleViewMixin, form_token, report, request_key
from casino.counting import money
from casino.errors import CodedError
from casino.roles import Role, has_role
from ledger import ReadOnlyAdmin

from . import commands
from .forms import ChipCountForm, ChipReceiptForm
from .models import ChipBankCount, ChipReceipt, ChipStock, Slip, TableSession

ROLES = (Role.COMPLIANCE_OFFICER, Role.AUDITOR, Role.ACCOUNTANT)
CAGE = (Role.CAGE,)


class ChipsFormAdmin(RoleViewMixin, ReadOnlyAdmin):
    """A read-only list with one cage form in front of it (`action`)."""

    view_roles = ROLES + CAGE
    action = ""            # url name suffix and path
    action_title = ""
    form_class = ChipCountForm

    def get_urls(self):
        name = f"tablegames_{self.model._meta.model_name}_{self.action}"
        return [path(f"{self.action}/", self.admin_site.admin_view(self.form_view),
                     name=name)] + super().get_urls()

    def changelist_view(self, request, extra_context=None):
        extra = dict(extra_context or {})
        if has_role(request.user, *CAGE):
            extra["chips_action_url"] = reverse(
                f"admin:tablegames_{self.model._meta.model_name}_{self.action}")
            extra["chips_action_title"] = self.action_title
        return super().changelist_view(request, extra)

    def form_view(self, request):
        if not has_role(request.user, *CAGE):
            raise PermissionDenied
        from casino.rules.models import Venue

        venues = list(Venue.objects.order_by("code").values_list("code", flat=True))
        denominations = list(ChipStock.objects.values_list("denomination_minor", flat=True)
                             .distinct())
        form = self.form_class(request.POST or None, venues=venues,
                               denominations=denominations)
        changelist = f"admin:tablegames_{self.model._meta.model_name}_changelist"
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            actor = request.user.get_username()
            try:
                text = self.act(form, data, actor,
                                request_key(request, f"chips-{self.action}", data["venue"]))
            except CodedError as error:
                report(request, error)
            else:
                messages.success(request, text)
                return HttpResponseRedirect(reverse(changelist))
        return TemplateResponse(request, "admin/tablegames/chips_form.html", {
            **self.admin_site.each_context(request), "opts": self.model._meta,
            "title": self.action_title, "form": form, "changelist": changelist,
            "form_token": request.POST.get("form_token") or form_token()})

    def act(self, form, data, actor: str, key: str) -> str:
        raise NotImplementedError


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
class ChipReceiptAdmin(ChipsFormAdmin):
    action, action_title, form_class = "receive", "Receive chips", ChipReceiptForm
    change_list_template = "admin/tablegames/chipreceipt_change_list.html"

    def act(self, form, data, actor: str, key: str) -> str:
        result = commands.receive_chips(venue=data["venue"], chips=form.chips(),
                                        signed_by=[actor, data["second_signer"].strip()],
                                        note=data["note"], actor=actor, idempotency_key=key)
        return (f"Chips worth {money(result['amount_minor'], result['currency'])} received"
                f" into the chip bank at {result['venue']}.")

    list_display = ["id", "venue", "amount_minor", "first_signature", "second_signature",
                    "received_at"]
    list_filter = ["venue"]


@admin.register(ChipBankCount)
class ChipBankCountAdmin(ChipsFormAdmin):
    action, action_title, form_class = "count", "Count the chip bank", ChipCountForm
    change_list_template = "admin/tablegames/chipbankcount_change_list.html"

    def act(self, form, data, actor: str, key: str) -> str:
        result = commands.count_chip_bank(venue=data["venue"], count=form.chips(),
                                          signed_by=[actor, data["second_signer"].strip()],
                                          reason=data["reason"], actor=actor,
                                          idempotency_key=key)
        currency, off = result["currency"], result["over_short_minor"]
        side = "as expected" if not off else (
            f"{'over' if off > 0 else 'short'} by {money(abs(off), currency)}")
        return (f"Chip bank at {result['venue']} counted"
                f" {money(result['counted_minor'], currency)}, expected"
                f" {money(result['expected_minor'], currency)}: {side}.")

    list_display = ["id", "venue", "gaming_day", "counted_minor", "expected_minor",
                    "over_short_minor", "reason", "first_signature", "second_signature",
                    "counted_at"]
    list_filter = ["venue", "gaming_day"]
    fields = ["id", "venue", "gaming_day", "count", "counted_minor", "expected_count",
              "expected_minor", "count_differences", "over_short_minor", "reason",
              "first_signature", "second_signature", "counted_at", "position"]
