"""Officer screens for alerts, corrections and verifications.

The rows are projections of events and stay read-only for everyone,
superusers included (ledger.admin.ReadOnlyAdmin). What an officer does here
(open a case from an alert, dismiss an alert, propose, approve or reject a
correction) is a plain form posted to a view that calls the command as the
signed-in user, so the two-person rule and the role checks have one home,
the command; a refusal is shown as the command's message. Compliance
officers and auditors see these screens by their role (casino.roles), with
no Django model permissions needed. Cases have their screens in
casino.officers, which can render the events a case concerns.
"""

from __future__ import annotations

import uuid

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import quote, unquote
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse

from casino.errors import CodedError
from casino.roles import Role, has_role
from ledger import ReadOnlyAdmin

from .cases import case_handling, dismiss_alert, open_case
from .commands import approve_correction, propose_correction, reject_correction
from .models import (
    Alert,
    AlertDismissal,
    CashActivity,
    ChainVerification,
    Correction,
    CorrectionState,
    PlayerActivity,
)

VIEW_ROLES = (Role.COMPLIANCE_OFFICER, Role.AUDITOR)


class RoleViewMixin:
    """Let the roles in `view_roles` see the screen without model permissions."""

    view_roles: tuple[Role, ...] = VIEW_ROLES

    def has_view_permission(self, request, obj=None) -> bool:
        return (super().has_view_permission(request, obj)
                or has_role(request.user, *self.view_roles))

    def has_module_permission(self, request) -> bool:
        return super().has_module_permission(request) or has_role(request.user,
                                                                  *self.view_roles)


def form_token() -> str:
    """A fresh token for one rendered form (see `request_key`)."""
    return uuid.uuid4().hex


def request_key(request, action: str, subject: str) -> str:
    """The idempotency key of one admin form post.

    Each rendered form carries a random `form_token`, so a double click or
    a browser resend replays the first post instead of acting twice, while
    a new form is a new request. A post without a token gets a fresh one.
    """
    token = request.POST.get("form_token", "")[:64] or form_token()
    return f"admin:{request.user.pk}:{action}:{subject}:{token}"


def report(request, error: CodedError) -> None:
    """Show a command's refusal to the officer, code and reason."""
    messages.error(request, f"Refused ({error.code}): {error.message}")


class AlertOpenCaseForm(forms.Form):
    title = forms.CharField(required=False, max_length=200)
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))


class ReasonForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}))


@admin.register(Alert)
class AlertAdmin(RoleViewMixin, ReadOnlyAdmin):
    list_display = ["raised_at", "kind", "summary", "player_id", "venue", "raised_position"]
    list_filter = ["kind", "venue"]
    search_fields = ["=player_id", "summary"]
    change_form_template = "admin/compliance/alert/officer_change_form.html"
    actions = ["open_cases"]

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("<path:object_id>/open-case/", view(self.open_case_view),
                 name="compliance_alert_open_case"),
            path("<path:object_id>/dismiss/", view(self.dismiss_view),
                 name="compliance_alert_dismiss"),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        alert = self.get_object(request, unquote(object_id))
        context = dict(extra_context or {})
        if alert is not None:
            context.update(
                open_case_form=AlertOpenCaseForm(), dismiss_form=ReasonForm(),
                handling_case=case_handling(alert), form_token=form_token(),
                dismissal=AlertDismissal.objects.filter(alert_id=alert.id).first(),
                quoted_id=quote(alert.id),
                can_act=has_role(request.user, Role.COMPLIANCE_OFFICER))
        return super().change_view(request, object_id, form_url, context)

    def _alert(self, request, object_id: str) -> Alert:
        if request.method != "POST":
            raise PermissionDenied
        alert = self.get_object(request, unquote(object_id))
        if alert is None:
            raise PermissionDenied
        return alert

    def open_case_view(self, request, object_id: str):
        """Open a case from the alert, then show the case."""
        alert = self._alert(request, object_id)
        form = AlertOpenCaseForm(request.POST)
        form.is_valid()
        data = form.cleaned_data
        try:
            case = open_case(actor=request.user.get_username(), alert_id=alert.id,
                             title=data.get("title", ""), note=data.get("note", ""),
                             idempotency_key=request_key(request, "open-case", alert.id))
        except CodedError as error:
            report(request, error)
            return HttpResponseRedirect(reverse("admin:compliance_alert_change",
                                                args=[quote(alert.id)]))
        messages.success(request, f"Case {case.id} opened from {alert.id}.")
        return HttpResponseRedirect(reverse("admin:compliance_case_change", args=[case.id]))

    def dismiss_view(self, request, object_id: str):
        alert = self._alert(request, object_id)
        form = ReasonForm(request.POST)
        form.is_valid()
        try:
            dismiss_alert(alert_id=alert.id, reason=form.cleaned_data.get("reason", ""),
                          actor=request.user.get_username(),
                          idempotency_key=request_key(request, "dismiss", alert.id))
        except CodedError as error:
            report(request, error)
        else:
            messages.success(request, f"{alert.id} dismissed.")
        return HttpResponseRedirect(reverse("admin:compliance_alert_change",
                                            args=[quote(alert.id)]))

    @admin.action(description="Open a case for each selected alert")
    def open_cases(self, request, queryset) -> None:
        for alert in queryset.order_by("raised_position"):
            try:
                case = open_case(actor=request.user.get_username(), alert_id=alert.id,
                                 idempotency_key=f"admin:{request.user.pk}:open-case:"
                                                 f"{alert.id}:{form_token()}")
            except CodedError as error:
                self.message_user(request, f"{alert.id}: {error.message}", messages.ERROR)
            else:
                self.message_user(request, f"{alert.id}: case {case.id} opened.",
                                  messages.SUCCESS)


class ProposalForm(forms.Form):
    account = forms.CharField(max_length=200,
                              help_text="The account to correct, e.g. player/<id>/account")
    counter_account = forms.CharField(max_length=200, help_text="Takes the other leg.")
    amount_minor = forms.IntegerField(help_text="Cents; positive raises the account's"
                                                " balance, negative lowers it.")
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}),
                             help_text="Why, with the ticket or case; 10+ characters.")


class NoteForm(forms.Form):
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))


@admin.register(Correction)
class CorrectionAdmin(RoleViewMixin, ReadOnlyAdmin):
    """Two-person corrections: propose here, a second officer approves here."""

    view_roles = (Role.COMPLIANCE_OFFICER, Role.AUDITOR, Role.ACCOUNTANT)
    list_display = ["id", "state", "account", "amount_minor", "proposed_by", "decided_by",
                    "proposed_at"]
    list_filter = ["state"]
    change_form_template = "admin/compliance/correction/officer_change_form.html"
    change_list_template = "admin/compliance/correction/officer_change_list.html"
    actions = ["approve_selected"]

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("propose/", view(self.propose_view), name="compliance_correction_propose"),
            path("<path:object_id>/approve/", view(self.approve_view),
                 name="compliance_correction_approve"),
            path("<path:object_id>/reject/", view(self.reject_view),
                 name="compliance_correction_reject"),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        context = {**(extra_context or {}), "decision_form": NoteForm(),
                   "form_token": form_token(),
                   "pending": CorrectionState.PROPOSED,
                   "can_decide": has_role(request.user, Role.COMPLIANCE_OFFICER)}
        return super().change_view(request, object_id, form_url, context)

    def propose_view(self, request):
        if not has_role(request.user, Role.COMPLIANCE_OFFICER, Role.ACCOUNTANT):
            raise PermissionDenied
        form = ProposalForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            data = form.cleaned_data
            try:
                correction = propose_correction(
                    account=data["account"], counter_account=data["counter_account"],
                    amount_minor=data["amount_minor"], reason=data["reason"],
                    actor=request.user.get_username(),
                    idempotency_key=request_key(request, "propose", data["account"]))
            except CodedError as error:
                report(request, error)
            else:
                messages.success(request, f"Correction {correction.id} proposed; a second"
                                          " compliance officer must approve it.")
                return HttpResponseRedirect(reverse("admin:compliance_correction_change",
                                                    args=[correction.id]))
        context = {**self.admin_site.each_context(request), "form": form,
                   "form_token": form_token(),
                   "opts": self.model._meta, "title": "Propose a correction"}
        return TemplateResponse(request, "admin/compliance/correction/propose.html", context)

    def _decide(self, request, object_id: str, command, verb: str):
        if request.method != "POST":
            raise PermissionDenied
        correction = get_object_or_404(Correction, id=unquote(object_id))
        form = NoteForm(request.POST)
        form.is_valid()
        try:
            command(correction_id=correction.id, actor=request.user.get_username(),
                    note=form.cleaned_data.get("note", ""),
                    idempotency_key=request_key(request, verb, correction.id))
        except CodedError as error:
            report(request, error)
        else:
            messages.success(request, f"Correction {correction.id} {verb}d.")
        return HttpResponseRedirect(reverse("admin:compliance_correction_change",
                                            args=[correction.id]))

    def approve_view(self, request, object_id: str):
        return self._decide(request, object_id, approve_correction, "approve")

    def reject_view(self, request, object_id: str):
        return self._decide(request, object_id, reject_correction, "reject")

    @admin.action(description="Approve and post the selected corrections")
    def approve_selected(self, request, queryset) -> None:
        for correction in queryset.order_by("proposed_at"):
            try:
                approve_correction(correction_id=correction.id,
                                   actor=request.user.get_username(),
                                   idempotency_key=f"admin:{request.user.pk}:approve:"
                                                   f"{correction.id}:action")
            except CodedError as error:
                self.message_user(request, f"{correction.id}: refused ({error.code}):"
                                           f" {error.message}", messages.ERROR)
            else:
                self.message_user(request, f"{correction.id}: approved and posted.",
                                  messages.SUCCESS)


@admin.register(AlertDismissal)
class AlertDismissalAdmin(RoleViewMixin, ReadOnlyAdmin):
    list_display = ["alert_id", "dismissed_by", "dismissed_at", "reason"]
    search_fields = ["=alert_id", "=dismissed_by"]


@admin.register(ChainVerification)
class ChainVerificationAdmin(RoleViewMixin, ReadOnlyAdmin):
    view_roles = (Role.COMPLIANCE_OFFICER, Role.AUDITOR, Role.ACCOUNTANT)
    list_display = ["position", "ok", "events", "head_position", "bad_position", "problem",
                    "verified_by", "verified_at"]
    list_filter = ["ok"]


@admin.register(PlayerActivity)
class PlayerActivityAdmin(RoleViewMixin, ReadOnlyAdmin):
    list_display = ["player_id", "venue", "day", "category", "staked_minor", "won_minor"]
    list_filter = ["category", "venue"]
    search_fields = ["=player_id"]


@admin.register(CashActivity)
class CashActivityAdmin(RoleViewMixin, ReadOnlyAdmin):
    list_display = ["player_id", "venue", "gaming_day", "total_minor", "transactions"]
    search_fields = ["=player_id"]
