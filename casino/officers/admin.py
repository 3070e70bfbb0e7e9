"""The case screens: a case, its notes, the events it concerns, and its moves.

`compliance.Case` is a projection of case events and read-only for every
user. The case page renders the events the case concerns with the officers'
formatters (which is why the case admin lives here and not in compliance,
which may not know the game apps), and offers plain forms (add a note, move
the case, add events by position) posted to views that call the commands
of casino.compliance.cases as the signed-in user.
"""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django_fsm import can_proceed

from casino.compliance.admin import RoleViewMixin, form_token, report, request_key
from casino.compliance.cases import (
    TRANSITIONS,
    add_case_note,
    link_case_events,
    move_case,
    open_case,
)
from casino.compliance.models import Alert, Case, CaseState
from casino.errors import CodedError
from casino.roles import Role, has_role
from ledger import ReadOnlyAdmin

from . import queries


class NewCaseForm(forms.Form):
    title = forms.CharField(max_length=200)
    positions = forms.CharField(required=False,
                                help_text="Ledger positions of the events, e.g. 12, 15, 40")
    note = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))


def parse_positions(text: str) -> list[int]:
    """"12, 15 40" -> [12, 15, 40]; anything else than whole numbers is refused."""
    items = [item for item in text.replace(",", " ").split() if item]
    if not all(item.lstrip("#").isdigit() for item in items):
        raise forms.ValidationError("give positions as whole numbers, e.g. 12, 15, 40")
    return [int(item.lstrip("#")) for item in items]


@admin.register(Case)
class CaseAdmin(RoleViewMixin, ReadOnlyAdmin):
    list_display = ["id", "state", "title", "player_id", "venue", "opened_by", "opened_at",
                    "notes_count", "last_position"]
    list_filter = ["state", "venue"]
    search_fields = ["=id", "=player_id", "=alert_id", "title"]
    change_list_template = "officers/case_change_list.html"

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("open/", view(self.open_view), name="compliance_case_open"),
            path("<path:object_id>/note/", view(self.note_view), name="compliance_case_note"),
            path("<path:object_id>/move/", view(self.move_view), name="compliance_case_move"),
            path("<path:object_id>/link/", view(self.link_view), name="compliance_case_link"),
            *super().get_urls(),
        ]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """The case page: its facts, notes, the events it concerns, the forms."""
        case = self.get_object(request, unquote(object_id))
        if case is None or not self.has_view_permission(request, case):
            raise Http404 if case is None else PermissionDenied
        links = list(case.links.order_by("position"))
        entries = queries.events_at([link.position for link in links])
        moves = [str(state) for state, name in TRANSITIONS.items()
                 if can_proceed(getattr(case, name))]
        alert = Alert.objects.filter(id=case.alert_id).first() if case.alert_id else None
        context = {
            **self.admin_site.each_context(request), "title": f"Case {case.id}",
            "case": case, "alert": alert, "notes": case.notes.order_by("position"),
            "entries": entries, "moves": moves, "opts": self.model._meta,
            "closed": case.state == CaseState.CLOSED, "form_token": form_token(),
            "can_act": has_role(request.user, Role.COMPLIANCE_OFFICER),
            "history": queries.stream_timeline(f"case/{case.id}"),
        }
        return TemplateResponse(request, "officers/case.html", context)

    def _post(self, request, object_id: str) -> Case:
        if request.method != "POST":
            raise PermissionDenied
        case = self.get_object(request, unquote(object_id))
        if case is None:
            raise Http404
        return case

    def _back(self, case_id: str):
        return HttpResponseRedirect(reverse("admin:compliance_case_change", args=[case_id]))

    def note_view(self, request, object_id: str):
        case = self._post(request, object_id)
        try:
            add_case_note(case_id=case.id, text=request.POST.get("text", ""),
                          actor=request.user.get_username(),
                          idempotency_key=request_key(request, "case-note", case.id))
        except CodedError as error:
            report(request, error)
        else:
            messages.success(request, "Note added.")
        return self._back(case.id)

    def move_view(self, request, object_id: str):
        case = self._post(request, object_id)
        to = request.POST.get("to", "")
        try:
            move_case(case_id=case.id, to=to, reason=request.POST.get("reason", ""),
                      actor=request.user.get_username(),
                      idempotency_key=request_key(request, f"case-{to}", case.id))
        except CodedError as error:
            report(request, error)
        else:
            messages.success(request, f"Case {case.id} is now {to}.")
        return self._back(case.id)

    def link_view(self, request, object_id: str):
        case = self._post(request, object_id)
        try:
            positions = parse_positions(request.POST.get("positions", ""))
            link_case_events(case_id=case.id, positions=positions,
                             actor=request.user.get_username(),
                             idempotency_key=request_key(request, "case-link", case.id))
        except forms.ValidationError as error:
            messages.error(request, " ".join(error.messages))
        except CodedError as error:
            report(request, error)
        else:
            messages.success(request, "Events added to the case.")
        return self._back(case.id)

    def open_view(self, request):
        """Open a case without an alert: a title and the events it concerns."""
        if not has_role(request.user, Role.COMPLIANCE_OFFICER):
            raise PermissionDenied
        form = NewCaseForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                positions = parse_positions(form.cleaned_data["positions"])
                case = open_case(actor=request.user.get_username(),
                                 title=form.cleaned_data["title"], positions=positions,
                                 note=form.cleaned_data["note"],
                                 idempotency_key=request_key(request, "open-case", "new"))
            except forms.ValidationError as error:
                form.add_error("positions", error)
            except CodedError as error:
                report(request, error)
            else:
                messages.success(request, f"Case {case.id} opened.")
                return self._back(case.id)
        context = {**self.admin_site.each_context(request), "title": "Open a case",
                   "form": form, "opts": self.model._meta, "form_token": form_token()}
        return TemplateResponse(request, "officers/case_open.html", context)
