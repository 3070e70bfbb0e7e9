"""Progress bars (tqdm) on the long runs: verify_ledger, close_day, export_journal
(rebuild_projections has had one since issue 6). Shown on a terminal only, so
logs and CI stay clean; --no-progress hides them (issue 18 item 9)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from casino.rules.models import Venue
from ledger.models import Event
from tests.casino.conftest import make_player

pytestmark = pytest.mark.django_db


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_verify_ledger_counts_every_event_on_a_terminal(venues):
    make_player()
    events = Event.objects.count()
    stderr = Terminal()
    call_command("verify_ledger", stdout=io.StringIO(), stderr=stderr)
    assert "verify_ledger" in stderr.getvalue()
    assert f"{events}/{events}" in stderr.getvalue() and "100%" in stderr.getvalue()


def test_no_bar_off_a_terminal_or_when_asked(venues):
    make_player()
    plain = io.StringIO()
    call_command("verify_ledger", stdout=io.StringIO(), stderr=plain)
    assert plain.getvalue() == ""
    asked = Terminal()
    call_command("verify_ledger", "--no-progress", stdout=io.StringIO(), stderr=asked)
    assert asked.getvalue() == ""


def test_close_day_counts_venues_and_export_journal_counts_bytes(venues, tmp_path):
    make_player()
    count = Venue.objects.count()
    stderr = Terminal()
    call_command("close_day", "--all-venues", "--day", "2026-06-16", "--preview",
                 stdout=io.StringIO(), stderr=stderr)
    assert "close_day" in stderr.getvalue() and f"{count}/{count}" in stderr.getvalue()
    stderr = Terminal()
    out = tmp_path / "journal.csv"
    call_command("export_journal", "--from", "2026-06-16", "--to", "2026-06-16",
                 "--out", str(out), stdout=io.StringIO(), stderr=stderr)
    size = out.stat().st_size
    assert size > 0
    assert "journal.csv" in stderr.getvalue() and "journal-trial-balance.csv" in stderr.getvalue()
