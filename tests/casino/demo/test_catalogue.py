"""The demo plays the whole game catalogue once (issue 22): every round settles
and reconciles to the ledger, and the daily close of its venues includes them."""

from __future__ import annotations

import pytest
from django.db import transaction

from casino.demo.gaming_day import run_demo
from casino.games.models import Round
from casino.sitngo.models import SitngoSeries
from tests.casino.games.http_rounds import reconcile

SMALL = dict(seed=23, hands_per_day=2, rounds_per_day=1)


@pytest.fixture(scope="module")
def demo(django_db_setup, django_db_blocker, tmp_path_factory):
    out_dir = tmp_path_factory.mktemp("demo-catalogue")
    with django_db_blocker.unblock():
        with transaction.atomic():
            result = run_demo(**SMALL, out_dir=out_dir)
            yield result
            transaction.set_rollback(True)


def test_every_catalogue_round_settles_and_reconciles(demo, db):
    """Punto Banco's minimum commission, Oasis B/C/D, the win cap and progressive,
    player-banked Pai Gow, Baccara's bank, Chinese Poker and OFC in points, and RAY
    online's hedge bet, banker card game and dice game: 14 rounds, all settled."""
    rounds = demo.facts["catalogue_rounds"]
    assert len(rounds) == 14
    assert demo.counts["catalogue rounds settled"] == 14
    for name, round_id in rounds.items():
        round_ = Round.objects.select_related("table").get(id=round_id)
        body = {"round_id": round_.id, "table_id": round_.table_id,
                "staked_minor": round_.staked_minor, "returned_minor": round_.returned_minor,
                "commission_minor": round_.commission_minor,
                "contribution_minor": round_.contribution_minor,
                "house_minor": round_.house_minor,
                "bets": [{"player_id": b.player_id} for b in round_.bets.all()]}
        reconcile(body, venue=round_.table.venue, game=round_.table.game)
        assert round_.state == "settled", name
    pai_gow = Round.objects.get(id=rounds["pai-gow-bank/2"])
    bank = pai_gow.bets.get(kind="bank")
    assert bank.detail["dealer_cap_minor"] == 20_00          # 002:L2623
    baccara = Round.objects.get(id=rounds["baccara/2"])
    assert baccara.bets.get(kind="banco").stake_minor == 78_00   # 002:L2817


def test_the_sit_n_go_jackpot_is_won_by_two_wins_in_a_row(demo, db):
    """002:L3299: posted at two consecutive wins and a EUR 1 fee; the same gambler
    wins both heads-ups and takes the four fees."""
    assert demo.facts["sitngo_jackpot_minor"] == 4_00
    series = SitngoSeries.objects.get(id=demo.facts["sitngo_series"])
    assert (series.pool_minor, series.paid_minor, series.tournaments) == (0, 4_00, 2)
