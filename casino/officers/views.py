"""The officers' pages in the admin: the desk, timelines, charts, verify, jackpots.

Plain Django views, wrapped by the admin site (login, staff, CSRF) in
site.py, rendered with the admin's own templates and CSS. Reading needs the
compliance officer or auditor role (or a superuser); acting calls the
owning app's command as the signed-in user, which checks the role again
and records who did it. Nothing here writes a row itself.

Element ids are stable (`desk-open-alerts`, `verify-chain-submit`, ...) so a
browser test can drive the pages.
"""

from __future__ import annotations

import datetime as dt

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_POST

from casino.compliance.admin import form_token, report, request_key
from casino.compliance.verification import verify_and_record
from casino.errors import CodedError
from casino.roles import Role, has_role

from . import charts, jackpots, queries
from .formatting import major

READ_ROLES = (Role.COMPLIANCE_OFFICER, Role.AUDITOR)


def can_read(user) -> bool:
    return user.is_superuser or has_role(user, *READ_ROLES)


def _require_reader(request) -> None:
    if not can_read(request.user):
        raise PermissionDenied


def _render(request, template: str, title: str, **context) -> TemplateResponse:
    return TemplateResponse(request, template, {
        **admin.site.each_context(request), "title": title, **context})


def _after(request) -> int:
    try:
        return max(0, int(request.GET.get("after", "0")))
    except ValueError:
        return 0


def desk(request):
    """The officers' landing page: what needs someone today."""
    _require_reader(request)
    return _render(request, "officers/desk.html", "Compliance desk", desk=queries.desk(),
                   can_act=has_role(request.user, Role.COMPLIANCE_OFFICER),
                   form_token=form_token())


class TimelineSearchForm(forms.Form):
    player = forms.CharField(required=False)
    table = forms.CharField(required=False)
    stream = forms.CharField(required=False)


def timeline_search(request):
    """Route the desk's search box to the right timeline."""
    _require_reader(request)
    form = TimelineSearchForm(request.GET)
    form.is_valid()
    data = form.cleaned_data
    if data.get("player"):
        return redirect("admin:officers_player_timeline", player_id=data["player"].strip())
    if data.get("table"):
        return redirect("admin:officers_table_timeline", table_id=data["table"].strip())
    if data.get("stream"):
        return redirect(reverse("admin:officers_stream_timeline")
                        + f"?stream={data['stream'].strip()}")
    return redirect("admin:officers_desk")


def _timeline(request, title: str, subject: str, entries, **extra):
    after = _after(request)
    next_after = entries[-1].event.position if len(entries) == queries.TIMELINE_PAGE_MAX else None
    return _render(request, "officers/timeline.html", title, subject=subject,
                   entries=entries, after=after, next_after=next_after, **extra)


def player_timeline(request, player_id: str):
    """A player's events in order, readable, with amounts and citations."""
    _require_reader(request)
    from casino.players.models import Player

    from ledger.read import Account

    player = Player.objects.filter(id=player_id).first()
    summary = {}
    if player is not None:
        account = Account.objects.filter(code=f"player/{player_id}/account").first()
        summary = {
            "Name": f"{player.given_name} {player.family_name}",
            "Born": player.date_of_birth.isoformat(),
            "Identity": player.get_verification_status_display(),
            "Self-excluded until": (player.self_excluded_until.date().isoformat()
                                    if player.self_excluded_until else "no"),
            "Gaming account": (major(account.balance_minor, account.currency)
                               if account else "not opened"),
        }
    entries = queries.player_timeline(player_id, after=_after(request))
    return _timeline(request, f"Timeline of player {player_id}", f"player {player_id}",
                     entries, player=player, summary=summary, kind="player")


def table_timeline(request, table_id: str):
    """A table's events in order: the table, its hands or rounds."""
    _require_reader(request)
    entries = queries.table_timeline(table_id, after=_after(request))
    return _timeline(request, f"Timeline of table {table_id}", f"table {table_id}", entries,
                     kind="table")


def stream_timeline(request):
    """Any stream and the streams under it, e.g. `tournament/<id>`."""
    _require_reader(request)
    stream = request.GET.get("stream", "").strip()
    entries = queries.stream_timeline(stream, after=_after(request)) if stream else []
    return _timeline(request, f"Timeline of {stream or '...'}", stream, entries,
                     kind="stream")


CHART_RANGE_DAYS_MAX = 62


def _days(request) -> list[dt.date]:
    """The chart's gaming days: `first`..`last` (dates), or the last `days` days."""
    try:
        first = dt.date.fromisoformat(request.GET.get("first", ""))
        last = dt.date.fromisoformat(request.GET.get("last", ""))
    except ValueError:
        first = last = None
    if first is not None and last is not None and first <= last:
        span = min((last - first).days + 1, CHART_RANGE_DAYS_MAX)
        return queries.day_range(last, max(span, 2))
    try:
        days = int(request.GET.get("days", queries.CHART_DAYS_MAX))
    except ValueError:
        days = queries.CHART_DAYS_MAX
    days = max(2, min(days, queries.CHART_DAYS_MAX))
    return queries.day_range(queries.today(), days)


def charts_page(request):
    """Jackpot pools, rake and GGR per venue, refusals per day, as inline SVG."""
    if not (can_read(request.user) or has_role(request.user, Role.ACCOUNTANT)):
        raise PermissionDenied
    days = _days(request)
    labels = [day.strftime("%d.%m.") for day in days]
    money = major
    pools = queries.jackpot_pool_balances(days)
    figures = [{
        "id": "chart-jackpot-pools",
        "svg": charts.line_chart("Jackpot pool balances (end of gaming day)", labels,
                                 [charts.Series(name, tuple(values))
                                  for name, values in list(pools.items())[:charts.SERIES_MAX]],
                                 value_format=money, chart_id="chart-jackpot-pools",
                                 unit="EUR", step_floor=100),
        "empty": not pools,
    }]
    for venue, rows in queries.venue_revenue(days).items():
        chart_id = f"chart-revenue-{venue}"
        figures.append({"id": chart_id, "empty": False, "svg": charts.bar_chart(
            f"{venue}: rake and gross gaming revenue per gaming day", labels,
            [charts.Series("rake", tuple(rows["rake"])),
             charts.Series("GGR", tuple(rows["ggr"]))],
            value_format=money, chart_id=chart_id, unit="EUR", step_floor=100)})
    rejected = queries.rejections_per_day(days)
    figures.append({"id": "chart-rejections", "empty": not any(map(any, rejected.values())),
                    "svg": charts.bar_chart(
                        "Refused attempts per gaming day", labels,
                        [charts.Series(name, tuple(values))
                         for name, values in rejected.items()],
                        chart_id="chart-rejections", unit="refusals")})
    return _render(request, "officers/charts.html", "Charts", figures=figures, days=days)


def verify(request):
    """GET: the last recorded verifications; POST: verify the chain now."""
    _require_reader(request)
    if request.method == "POST":
        if not has_role(request.user, Role.COMPLIANCE_OFFICER, Role.AUDITOR):
            raise PermissionDenied
        result = verify_and_record(actor=request.user.get_username(),
                                   idempotency_key=request_key(request, "verify", "chain"))
        if result.ok:
            messages.success(request, f"The hash chain is intact: {result.events:,} events"
                                      f" verified up to position {result.head_position}.")
        else:
            messages.error(request, f"The hash chain is broken at position"
                                    f" {result.bad_position}: {result.problem}")
        return HttpResponseRedirect(reverse("admin:officers_verify"))
    from casino.compliance.models import ChainVerification

    return _render(request, "officers/verify.html", "Verify the ledger",
                   status=queries.ledger_status(),
                   verifications=ChainVerification.objects.order_by("-position")[:20],
                   form_token=form_token())


@require_POST
def jackpot_decision(request, hit_id: str, decision: str):
    """Approve, reject or pay a jackpot hit through the jackpots' commands."""
    _require_reader(request)
    try:
        verb = jackpots.decide(hit_id=hit_id, decision=decision,
                               actor=request.user.get_username(),
                               reason=request.POST.get("reason", ""),
                               idempotency_key=request_key(request, f"jackpot-{decision}",
                                                           hit_id))
    except CodedError as error:
        report(request, error)
    else:
        messages.success(request, f"Jackpot hit {hit_id} {verb}.")
    return HttpResponseRedirect(reverse("admin:officers_desk") + "#desk-jackpot-hits")


REPORT_ROLES = (Role.COMPLIANCE_OFFICER, Role.AUDITOR, Role.ACCOUNTANT)
REPORT_TITLES = {
    "cash_by_player_day": "Cash in and out per player and gaming day",
    "large_cash_log": "Large cash log (90 % of the threshold and above)",
    "structuring_review": "Structuring review (across days and venues)",
    "exception_report": "Daily exception report",
}


EXPORT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


class ThresholdReportForm(forms.Form):
    report = forms.ChoiceField(choices=list(REPORT_TITLES.items()))
    first_day = forms.DateField(label="From gaming day",
                                widget=forms.DateInput(attrs={"type": "date"}))
    last_day = forms.DateField(label="To gaming day",
                               widget=forms.DateInput(attrs={"type": "date"}))
    format = forms.ChoiceField(choices=[("html", "Show here"), ("csv", "CSV"),
                                        ("xlsx", "XLSX")], initial="html")


def threshold_reports(request):
    """Threshold and exception reports (casino.reports.thresholds): shown or exported."""
    from django.http import HttpResponse

    from casino.reports import thresholds

    if not (request.user.is_superuser or has_role(request.user, *REPORT_ROLES)):
        raise PermissionDenied
    form = ThresholdReportForm(request.GET or None)
    table, columns, error = None, [], ""
    if form.is_valid():
        data = form.cleaned_data
        report, first, last = data["report"], data["first_day"], data["last_day"]
        try:
            if data["format"] in thresholds.EXPORT_FORMATS:
                # A file sent is recorded (reports.threshold_report_exported).
                exported = thresholds.export_report(report, first, last,
                                                    format=data["format"],
                                                    actor=request.user.get_username())
            else:
                rows = thresholds.build(report, first, last)
        except ValueError as problem:
            error = str(problem)
        else:
            name = f"{report}-{first.isoformat()}-{last.isoformat()}"
            if data["format"] in thresholds.EXPORT_FORMATS:
                response = HttpResponse(exported.body, content_type=EXPORT_TYPES[data["format"]])
                response["Content-Disposition"] = (
                    f'attachment; filename="{name}.{data["format"]}"')
                response["X-Ledger-Head-Position"] = str(exported.head_position)
                response["X-Export-Position"] = str(exported.position)
                return response
            columns = [column.replace("_", " ") for column in thresholds.COLUMNS[report]]
            table = [[thresholds.shown(column, row[column], row.get("currency", ""))
                      for column in thresholds.COLUMNS[report]] for row in rows]
    elif not request.GET:
        day = queries.today()
        form = ThresholdReportForm(initial={"report": "cash_by_player_day", "first_day": day,
                                            "last_day": day, "format": "html"})
    return _render(request, "officers/threshold_reports.html", "Threshold and exception reports",
                   form=form, table=table, columns=columns, error=error,
                   report_title=REPORT_TITLES.get(request.GET.get("report", ""), ""))


def case_str(request, case_id: str):
    """Download a case's suspicious-transaction report (casino.reports.suspicious)."""
    from django.http import Http404, HttpResponse

    from casino.reports.suspicious import str_xml

    if not has_role(request.user, Role.COMPLIANCE_OFFICER):
        raise PermissionDenied
    user = request.user
    try:
        body = str_xml(case_id, officer_first=user.first_name or user.get_username(),
                       officer_last=user.last_name)
    except LookupError:
        raise Http404 from None
    response = HttpResponse(body, content_type="application/xml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="str-{case_id}.xml"'
    return response
