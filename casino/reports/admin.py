"""Accountants' and auditors' screens: closes, exports, seals (read-only).

The journal export page (Reports > Journal exports > "Export the journal")
downloads the CSV or XLSX through the same code as the API
(responses.journal_response), so an export from the admin is recorded as
`reports.journal_exported` with the user's name like any other. It admits
superusers and staff in the accountant, auditor or compliance officer role.
"""

from __future__ import annotations

import datetime as dt

from django import forms
from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse
from django.urls import path

from casino.roles import Role, has_role
from ledger import ReadOnlyAdmin

from .journal import FORMATS, PARTS, check_range
from .errors import ReportsError
from .models import DayClose, DaySeal, JournalExport, ReportExport
from .responses import journal_response

EXPORT_ROLES = (Role.ACCOUNTANT, Role.AUDITOR, Role.COMPLIANCE_OFFICER)


class JournalExportForm(forms.Form):
    first_day = forms.DateField(label="From gaming day", widget=forms.DateInput(
        attrs={"type": "date"}))
    last_day = forms.DateField(label="To gaming day", widget=forms.DateInput(
        attrs={"type": "date"}))
    format = forms.ChoiceField(choices=[(f, f.upper()) for f in FORMATS], initial="xlsx")
    part = forms.ChoiceField(choices=[(p, p.replace("_", " ")) for p in PARTS],
                             initial="journal", help_text="CSV only; XLSX holds both.")

    def clean(self):
        data = super().clean()
        first, last = data.get("first_day"), data.get("last_day")
        if first and last:
            try:
                check_range(first, last)
            except ReportsError as error:
                raise forms.ValidationError(error.message) from None
        return data


class ReportsAdmin(ReadOnlyAdmin):
    """Read-only; viewable by staff in a reporting role without model perms."""

    def has_view_permission(self, request, obj=None) -> bool:
        return (has_role(request.user, *EXPORT_ROLES)
                or super().has_view_permission(request, obj))

    def has_module_permission(self, request) -> bool:
        return (has_role(request.user, *EXPORT_ROLES)
                or super().has_module_permission(request))


def day_span(close: DayClose) -> dict[str, str] | None:
    """The venue's time zone and the gaming day's span in it, for the close page.

    The close is computed per gaming day in the venue's zone (casino.rules.
    queries.venue_day); the page says which zone and when the day ran, e.g.
    "Europe/Helsinki: 2026-06-01 10:00 EEST to 2026-06-02 10:00 EEST".
    Daylight saving changes give 23- and 25-hour days; zoneinfo reckons them.
    None for a venue no longer registered.
    """
    from zoneinfo import ZoneInfo

    from casino.rules.models import Venue

    venue = Venue.objects.filter(code=close.venue).first()
    if venue is None:
        return None
    zone = ZoneInfo(venue.time_zone)
    start = dt.datetime.combine(close.gaming_day, venue.gaming_day_start, tzinfo=zone)
    end = dt.datetime.combine(close.gaming_day + dt.timedelta(days=1),
                              venue.gaming_day_start, tzinfo=zone)
    hours = (end.astimezone(dt.timezone.utc) - start.astimezone(dt.timezone.utc)
             ).total_seconds() / 3600
    return {"name": venue.time_zone, "start": f"{start:%Y-%m-%d %H:%M} {start.tzname()}",
            "end": f"{end:%Y-%m-%d %H:%M} {end.tzname()}", "hours": f"{hours:g}"}


@admin.register(DayClose)
class DayCloseAdmin(ReportsAdmin):
    list_display = ["venue", "gaming_day", "reconciled", "postings", "head_position",
                    "closed_by", "position"]
    list_filter = ["reconciled", "venue"]
    date_hierarchy = "gaming_day"
    search_fields = ["=venue"]

    def change_view(self, request, object_id, form_url="", extra_context=None):
        """The close as a table of sections (reports.sections), not its JSON."""
        from django.contrib.admin.utils import unquote
        from django.http import Http404

        from ledger.read import Event

        from .sections import close_sections, money_text

        close = self.get_object(request, unquote(object_id))
        if close is None:
            raise Http404
        if not self.has_view_permission(request, close):
            raise PermissionDenied
        event = Event.objects.filter(position=close.position).first()
        payload = event.payload if event is not None else {}
        sections = close_sections(close.figures, close.lines, close.differences,
                                  payload.get("checks") or {})
        rendered = [{"key": section.key, "title": section.title, "rows": [
            {"label": row.label, "tone": row.tone,
             "value": row.text or money_text(row.amount_minor, row.currency)}
            for row in section.rows]} for section in sections]
        context = {**self.admin_site.each_context(request), "opts": self.model._meta,
                   "title": f"Day close: {close.venue}, gaming day {close.gaming_day}",
                   "close": close, "sections": rendered,
                   # The page shows major units; the payload's note on units is its own.
                   "notes": [note for note in payload.get("notes", [])
                             if "minor units" not in note],
                   "events": payload.get("events"), "zone": day_span(close)}
        return TemplateResponse(request, "admin/reports/dayclose/close.html", context)


@admin.register(JournalExport)
class JournalExportAdmin(ReportsAdmin):
    list_display = ["position", "actor", "first_day", "last_day", "format", "part", "rows",
                    "sha256", "head_position", "recorded_at"]
    list_filter = ["format", "part"]
    search_fields = ["=actor", "=sha256"]
    change_list_template = "admin/reports/journalexport/change_list.html"

    def get_urls(self):
        own = [path("export/", self.admin_site.admin_view(self.export_view),
                    name="reports_journalexport_export")]
        return own + super().get_urls()

    def export_view(self, request):
        """Show the export form; on a valid GET, send the file."""
        user = request.user
        if not (user.is_superuser or has_role(user, *EXPORT_ROLES)):
            raise PermissionDenied
        form = JournalExportForm(request.GET or None)
        if form.is_valid():
            data = form.cleaned_data
            return journal_response(first=data["first_day"], last=data["last_day"],
                                    format=data["format"], part=data["part"],
                                    head_position=None, actor=user.get_username())
        if not request.GET:
            yesterday = dt.date.today() - dt.timedelta(days=1)
            form = JournalExportForm(initial={"first_day": yesterday, "last_day": yesterday,
                                              "format": "xlsx", "part": "journal"})
        context = {**self.admin_site.each_context(request), "form": form,
                   "opts": self.model._meta, "title": "Export the journal"}
        return TemplateResponse(request, "admin/reports/journalexport/export.html", context)


@admin.register(DaySeal)
class DaySealAdmin(ReportsAdmin):
    list_display = ["gaming_day", "head_position", "head_hash", "day_last_position",
                    "day_events", "position", "recorded_at"]


@admin.register(ReportExport)
class ReportExportAdmin(ReportsAdmin):
    """Who exported which threshold or exception report, when (issue 17 item 3)."""

    list_display = ["position", "recorded_at", "actor", "report", "first_day", "last_day",
                    "format", "rows", "sha256", "head_position"]
    list_filter = ["report", "format"]
    search_fields = ["=actor", "=sha256"]
