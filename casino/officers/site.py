"""The officers' pages mounted in the admin site, without touching urls.py.

`install(site)` runs from OfficersConfig.ready: it puts the officers' URLs
in front of the site's own (all named in the `admin` namespace, e.g.
`admin:officers_desk`), wrapped by `site.admin_view` (login, staff, CSRF),
and points the site's index at a template that shows the desk's link and
headline figures above the usual app list.
"""

from __future__ import annotations

from django.urls import path

from . import views

INDEX_TEMPLATE = "officers/admin_index.html"


def officer_urls(site) -> list:
    wrap = site.admin_view
    return [
        path("officers/", wrap(views.desk), name="officers_desk"),
        path("officers/timeline/", wrap(views.timeline_search), name="officers_timeline"),
        path("officers/players/<str:player_id>/timeline/", wrap(views.player_timeline),
             name="officers_player_timeline"),
        path("officers/tables/<str:table_id>/timeline/", wrap(views.table_timeline),
             name="officers_table_timeline"),
        path("officers/streams/", wrap(views.stream_timeline),
             name="officers_stream_timeline"),
        path("officers/charts/", wrap(views.charts_page), name="officers_charts"),
        path("officers/verify/", wrap(views.verify), name="officers_verify"),
        path("officers/cases/<str:case_id>/str.xml", wrap(views.case_str),
             name="officers_case_str"),
        path("officers/reports/", wrap(views.threshold_reports),
             name="officers_threshold_reports"),
        path("officers/jackpot-hits/<str:hit_id>/<str:decision>/",
             wrap(views.jackpot_decision), name="officers_jackpot_decision"),
    ]


def install(site) -> None:
    """Mount the officers' pages on `site` (idempotent)."""
    if getattr(site, "_officers_installed", False):
        return
    original = site.get_urls

    def get_urls():
        return officer_urls(site) + original()

    site.get_urls = get_urls
    site.index_template = INDEX_TEMPLATE
    site.site_header = "casino-ledger administration"
    site.site_title = "casino-ledger"
    site.index_title = "Compliance and the ledger"
    site._officers_installed = True
