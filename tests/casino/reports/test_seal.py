"""The daily seal: a verified head per gaming day, once, by a Celery task."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management import call_command

from casino.books import MAIN, venue_book
from casino.reports import commands, tasks
from casino.reports.errors import ReportsError
from casino.reports.events import DAY_SEALED, SEAL_REFUSED
from casino.reports.models import DaySeal
from ledger import GENESIS_HASH, Metadata, NewEvent, Posting, append
from ledger.books import book_key
from ledger.models import Event, LedgerHead
from ledger.verify import VerifyResult

from .conftest import DAY, DAY_AFTER, ROOM


def _day_end(book: int) -> dict:
    """Where the day's events end in a book, read from its events (a book with
    none of them: its base, before its first position, and the genesis hash)."""
    last = (Event.objects.filter(book=book, gaming_day__lte=DAY).order_by("-position")
            .first())
    return {"day_last_position": last.position if last else (book - 1) * 2**40,
            "day_last_hash": last.hash if last else GENESIS_HASH,
            "day_events": Event.objects.filter(book=book, gaming_day=DAY).count()}


def test_the_seal_records_the_verified_head_and_where_the_day_ends(seeded_day, monkeypatch):
    """A roll-up written after midnight for the day still counts as the day's;
    an event of the next day before the seal is under the head, not the day.

    Book-agnostic (issue 19): the seal names every book's head (only main's
    without venue books), the main book's in its own keys, and where the day
    ends in each other book under `day_ends`."""
    monkeypatch.setattr("casino.clock.now", lambda: DAY_AFTER)
    room = venue_book(ROOM)
    last_of_day = (Event.objects.filter(book=room, gaming_day__lte=DAY)
                   .order_by("-position").first())
    next_day = append([NewEvent(
        stream="test/next", type="test.cash_moved", payload={"venue": ROOM},
        postings=(Posting(f"cage/{ROOM}/cash", 1_00, "EUR"),
                  Posting(f"cage/{ROOM}/chips", -1_00, "EUR")),
        gaming_day=DAY + dt.timedelta(days=1))], metadata=Metadata(actor="t"),
        book=room).first_position
    ends = {book: _day_end(book) for book in LedgerHead.objects.values_list("id", flat=True)}
    heads = {key: {"position": position, "hash": hash_} for key, position, hash_ in
             LedgerHead.objects.values_list("key", "position", "hash")}
    events = Event.objects.count()

    sealed = commands.seal_day(gaming_day=DAY, actor="celery")
    event = Event.objects.get(position=sealed.position)
    assert (event.type, event.stream) == (DAY_SEALED, "reports/seal")
    assert event.idempotency_key == f"reports/seal/{DAY.isoformat()}"
    # The next day's event is the room's book's head, not its day's last.
    assert heads[book_key(room)] == {"position": next_day,
                                     "hash": Event.objects.get(position=next_day).hash}
    assert ends[room]["day_last_position"] == last_of_day.position
    expected = {
        "gaming_day": DAY.isoformat(), "head_position": heads["main"]["position"],
        "head_hash": heads["main"]["hash"], **ends[MAIN], "verified_events": events,
        "heads": heads}
    if len(heads) > 1:
        expected["day_ends"] = {book_key(book): end for book, end in ends.items()
                                if book != MAIN}
    assert event.payload == expected
    row = DaySeal.objects.get(gaming_day=DAY)
    assert (row.head_position, row.day_last_position) == (
        heads["main"]["position"], ends[MAIN]["day_last_position"])


def test_sealing_a_day_twice_appends_nothing(seeded_day, monkeypatch):
    monkeypatch.setattr("casino.clock.now", lambda: DAY_AFTER)
    first = tasks.seal_day.delay(DAY.isoformat()).get()
    count = Event.objects.count()
    again = tasks.seal_day.delay(DAY.isoformat()).get()
    assert (again["position"], again["replayed"]) == (first["position"], True)
    assert again["head_position"] == first["head_position"]
    assert Event.objects.count() == count


def test_the_beat_task_catches_up_every_ended_day_once(seeded_day, monkeypatch):
    """Three mornings later: the two days after the last seal are sealed,
    oldest first; the day still running is not; a rerun seals nothing."""
    monkeypatch.setattr("casino.clock.now", lambda: DAY_AFTER)
    commands.seal_day(gaming_day=DAY)
    monkeypatch.setattr("casino.clock.now", lambda: DAY_AFTER + dt.timedelta(days=2))
    assert tasks.seal_ended_days.delay().get() == [
        (DAY + dt.timedelta(days=1)).isoformat(), (DAY + dt.timedelta(days=2)).isoformat()]
    count = Event.objects.count()
    assert tasks.seal_ended_days.delay().get() == []
    assert Event.objects.count() == count
    assert list(DaySeal.objects.order_by("gaming_day").values_list("gaming_day", flat=True)) \
        == [DAY + dt.timedelta(days=n) for n in range(3)]


def test_a_day_still_running_somewhere_is_not_sealed(seeded_day):
    count = Event.objects.count()
    with pytest.raises(ReportsError) as refused:
        commands.seal_day(gaming_day=DAY)
    assert (refused.value.code, refused.value.status) == ("reports.day_not_ended", 409)
    assert ROOM in refused.value.details["venues"]
    assert Event.objects.count() == count


def test_a_chain_that_does_not_verify_is_recorded_and_not_sealed(seeded_day, monkeypatch):
    """The refusal names the first bad position; the day stays unsealed, so a
    later run (once the chain is sound) seals it."""
    monkeypatch.setattr("casino.clock.now", lambda: DAY_AFTER)
    monkeypatch.setattr("casino.compliance.verification.verify_chain",
                        lambda: VerifyResult(False, 41, 60, 42, "content does not match"))
    with pytest.raises(ReportsError) as refused:
        commands.seal_day(gaming_day=DAY)
    assert (refused.value.code, refused.value.status) == ("reports.chain_broken", 409)
    # The seal stream's last event (a venue's book, issue 19, has higher positions).
    refusal = Event.objects.filter(stream="reports/seal").order_by("-position").first()
    assert refusal.type == SEAL_REFUSED
    assert (refusal.payload["bad_position"], refusal.payload["verified_events"]) == (42, 41)
    assert not DaySeal.objects.exists()
    monkeypatch.undo()
    monkeypatch.setattr("casino.clock.now", lambda: DAY_AFTER)
    assert commands.seal_day(gaming_day=DAY).replayed is False


def test_seal_day_command_prints_the_seal(seeded_day, monkeypatch, capsys):
    monkeypatch.setattr("casino.clock.now", lambda: DAY_AFTER)
    call_command("seal_day", "--day", DAY.isoformat())
    call_command("seal_day", "--day", DAY.isoformat())
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{DAY.isoformat()} sealed (event #")
    assert out[1].startswith(f"{DAY.isoformat()} already sealed (event #")
