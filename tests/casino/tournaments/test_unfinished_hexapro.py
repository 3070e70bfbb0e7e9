"""Unfinished HexaPro games past the rulebook's days raise a compliance alert (001:L576).

001:L576: HexaPro games not played to the end are completed within 90 days
(`hexapro.unfinished.settle_within` of veikkaus-online-poker). The seed says
nothing of how, so the daily job (casino/tournaments/unfinished.py, beat
task `casino.tournaments.tasks.flag_unfinished_hexapro`, management command
`flag_unfinished_hexapro`) raises one `unfinished_game` alert per game still
playing the figure's days after its start, for the operator to complete it
(decision hexapro.unfinished.completion). Business time: the start is the
`tournaments.tournament_started` event's.
"""

from __future__ import annotations

import datetime as dt
import io
import shutil

import pytest
from django.core.management import call_command

from casino.compliance.models import Alert, AlertKind
from casino.rules.commands import load_rulebook, register_venue
from casino.rules.loading import DATA_DIR
from casino.tournaments import commands
from casino.tournaments.errors import TournamentError
from casino.tournaments.unfinished import (
    SETTLE_WITHIN,
    flag_unfinished_hexapro,
    flag_unfinished_hexapro_games,
    overdue_games,
    started_at,
)

from .conftest import funded_player, key

ONLINE = "poker-online"
DAY = dt.timedelta(days=1)
ROW = ('[[figures]]\nkey = "hexapro.unfinished.settle_within"\nvalue = 90\nunit = "days"\n'
       'cite = "001:L576"\n')


@pytest.fixture
def online(venues):
    register_venue(code=ONLINE, name=ONLINE, rulebook_id="veikkaus-online-poker")
    return ONLINE


def _hexapro_started() -> tuple[str, dt.datetime]:
    t = commands.announce(venue=ONLINE, name="HexaPro", format="hexapro", seats_per_table=3,
                          entry={"prize_minor": 1_00, "fee_minor": 0}, actor="td",
                          idempotency_key=key("announce")).tournament_id
    commands.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    for _ in range(3):
        commands.register(tournament_id=t, player_id=funded_player().id, actor="web",
                          idempotency_key=key())
    commands.start(tournament_id=t, actor="td", idempotency_key=key())
    return t, started_at(t)


def _version_2(tmp_path, replace_with: str) -> None:
    """veikkaus-online-poker v2: v1 with the 001:L576 row replaced, same date."""
    text = (DATA_DIR / "veikkaus-online-poker.v1.toml").read_text()
    assert ROW in text
    text = text.replace("version = 1\n", "version = 2\n", 1).replace(ROW, replace_with)
    target = tmp_path / "veikkaus-online-poker.v2.toml"
    target.write_text(text)
    shutil.copytree(DATA_DIR / "veikkaus-online-poker.v1.d",
                    tmp_path / "veikkaus-online-poker.v2.d")
    load_rulebook(target)


def _alerts(tournament_id: str) -> list[Alert]:
    return [a for a in Alert.objects.filter(kind=AlertKind.UNFINISHED_GAME)
            if a.details["tournament_id"] == tournament_id]


def test_a_game_unfinished_after_90_days_raises_one_alert(online):
    """001:L576: at 89 days nothing; at 91 days one alert naming the rule; a rerun adds none."""
    t, start = _hexapro_started()
    assert flag_unfinished_hexapro_games(actor="job", at=start + 89 * DAY) == []
    with pytest.raises(TournamentError) as early:
        flag_unfinished_hexapro(tournament_id=t, actor="job", at=start + 89 * DAY)
    assert (early.value.code, early.value.status) == ("tournaments.not_overdue", 409)
    assert _alerts(t) == []

    [flagged] = flag_unfinished_hexapro_games(actor="job", at=start + 91 * DAY)
    assert (flagged.tournament_id, flagged.days) == (t, 90)
    [alert] = _alerts(t)
    assert alert.venue == ONLINE
    assert alert.details["rule"] == {"key": SETTLE_WITHIN, "days": 90, "cite": "001:L576"}
    assert alert.details["due_at"] == (start + 90 * DAY).isoformat()

    assert flag_unfinished_hexapro_games(actor="job", at=start + 92 * DAY) == []
    with pytest.raises(TournamentError):
        flag_unfinished_hexapro(tournament_id=t, actor="job", at=start + 92 * DAY)
    assert len(_alerts(t)) == 1


def test_a_rulebook_without_the_figure_flags_nothing(online, tmp_path):
    """Without hexapro.unfinished.settle_within no game is ever overdue."""
    _version_2(tmp_path, "")
    t, start = _hexapro_started()
    assert overdue_games(start + 400 * DAY) == []
    with pytest.raises(TournamentError) as refused:
        flag_unfinished_hexapro(tournament_id=t, actor="job", at=start + 400 * DAY)
    assert refused.value.code == "tournaments.not_overdue"
    assert _alerts(t) == []


def test_changing_the_figure_changes_the_outcome(online, tmp_path):
    """Under v1 (90 days) a 31-day-old game is not overdue; under a v2 of 30 days it is."""
    old, old_start = _hexapro_started()
    assert overdue_games(old_start + 31 * DAY) == []
    _version_2(tmp_path, ROW.replace("value = 90", "value = 30"))
    t, start = _hexapro_started()
    out = io.StringIO()
    call_command("flag_unfinished_hexapro", "--at", (start + 31 * DAY).isoformat(), stdout=out)
    assert f"flagged {t}: not completed within 30 days" in out.getvalue()
    assert f"flagged {old}" not in out.getvalue()    # its own rulebook, v1: 90 days
    assert len(_alerts(t)) == 1 and _alerts(old) == []


def test_the_job_is_on_the_beat_schedule():
    from django.conf import settings

    import casino.tournaments.tasks  # noqa: F401 - registers the task with the project's app
    from casino.celery import app

    # The project's app, by name: a shared task's proxy resolves against
    # whichever app is current, and another test may have made its own.
    entry = settings.CELERY_BEAT_SCHEDULE["tournaments.flag-unfinished-hexapro"]
    assert entry["task"] == "casino.tournaments.tasks.flag_unfinished_hexapro"
    assert entry["task"] in app.tasks
