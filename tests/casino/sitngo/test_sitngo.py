"""The sit'n'go jackpot (issue 22 item 6; 002:L3299, L3329): a posted number of
consecutive sit'n'go jackpot tournaments won triggers the pool the entrants'
posted fees fill. Tournaments are played through the tournaments app; the
jackpot counts them over HTTP and reconciles to the ledger."""

from __future__ import annotations

import pytest

from casino.accounts import gaming_account
from casino.cage.commands import deposit
from casino.roles import Role
from casino.sitngo.events import SERIES_POSTED, TOURNAMENT_RECORDED, pool_account
from casino.sitngo.models import SitngoSeries, SitngoStreak
from casino.tournaments import commands as tournaments
from ledger import rebuild_projections, verify_chain
from ledger.models import Account, Event, Posting
from tests.casino.api.conftest import client_for, post
from tests.casino.conftest import make_player

VENUE = "ray-online"
API = "/api/v1/sitngo/series"
_keys = iter(range(1, 1_000_000))


def key(prefix="k"):
    return f"{prefix}-{next(_keys)}"


def balance(code):
    account = Account.objects.filter(code=code).first()
    return account.balance_minor if account else 0


def funded():
    player = make_player()
    deposit(player_id=player.id, venue="casino-helsinki", amount_minor=500_00,
            currency="EUR", method="cash", actor="cage", idempotency_key=key("deposit"))
    return player


def heads_up(winner, loser):
    """A finished heads-up sit'n'go at the online venue, won by `winner`."""
    t = tournaments.announce(venue=VENUE, name="SNG", format="sit_and_go",
                             entry={"prize_minor": 9_50, "fee_minor": 50},
                             seats_per_table=2, actor="td",
                             idempotency_key=key("announce")).tournament_id
    tournaments.open_registration(tournament_id=t, actor="td", idempotency_key=key())
    for player in (winner, loser):
        tournaments.register(tournament_id=t, player_id=player.id, actor="web",
                             idempotency_key=key())
    tournaments.start(tournament_id=t, actor="td", idempotency_key=key())
    tournaments.eliminate(tournament_id=t, outs=[{"player_id": loser.id, "stack": 100}],
                          actor="td", idempotency_key=key())
    tournaments.fix_prize_pool(tournament_id=t, actor="td", idempotency_key=key())
    tournaments.finish(tournament_id=t, actor="td", idempotency_key=key())
    return t


@pytest.fixture
def controller(venues):
    return client_for(Role.TABLE_CONTROLLER)


def _record(client, series_id, tournament_id):
    return post(client, f"{API}/{series_id}/tournaments", {"tournament_id": tournament_id},
                key=key("record"))


def test_three_wins_in_a_row_take_the_pool(controller):
    """002:L3299: posted trigger 3 wins, fee EUR 1. Anna wins three heads-ups in a row
    (the second against Ben, who then has no streak); the six fees, EUR 6, are paid to
    her with the third win, and the streak starts again."""
    posted = post(controller, API, {"venue": VENUE, "wins_to_trigger": 3, "fee": "1.00"},
                  key=key("series"))
    assert posted.status_code == 201, posted.json()
    series_id = posted.json()["series_id"]
    anna, ben, cid = funded(), funded(), funded()
    first = _record(controller, series_id, heads_up(anna, ben))
    assert first.status_code == 201, first.json()
    assert (first.json()["winner_streak"], first.json()["jackpot_minor"]) == (1, 0)
    second = _record(controller, series_id, heads_up(anna, cid)).json()
    assert second["winner_streak"] == 2
    assert balance(pool_account(VENUE, series_id)) == 4_00
    third_tournament = heads_up(anna, ben)
    before = balance(gaming_account(anna.id))
    third = _record(controller, series_id, third_tournament).json()
    assert (third["winner_streak"], third["jackpot_minor"]) == (3, 6_00)
    # Anna paid her third fee and got the pool of six fees back.
    assert balance(gaming_account(anna.id)) == before - 1_00 + 6_00
    assert balance(pool_account(VENUE, series_id)) == 0
    details = controller.get(f"{API}/{series_id}").json()
    assert (details["pool_minor"], details["paid_minor"], details["tournaments"]) == (
        0, 6_00, 3)
    assert details["streaks"] == {}
    # Each recording's postings balance; every fee passed the compliance pipeline as
    # a poker tournament's entry fee under Part IV (002:L3485).
    for event in Event.objects.filter(type=TOURNAMENT_RECORDED):
        assert sum(p.amount_minor for p in Posting.objects.filter(event=event)) == 0
        for verdict in event.payload["verdicts"].values():
            assert {"compliance.game_not_offered", "compliance.max_stake"} <= set(
                verdict["checks_passed"])
    assert verify_chain().ok


def test_a_lost_tournament_ends_the_streak(controller):
    """002:L3299: the wins must be consecutive."""
    series_id = post(controller, API, {"venue": VENUE, "wins_to_trigger": 2, "fee": "1.00"},
                     key=key("series")).json()["series_id"]
    anna, ben = funded(), funded()
    _record(controller, series_id, heads_up(anna, ben))
    _record(controller, series_id, heads_up(ben, anna))
    streaks = dict(SitngoStreak.objects.filter(series_id=series_id)
                   .values_list("player_id", "wins"))
    assert streaks == {anna.id: 0, ben.id: 1}
    assert balance(pool_account(VENUE, series_id)) == 4_00


def test_a_tournament_counts_once_and_only_a_finished_sit_n_go(controller):
    series_id = post(controller, API, {"venue": VENUE, "wins_to_trigger": 2, "fee": "1.00"},
                     key=key("series")).json()["series_id"]
    anna, ben = funded(), funded()
    t = heads_up(anna, ben)
    assert _record(controller, series_id, t).status_code == 201
    again = _record(controller, series_id, t)
    assert (again.status_code, again.json()["code"]) == (409, "sitngo.already_recorded")
    other = tournaments.announce(venue=VENUE, name="MTT", format="freezeout",
                                 entry={"prize_minor": 9_00, "fee_minor": 1_00},
                                 actor="td", idempotency_key=key("announce")).tournament_id
    refused = _record(controller, series_id, other)
    assert (refused.status_code, refused.json()["code"]) == (422, "sitngo.not_eligible")
    unknown = _record(controller, series_id, "nope")
    assert unknown.status_code == 404


def test_rebuild_reproduces_the_series(controller):
    series_id = post(controller, API, {"venue": VENUE, "wins_to_trigger": 2, "fee": "1.00"},
                     key=key("series")).json()["series_id"]
    anna, ben = funded(), funded()
    _record(controller, series_id, heads_up(anna, ben))
    live = SitngoSeries.objects.values().get(id=series_id)
    streaks = sorted(SitngoStreak.objects.values_list("key", "wins"))
    rebuild_projections()
    assert SitngoSeries.objects.values().get(id=series_id) == live
    assert sorted(SitngoStreak.objects.values_list("key", "wins")) == streaks
    assert Event.objects.filter(type=SERIES_POSTED).count() == 1


def test_the_pool_is_a_jackpot_pool_in_the_daily_close_and_the_journal():
    """The close and the journal class the series' pool as a jackpot pool (GL 2410),
    not as an unclassified account."""
    from casino.reports.chart import gl_account

    assert gl_account(pool_account(VENUE, "sng-1")) == ("2410", "Jackpot pools")
