"""A player's and a table's events in order, readable without the schema."""

from __future__ import annotations

from django.urls import reverse

from casino.officers import queries
from ledger.models import LedgerHead
from tests.casino.jackpots.conftest import play_hand
from tests.casino.jackpots.conftest import table  # noqa: F401 (fixture)
from tests.casino.poker.test_disputes import _disputed_hand


def test_a_players_timeline_reads_in_order_with_amounts_rules_and_citations(officers,
                                                                          traffic):
    """Registration, deposit (with its AML alert) and the refused stake, 002:L3339."""
    page = officers["olli"].get(reverse("admin:officers_player_timeline",
                                        args=[traffic.player_id]))
    assert page.status_code == 200
    entries = page.context["entries"]
    positions = [e.event.position for e in entries]
    assert positions == sorted(positions)
    titles = [e.rendered.title for e in entries]
    assert "Deposit of EUR 2,500.00 (cash) at casino-helsinki" in titles
    assert "Refused: stake of EUR 4.01 on roulette at hall-helsinki" in titles
    refusal = next(e for e in entries if e.event.type == "compliance.attempt_rejected")
    assert (refusal.rendered.rule, refusal.rendered.cite) == ("compliance.max_stake",
                                                              "002:L3339")
    html = page.content.decode()
    assert "EUR +2,500.00" in html and "EUR -2,500.00" in html   # the deposit's postings
    assert f'id="event-{traffic.aml_alert.raised_position}"' in html
    assert page.context["summary"]["Gaming account"] == "EUR 2,500.00"
    assert "{&quot;" not in html   # no raw JSON


def test_a_player_named_only_inside_a_payload_is_found(venues, table):
    """Seated at a table (players map) and paid by a jackpot share: both found."""
    hand_id, _ = play_hand(table)
    from casino.poker.models import Seat
    player_id = Seat.objects.filter(table_id=table, number=3).get().player_id
    types = {e.event.type for e in queries.player_timeline(player_id)}
    assert {"poker.player_bought_in", "poker.hand_started", "cage.cash_deposited",
            "jackpots.hit_recorded"} <= types


def test_a_tables_timeline_holds_its_hands_and_the_disputed_showdown(officers):
    """The mismatch alert is on the hand's stream, so the table shows it."""
    opened, hand = _disputed_hand()
    page = officers["olli"].get(reverse("admin:officers_table_timeline",
                                        args=[opened.table_id]))
    entries = page.context["entries"]
    types = [e.event.type for e in entries]
    assert types[0] == "poker.table_opened"
    assert {"poker.hand_started", "poker.action_taken", "poker.hand_disputed",
            "compliance.alert_raised"} <= set(types)
    disputed = next(e for e in entries if e.event.type == "poker.hand_disputed")
    assert disputed.rendered.title == (f"Hand {hand.hand_id} disputed: the claimed result"
                                       " is not the verified one; no money moved")
    assert ("claimed", "seat 1 23.00") in {(line.label, line.value)
                                               for line in disputed.rendered.lines}
    assert page.content.decode().count('class="timeline-event') == len(entries)
    # Each book numbers its own events: the table's are the venue's, shown in its book.
    first = entries[0].event
    book = LedgerHead.objects.get(id=first.book)
    shown = (f"#{first.position - (first.book - 1) * 2**40}"
             + ("" if book.key == "main" else f" in {book.key}"))
    assert f'<div class="event-meta">{shown} &middot;' in page.content.decode()


def test_the_search_box_routes_to_the_timelines(officers):
    olli = officers["olli"]
    to_player = olli.get(reverse("admin:officers_timeline"), {"player": "abc"})
    to_table = olli.get(reverse("admin:officers_timeline"), {"table": "t1"})
    assert to_player["Location"] == reverse("admin:officers_player_timeline", args=["abc"])
    assert to_table["Location"] == reverse("admin:officers_table_timeline", args=["t1"])
    empty = olli.get(reverse("admin:officers_player_timeline", args=["nobody"]))
    assert empty.status_code == 200 and b'id="timeline-empty"' in empty.content


def test_timelines_page_after_a_position(officers, traffic):
    first = queries.player_timeline(traffic.player_id, limit=2)
    rest = queries.player_timeline(traffic.player_id, after=first[-1].event.position)
    assert len(first) == 2
    assert rest[0].event.position > first[-1].event.position
