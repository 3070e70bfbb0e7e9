"""Unresolved online hands are voided after the rulebook's days, the stakes to charity.

001:L110: stakes of unfinished games on which the player made no decision
and which were never resolved are voided after 90 days, deemed forfeited and
directed to charity. The veikkaus-online-poker rulebook carries the figure
(`unresolved_stakes.void_after` = 90 days); the job
(casino/poker/commands/forfeits.py, beat task `casino.poker.tasks.forfeit_unresolved`,
management command `forfeit_unresolved_hands`) voids each running hand whose
start lies that many days back, moving the pot from the table to the venue's
charity liability, not back to the players. Business time throughout: the
hand's start is read from its `poker.hand_started` event.
"""

from __future__ import annotations

import datetime as dt
import io
import shutil

import pytest
from django.core.management import call_command

from casino.accounts import charity_forfeits
from casino.poker import commands
from casino.poker.commands.forfeits import VOID_AFTER, due_hands, hand_started_at
from casino.poker.errors import PokerError
from casino.poker.events import HAND_VOIDED, table_stacks
from casino.poker.models import Hand
from casino.rules import queries as rules
from casino.rules.commands import load_rulebook, register_venue
from casino.rules.loading import DATA_DIR
from ledger.models import Event
from tests.casino.poker.conftest import (
    assert_table_balanced,
    balance,
    key,
    open_helsinki_table,
    seat_players,
    seat_stacks,
)

VENUE = "veikkaus-online"
DAY = dt.timedelta(days=1)


@pytest.fixture
def online(venues):
    register_venue(code=VENUE, name="Veikkaus online poker",
                   rulebook_id="veikkaus-online-poker")
    return VENUE


def _online_table():
    return commands.open_table(
        venue=VENUE, variant="holdem", structure="no_limit", small_blind_minor=50,
        big_blind_minor=100, seats_max=6, buy_in_minor_min=4_000, buy_in_minor_max=10_000,
        jackpot=False, actor="floor", idempotency_key=key("table"))


def _unfinished_hand(table_id: str):
    """Three players, blinds posted, the button calls and the hand stops there.

    Online (50/100) the pot holds 50 + 100 + 100 = 250 of the players' stakes."""
    seat_players(table_id, {1: 10_000, 2: 10_000, 3: 10_000})
    hand = commands.start_hand(table_id=table_id, button=1, actor="dealer",
                               idempotency_key=key("hand"))
    state = commands.load_hand(hand.hand_id).state
    commands.act(hand_id=hand.hand_id, seat=state.to_act, kind="call",
                 actor="dealer", idempotency_key=key("act"))
    started = hand_started_at(table_id, hand.number)
    return hand.hand_id, started


def _rule_days(venue: str, at: dt.datetime) -> int | None:
    place = rules.venue(venue)
    rulebook = rules.rulebook_in_force(place.rulebook_id, at.date())
    figure = rules.figures_in_force(rulebook, at.date()).get(VOID_AFTER)
    return None if figure is None else figure.value


def test_a_hand_91_days_old_is_voided_with_its_stakes_to_charity(online):
    """001:L110: after 90 days the unresolved stakes are forfeited to charity, not returned."""
    table = _online_table()
    hand_id, started = _unfinished_hand(table.table_id)
    assert _rule_days(VENUE, started) == 90
    stacks_before = seat_stacks(table.table_id)
    table_before = balance(table_stacks(table.table_id))

    assert due_hands(started + 89 * DAY) == []          # 89 days: not yet
    with pytest.raises(PokerError) as early:
        commands.forfeit_unresolved_hand(hand_id=hand_id, actor="job",
                                         at=started + 89 * DAY)
    assert early.value.code == "poker.forfeit_not_due"

    results = commands.forfeit_unresolved_hands(actor="job", at=started + 91 * DAY)
    assert [r.hand_id for r in results] == [hand_id]
    assert results[0].state == "voided"

    voided = Event.objects.filter(type=HAND_VOIDED).get()
    assert voided.payload["reason"] == "unresolved_stakes_forfeited"
    assert voided.payload["forfeited_minor"] == 250
    assert voided.payload["rule"] == {"key": VOID_AFTER, "days": 90, "cite": "001:L110"}
    assert balance(charity_forfeits(VENUE)) == 250
    assert balance(table_stacks(table.table_id)) == table_before - 250
    # Not back to the players: the seats keep what they had left behind.
    after = seat_stacks(table.table_id)
    assert sum(after.values()) == sum(stacks_before.values()) - 250
    assert sorted(after.values()) == [9_900, 9_900, 9_950]
    assert Hand.objects.get(id=hand_id).state == "voided"
    assert_table_balanced(table.table_id)

    # A rerun forfeits nothing more.
    assert commands.forfeit_unresolved_hands(actor="job", at=started + 92 * DAY) == []
    assert balance(charity_forfeits(VENUE)) == 250


def test_a_hand_89_days_old_is_not_voided(online):
    """001:L110: the stakes stay in the hand until 90 days have passed."""
    table = _online_table()
    hand_id, started = _unfinished_hand(table.table_id)
    assert commands.forfeit_unresolved_hands(actor="job", at=started + 89 * DAY) == []
    assert Hand.objects.get(id=hand_id).state != "voided"
    assert balance(charity_forfeits(VENUE)) == 0
    assert balance(table_stacks(table.table_id)) == 30_000


def test_a_rulebook_without_the_figure_voids_nothing(online):
    """The live room's rulebook (000) has no unresolved_stakes.void_after: 001:L110 is online's."""
    table = open_helsinki_table()
    hand_id, started = _unfinished_hand(table.table_id)
    assert _rule_days("poker-helsinki", started) is None
    assert commands.forfeit_unresolved_hands(actor="job", at=started + 400 * DAY) == []
    with pytest.raises(PokerError) as refused:
        commands.forfeit_unresolved_hand(hand_id=hand_id, actor="job", at=started + 400 * DAY)
    assert refused.value.code == "poker.forfeit_not_due"
    assert Hand.objects.get(id=hand_id).state != "voided"


def test_changing_the_figure_changes_the_outcome(online, tmp_path):
    """A version with 30 days forfeits the 31-day-old hand 90 days left alone (001:L110)."""
    table = _online_table()
    hand_id, started = _unfinished_hand(table.table_id)
    assert due_hands(started + 31 * DAY) == []
    source = DATA_DIR / "veikkaus-online-poker.v1.toml"
    text = source.read_text()
    row = 'key = "unresolved_stakes.void_after"\nvalue = 90\n'
    assert row in text
    text = text.replace("version = 1\n", "version = 2\n", 1).replace(
        row, 'key = "unresolved_stakes.void_after"\nvalue = 30\n')
    target = tmp_path / "veikkaus-online-poker.v2.toml"
    target.write_text(text)
    shutil.copytree(DATA_DIR / "veikkaus-online-poker.v1.d",
                    tmp_path / "veikkaus-online-poker.v2.d")
    load_rulebook(target)
    assert _rule_days(VENUE, started) == 30
    out = io.StringIO()
    call_command("forfeit_unresolved_hands", "--at", (started + 31 * DAY).isoformat(),
                 stdout=out)
    assert f"voided {hand_id}" in out.getvalue()
    assert balance(charity_forfeits(VENUE)) == 250


def test_the_job_is_on_the_beat_schedule():
    """Beat runs the forfeit daily: the entry names the task that exists."""
    from django.conf import settings

    import casino.poker.tasks  # noqa: F401 - registers the task with the project's app
    from casino.celery import app

    # The project's app, by name: a shared task's proxy resolves against
    # whichever app is current, and another test may have made its own.
    entry = settings.CELERY_BEAT_SCHEDULE["poker.forfeit-unresolved"]
    assert entry["task"] == "casino.poker.tasks.forfeit_unresolved"
    assert entry["task"] in app.tasks
