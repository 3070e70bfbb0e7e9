"""Cash transactions racing on one player: the AML sum sees every one of them."""

import threading

import pytest
from django.db import connection

from casino.cage.commands import buy_chips
from casino.compliance.models import Alert, CashActivity
from tests.casino.conftest import NOON, make_player

THREADS = 4
ROUNDS = 3


@pytest.mark.django_db(transaction=True)
def test_parallel_cash_purchases_crossing_the_threshold_raise_exactly_one_alert(venues):
    """Four connections buy EUR 600 of chips each for one player at once.

    Each decision reads the day's cash total; the expected player-stream
    version makes a decision on a stale total fail and be retried, so the
    EUR 2,400 day crosses EUR 2,000 exactly once, whatever the interleaving.
    """
    players = [make_player() for _ in range(ROUNDS)]
    unexpected = []
    for player in players:
        start = threading.Barrier(THREADS)

        def worker(player_id: str) -> None:
            start.wait()
            try:
                buy_chips(player_id=player_id, venue="casino-helsinki", amount_minor=60_000,
                          currency="EUR", actor="cashier", at=NOON)
            except Exception as error:  # noqa: BLE001 - reported below
                unexpected.append(error)
            finally:
                connection.close()

        threads = [threading.Thread(target=worker, args=(player.id,)) for _ in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    assert unexpected == []
    for player in players:
        activity = CashActivity.objects.get(player_id=player.id)
        assert (activity.total_minor, activity.transactions) == (240_000, THREADS)
        assert Alert.objects.filter(player_id=player.id, kind="aml_threshold").count() == 1
