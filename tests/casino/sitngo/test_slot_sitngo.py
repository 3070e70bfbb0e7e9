"""The sit'n'go jackpot of slot-machine sit'n'gos (issue 22; 002:L3327-3329):
"a slot tournament may also be played as a sit'n'go ... a special sit'n'go
jackpot may be attached, triggered when a player has won a predetermined
number of consecutive sit'n'go jackpot tournaments". A series of kind `slot`
counts the machines' slot tournaments (online, the section being the
internet games'); entrants are the tournament's entries, the winner the first
of its ranking; fees pass the pipeline as the venue's slot tournament entry
fee (002:L3487). Over HTTP, reconciled to the ledger.
"""

from __future__ import annotations

import itertools

from casino.accounts import gaming_account
from casino.cage.commands import deposit
from casino.machines import tournaments as slots
from casino.roles import Role
from casino.sitngo.events import TOURNAMENT_RECORDED, pool_account
from casino.sitngo.models import SitngoSeries
from ledger import rebuild_projections, verify_chain
from ledger.models import Account, Event, Posting
from tests.casino.api.conftest import client_for, post
from tests.casino.conftest import make_player

VENUE = "ray-online"
API = "/api/v1/sitngo/series"
_keys = itertools.count(1)


def key(prefix="slot-sng"):
    return f"{prefix}-{next(_keys)}"


def balance(code):
    account = Account.objects.filter(code=code).first()
    return account.balance_minor if account else 0


def funded():
    player = make_player()
    deposit(player_id=player.id, venue="casino-helsinki", amount_minor=500_00,
            currency="EUR", method="cash", actor="cage", idempotency_key=key("deposit"))
    return player


def slot_sitngo(winner, loser, *, finish=True):
    """An online slot tournament played as a heads-up sit'n'go, won by `winner`."""
    tid = key("t")
    slots.announce_slot_tournament(tournament_id=tid, venue=VENUE, name="Slot SNG",
                                   entry_fee_minor=5_00, prizes={"share_bp": [10_000]},
                                   actor="officer", idempotency_key=key())
    for player in (winner, loser):
        slots.enter_slot_tournament(tournament_id=tid, player_id=player.id, actor="web",
                                    idempotency_key=key())
    slots.start_slot_tournament(tournament_id=tid, actor="officer", idempotency_key=key())
    if finish:
        slots.finish_slot_tournament(tournament_id=tid, ranking=[winner.id, loser.id],
                                     actor="officer", idempotency_key=key())
    return tid


def _series(client, venue=VENUE, wins=2):
    return post(client, API, {"venue": venue, "wins_to_trigger": wins, "fee": "1.00",
                              "kind": "slot"}, key=key("series"))


def _record(client, series_id, tournament_id):
    return post(client, f"{API}/{series_id}/tournaments", {"tournament_id": tournament_id},
                key=key("record"))


def test_two_slot_sitngos_won_in_a_row_take_the_pool(venues):
    """Trigger 2, fee EUR 1: Anna wins two slot sit'n'gos against Ben; the four
    fees are hers with the second win."""
    controller = client_for(Role.TABLE_CONTROLLER)
    posted = _series(controller)
    assert posted.status_code == 201, posted.json()
    assert posted.json()["kind"] == "slot"
    series_id = posted.json()["series_id"]
    anna, ben = funded(), funded()
    first = _record(controller, series_id, slot_sitngo(anna, ben))
    assert first.status_code == 201, first.json()
    assert (first.json()["winner_id"], first.json()["winner_streak"]) == (anna.id, 1)
    assert balance(pool_account(VENUE, series_id)) == 2_00
    second_tournament = slot_sitngo(anna, ben)
    before = balance(gaming_account(anna.id))
    second = _record(controller, series_id, second_tournament).json()
    assert (second["winner_streak"], second["jackpot_minor"]) == (2, 4_00)
    assert balance(gaming_account(anna.id)) == before - 1_00 + 4_00
    assert balance(pool_account(VENUE, series_id)) == 0
    for event in Event.objects.filter(type=TOURNAMENT_RECORDED):
        assert event.payload["cite"] == "002:L3329"
        assert sum(p.amount_minor for p in Posting.objects.filter(event=event)) == 0
        for verdict in event.payload["verdicts"].values():
            assert "compliance.max_stake" in verdict["checks_passed"]
    assert verify_chain().ok
    before = list(SitngoSeries.objects.values_list("id", "kind", "pool_minor", "paid_minor"))
    rebuild_projections()
    assert list(SitngoSeries.objects.values_list("id", "kind", "pool_minor",
                                                 "paid_minor")) == before


def test_a_slot_series_is_online_only(venues):
    controller = client_for(Role.TABLE_CONTROLLER)
    refused = _series(controller, venue="casino-helsinki")
    assert (refused.status_code, refused.json()["code"]) == (400, "sitngo.invalid_request")


def test_a_slot_series_counts_only_finished_slot_tournaments(venues):
    from tests.casino.sitngo.test_sitngo import heads_up

    controller = client_for(Role.TABLE_CONTROLLER)
    series_id = _series(controller).json()["series_id"]
    anna, ben = funded(), funded()
    running = _record(controller, series_id, slot_sitngo(anna, ben, finish=False))
    assert (running.status_code, running.json()["code"]) == (422, "sitngo.not_eligible")
    poker = _record(controller, series_id, heads_up(anna, ben))
    assert (poker.status_code, poker.json()["code"]) == (404, "sitngo.unknown_tournament")
    # ... and a poker series does not count a slot tournament.
    poker_series = post(controller, API, {"venue": VENUE, "wins_to_trigger": 2,
                                          "fee": "1.00"}, key=key("series")).json()
    assert poker_series["kind"] == "poker"
    slot = _record(controller, poker_series["series_id"], slot_sitngo(anna, ben))
    assert slot.status_code == 404
