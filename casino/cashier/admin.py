"""Screens for the cashier windows: read-only pages, and the shift forms.

A shift shows its bank and count by denomination, the expected amount and
the over/short with its reason (money, counts and times are made readable
by casino.officers.readable); transfers show their two signatures.

Cashiers (the cage role, as on the API's writes) open, close and hand over
a shift from the admin (issue 17 item 2): Shifts > "Open a shift", and on
an open shift's page "Close this shift" and "Hand over". Each form calls
the same command as the API (casino.cashier.commands, through the runner)
as the signed-in user, so the same rules hold: the over or short needs a
reason, a short above the threshold raises its alert, a handover goes to
another cashier. A form carries a token, so a resent form replays its
first outcome instead of acting twice (casino.compliance.admin.request_key).
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin.utils import quote, unquote
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse

from casino.compliance.admin import RoleViewMixin, form_token, report, request_key
from casino.counting import money
from casino.errors import CodedError
from casino.roles import Role, has_role
from ledger import ReadOnlyAdmin
from ledger.read import recorded_request

from . import commands
from .forms import CloseShiftForm, CountForm, HandOverForm, OpenShiftForm
from .models import Shift, ShiftState, Transfer

ROLES = (Role.COMPLIANCE_OFFICER, Role.AUDITOR, Role.ACCOUNTANT)
WRITE_ROLES = (Role.CAGE,)    # as the API's cashier writes (casino/roles.py)
FORM_TEMPLATE = "admin/cashier/shift/form.html"


def can_write(user) -> bool:
    return has_role(user, *WRITE_ROLES)


def _outcome(shift: Shift) -> str:
    if shift.over_short_minor:
        side = "over" if shift.over_short_minor > 0 else "short"
        return (f"counted {money(shift.counted_minor, shift.currency)}, expected"
                f" {money(shift.expected_minor, shift.currency)}: {side} by"
                f" {money(abs(shift.over_short_minor), shift.currency)}")
    return f"counted {money(shift.counted_minor or 0, shift.currency)}, as expected"


@admin.register(Shift)
class ShiftAdmin(RoleViewMixin, ReadOnlyAdmin):
    view_roles = ROLES + WRITE_ROLES
    list_display = ["window", "venue", "cashier", "state", "gaming_day", "bank_minor",
                    "expected_minor", "counted_minor", "over_short_minor", "reason",
                    "opened_at", "closed_at"]
    list_filter = ["state", "venue", "gaming_day"]
    search_fields = ["=cashier", "=window", "=id"]
    fields = ["id", "venue", "window", "cashier", "state", "gaming_day", "bank",
              "bank_minor", "opened_at", "opened_position", "count", "counted_minor",
              "expected_minor", "over_short_minor", "reason", "closed_at",
              "closed_position"]
    change_list_template = "admin/cashier/shift/change_list.html"
    change_form_template = "admin/cashier/shift/change_form.html"

    def get_urls(self):
        wrap = self.admin_site.admin_view
        own = [
            path("open/", wrap(self.open_view), name="cashier_shift_open"),
            path("<path:object_id>/close/", wrap(self.close_view), name="cashier_shift_close"),
            path("<path:object_id>/hand-over/", wrap(self.hand_over_view),
                 name="cashier_shift_hand_over"),
        ]
        return own + super().get_urls()

    def changelist_view(self, request, extra_context=None):
        return super().changelist_view(request, {**(extra_context or {}),
                                                 "can_open_shift": can_write(request.user)})

    def change_view(self, request, object_id, form_url="", extra_context=None):
        return super().change_view(request, object_id, form_url, {
            **(extra_context or {}), "can_act_on_shift": can_write(request.user)})

    # --- the forms ---------------------------------------------------------------

    def _render(self, request, form: CountForm, title: str, shift: Shift | None = None):
        plain = [form[name] for name in form.fields
                 if not any(name.startswith(f"{prefix}_") for prefix, _ in form.count_prefixes)]
        counts = [{"title": title_, "prefix": prefix, "fields": form.count_fields(prefix)}
                  for prefix, title_ in form.count_prefixes]
        return TemplateResponse(request, FORM_TEMPLATE, {
            **self.admin_site.each_context(request), "opts": self.model._meta,
            "title": title, "form": form, "plain_fields": plain, "counts": counts,
            "shift": shift, "form_token": request.POST.get("form_token") or form_token()})

    def _open_shift(self, request, object_id: str) -> Shift:
        if not can_write(request.user):
            raise PermissionDenied
        shift = Shift.objects.filter(pk=unquote(object_id)).first()
        if shift is None:
            raise Http404
        return shift

    def _to_shift(self, shift: Shift) -> HttpResponseRedirect:
        return HttpResponseRedirect(reverse("admin:cashier_shift_change",
                                            args=[quote(shift.pk)]))

    def open_view(self, request):
        """Open a shift at a window with a bank counted by denomination."""
        if not can_write(request.user):
            raise PermissionDenied
        from casino.rules.models import Venue

        venues = list(Venue.objects.order_by("code").values_list("code", flat=True))
        form = OpenShiftForm(request.POST or None, venues=venues)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                shift = commands.open_shift(
                    venue=data["venue"], window=data["window"], bank=form.count_of("bank"),
                    cashier=data["cashier"], actor=request.user.get_username(),
                    idempotency_key=request_key(request, "cashier-open",
                                                f"{data['venue']}/{data['window']}"))
            except CodedError as error:
                report(request, error)
            else:
                messages.success(request, f"Window {shift.window} at {shift.venue} opened for"
                                          f" {shift.cashier} with a bank of"
                                          f" {money(shift.bank_minor, shift.currency)}.")
                return self._to_shift(shift)
        return self._render(request, form, "Open a cashier shift")

    def _closed(self, request, shift: Shift, recorded_key: str) -> bool:
        """A closed shift takes no new form; a resent one replays (its key is recorded)."""
        if shift.state == ShiftState.OPEN:
            return False
        return request.method != "POST" or recorded_request(recorded_key) is None

    def close_view(self, request, object_id: str):
        """Close an open shift with its count; an over or short needs a reason."""
        shift = self._open_shift(request, object_id)
        key = request_key(request, "cashier-close", shift.id)
        if self._closed(request, shift, key):
            messages.error(request, f"Shift {shift.id} is closed already.")
            return self._to_shift(shift)
        form = CloseShiftForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                closed = commands.close_shift(
                    venue=shift.venue, window=shift.window, count=form.count_of("count"),
                    reason=form.cleaned_data["reason"], actor=request.user.get_username(),
                    idempotency_key=key)
            except CodedError as error:
                report(request, error)
            else:
                messages.success(request, f"Window {closed.window} closed: {_outcome(closed)}.")
                return self._to_shift(closed)
        return self._render(request, form, f"Close window {shift.window} ({shift.cashier})",
                            shift)

    def hand_over_view(self, request, object_id: str):
        """Hand an open shift's window to another cashier: a close and an open."""
        shift = self._open_shift(request, object_id)
        key = request_key(request, "cashier-hand-over", shift.id)
        if self._closed(request, shift, f"{key}:close"):
            messages.error(request, f"Shift {shift.id} is closed already.")
            return self._to_shift(shift)
        form = HandOverForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                closed, opened = commands.hand_over(
                    venue=shift.venue, window=shift.window, count=form.count_of("count"),
                    bank=form.count_of("bank"), to_cashier=data["to_cashier"],
                    reason=data["reason"], actor=request.user.get_username(),
                    idempotency_key=key)
            except CodedError as error:
                report(request, error)
            else:
                messages.success(request, f"Window {closed.window} handed from"
                                          f" {closed.cashier} to {opened.cashier}:"
                                          f" {_outcome(closed)}.")
                return self._to_shift(opened)
        return self._render(request, form,
                            f"Hand over window {shift.window} from {shift.cashier}", shift)


@admin.register(Transfer)
class TransferAdmin(RoleViewMixin, ReadOnlyAdmin):
    view_roles = ROLES
    list_display = ["id", "venue", "source", "target", "amount_minor", "first_signature",
                    "second_signature", "gaming_day", "made_at"]
    list_filter = ["venue", "gaming_day"]
    search_fields = ["=id", "=first_signature", "=second_signature"]
