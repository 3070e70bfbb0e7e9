"""The officers' landing page: what needs someone today, with links into each."""

from __future__ import annotations

import datetime as dt

from django.urls import reverse

from casino.cage.commands import deposit
from casino.compliance.cases import dismiss_alert, open_case
from casino.compliance.verification import verify_and_record
from casino.reports.commands import seal_day

from .conftest import key


def test_the_admin_index_leads_to_the_desk(officers):
    page = officers["olli"].get(reverse("admin:index"))
    assert page.status_code == 200
    assert b'id="officers-desk-link"' in page.content
    assert reverse("admin:officers_desk").encode() in page.content


def test_the_desk_shows_open_alerts_todays_refusals_and_limit_hits(officers, traffic):
    """Three alerts raised today: one AML, one limit hit (002:L3339), one refusal."""
    page = officers["olli"].get(reverse("admin:officers_desk"))
    desk = page.context["desk"]
    assert page.status_code == 200
    assert desk.open_alerts_count == 3
    assert {a.id for a in desk.open_alerts} == {traffic.aml_alert.id, traffic.limit_hit.id,
                                                traffic.refusal.id}
    assert (desk.rejected_today_count, desk.limit_hits_today_count) == (1, 1)
    assert desk.ledger.last_verification is None and desk.ledger.last_seal is None
    html = page.content.decode()
    assert 'id="desk-open-alerts"' in html and 'id="desk-ledger-status"' in html
    assert reverse("admin:officers_player_timeline", args=[traffic.player_id]) in html
    assert reverse("admin:compliance_alert_change", args=["alert_2F%d"
                                                          % traffic.aml_alert.raised_position]
                   ) in html


def test_handled_alerts_leave_the_desk_and_open_cases_appear(officers, traffic):
    case = open_case(actor="olli", alert_id=traffic.aml_alert.id, idempotency_key=key())
    dismiss_alert(alert_id=traffic.refusal.id, actor="outi", reason="Exclusion did its job",
                  idempotency_key=key())
    desk = officers["outi"].get(reverse("admin:officers_desk")).context["desk"]
    assert [a.id for a in desk.open_alerts] == [traffic.limit_hit.id]
    assert [c.id for c in desk.open_cases] == [case.id]


def test_the_ledger_status_shows_the_last_verification_and_seal(officers, traffic):
    """The seal is the reports app's `reports.day_sealed`, read by its type."""
    verified = verify_and_record(actor="olli")
    page = officers["aude"].get(reverse("admin:officers_desk"))
    status = page.context["desk"].ledger
    assert status.last_verification.position == verified.position
    assert status.unverified_events == 1   # the verification's own event
    assert f"OK up to #{verified.head_position}" in page.content.decode()
    seal = seal_day(gaming_day=dt.date(2026, 6, 15), actor="celery")
    page = officers["aude"].get(reverse("admin:officers_desk"))
    assert page.context["desk"].ledger.unverified_events == 1   # the seal's own event
    assert (f"gaming day 2026-06-15 at #{seal.payload['head_position']}"
            in page.content.decode())


def test_every_books_events_count_until_a_verification_covers_them(officers, traffic,
                                                                    settings):
    """A venue on a book of its own (casino.books): its events wait for verification as
    the main book's do, each book counted in its own numbering, and the verify screen
    lists the books; a verification records every book's head, and covers them all."""
    settings.CASINO_VENUE_BOOKS = {"poker-helsinki": "helsinki"}
    verify_and_record(actor="olli")
    deposit(player_id=traffic.player_id, venue="poker-helsinki", amount_minor=100_00,
            currency="EUR", actor="cashier", idempotency_key=key())
    status = officers["aude"].get(reverse("admin:officers_desk")).context["desk"].ledger
    books = {book.key: book for book in status.books}
    assert books["helsinki"].events > 0
    assert books["helsinki"].unverified_events == books["helsinki"].events
    assert books["main"].unverified_events >= 2      # the verification's and the deposit's
    assert status.unverified_events == sum(book.unverified_events for book in status.books)
    page = officers["aude"].get(reverse("admin:officers_verify")).content.decode()
    assert 'id="verify-books"' in page and "<td>helsinki</td>" in page
    verify_and_record(actor="olli")
    status = officers["aude"].get(reverse("admin:officers_desk")).context["desk"].ledger
    assert "helsinki" in {book.key for book in status.books}
    assert {book.key: book.unverified_events for book in status.books
            if book.unverified_events} == {"main": 1}   # the new verification's own event


def test_the_desk_is_for_officers_and_auditors_only(officers):
    """A cashier is staff but has no reading role: 403. Anonymous: the login page."""
    assert officers["cashier"].get(reverse("admin:officers_desk")).status_code == 403
    from django.test import Client
    anonymous = Client().get(reverse("admin:officers_desk"))
    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]
