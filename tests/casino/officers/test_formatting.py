"""Events as sentences: the formatter registry and its generic fallback (pure)."""

from __future__ import annotations

import pytest

from casino.officers.formatting import (
    EventView,
    PostingView,
    formatter,
    generic,
    label,
    major,
    registered_types,
    render,
    value_text,
)


@pytest.mark.parametrize("minor, currency, text", [
    (0, "", "0.00"), (5, "EUR", "EUR 0.05"), (123456, "EUR", "EUR 1,234.56"),
    (-250, "EUR", "EUR -2.50"), (100_000_000_00, "", "100,000,000.00"),
], ids=["zero_case", "cents_case", "thousands_case", "negative_case", "large_case"])
def test_major_units(minor, currency, text):
    assert major(minor, currency) == text


def test_labels_drop_units_and_ids():
    assert [label(k) for k in ("stack_minor_after", "player_id", "amount_minor", "gaming_day")
            ] == ["stack after", "player", "amount", "gaming day"]


def test_a_refused_stake_reads_as_a_sentence_with_rule_and_citation():
    """002:L3339: roulette number field at a hall, EUR 4.00 a stake."""
    event = EventView(position=7, type="compliance.attempt_rejected", stream="player/p1",
                      payload={"attempt": {"kind": "stake", "venue": "hall-helsinki",
                                           "amount_minor": 401, "currency": "EUR",
                                           "player_id": "p1", "game": "roulette",
                                           "bet_unit": "number_field"},
                               "rule": "compliance.max_stake", "message": "over the cap",
                               "limit_minor": 400, "rulebook": "ray-gaming-hall@1",
                               "cite": "002:L3339", "hint": "lower the stake",
                               "checks_passed": ["compliance.identity"]},
                      metadata={"actor": "dealer"})
    rendered = render(event)
    assert rendered.title == "Refused: stake of EUR 4.01 on roulette at hall-helsinki"
    assert (rendered.rule, rendered.cite, rendered.tone, rendered.actor) == (
        "compliance.max_stake", "002:L3339", "refused", "dealer")
    assert ("limit", "EUR 4.00") in {(line.label, line.value) for line in rendered.lines}


def test_an_unknown_type_falls_back_to_every_key_with_amounts_in_major_units():
    event = EventView(position=1, type="newapp.thing_happened", stream="x/1",
                      payload={"amount_minor": 1250, "currency": "EUR", "seat": 3,
                               "nested": {"fee_minor": 50, "cite": "000:L12"},
                               "flags": [1, 2], "ok": True},
                      postings=(PostingView("house/v/rake", -1250, "EUR"),
                                PostingView("table/t/stacks", 1250, "EUR")))
    rendered = render(event)
    assert rendered.title == "Thing happened (newapp)"
    assert [(line.label, line.value) for line in rendered.lines] == [
        ("amount", "EUR 12.50"), ("currency", "EUR"), ("seat", "3"),
        ("nested / fee", "EUR 0.50"), ("nested / cite", "000:L12"), ("flags", "1, 2"),
        ("ok", "yes")]
    assert [(p.label, p.value) for p in rendered.postings] == [
        ("house/v/rake", "EUR -12.50"), ("table/t/stacks", "EUR +12.50")]


def test_a_formatter_that_cannot_read_an_old_payload_falls_back_to_generic():
    """An event of an older schema is still shown, never hidden."""
    event = EventView(position=3, type="cage.cash_deposited", stream="player/p",
                      payload={"player": "p", "amount_minor": 500})
    rendered = render(event)
    assert rendered.title == generic(event).title == "Cash deposited (cage)"
    assert ("amount", "5.00") in {(line.label, line.value) for line in rendered.lines}


def test_every_frequent_type_has_a_formatter():
    assert {"compliance.attempt_rejected", "compliance.alert_raised", "cage.cash_deposited",
            "poker.hand_settled", "poker.hand_disputed", "jackpots.hit_paid",
            "compliance.case_opened", "compliance.chain_verified"} <= registered_types()


def test_registering_a_formatter_replaces_the_fallback():
    @formatter("test.registered")
    def _registered(event):
        from casino.officers.formatting import Rendered
        return Rendered(title=f"custom {event.payload['n']}")

    assert render(EventView(1, "test.registered", "s", {"n": 5})).title == "custom 5"


def test_value_text_of_lists_and_maps():
    assert value_text("amounts_minor", [100, 250], "EUR") == "EUR 1.00, EUR 2.50"
    assert value_text("players", {"1": "p1", "2": "p2"}) == "1 p1; 2 p2"
    assert value_text("x", None) == "none"
