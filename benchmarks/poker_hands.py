"""Poker hands settled per second, end to end through the HTTP API.

Runs against a throwaway database on the configured PostgreSQL (the embedded
one by default), created and dropped here, with the shipped rulebooks. Each
hand is played as the scenario test plays it (tests/scenarios/
test_poker_cash_game.py): a table controller's token client (DRF's
APIClient, in process: the whole Django stack from the URL resolver down,
without a network socket) starts the hand, sends every action, the showdown
with the cards and the claimed awards, and buy-ins for busted players, at a
9-handed no-limit hold'em table (poker-helsinki) and a 6-max pot-limit
Omaha table (an online venue). Actions are random legal ones from a seeded
RNG, so both rows play the same hands on every run.

Each table plays its hands twice over: action by action (a request to
start the hand, one per action, one for the showdown), then as complete
hand histories (one request a hand, as an electronic table sends them).

    python benchmarks/poker_hands.py [--hands N] [--seed S]

Prints a table, then one line (both tables together):
poker_hands: actions_hands_per_s=<n> history_hands_per_s=<n>
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
# A throughput benchmark measures the product, not its per-client rate limit:
# the throttle still runs (its cost counts), with a rate no client reaches.
os.environ.setdefault("CASINO_API_RATE", "1000000/s")

import django  # noqa: E402

django.setup()

from django.test.utils import setup_test_environment  # noqa: E402

from casino import clock, throwaway  # noqa: E402
from casino.roles import Role, ensure_role_groups  # noqa: E402
from casino.rules.commands import load_shipped_rulebooks, register_venue  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200, help="hands per table")
    parser.add_argument("--seed", type=int, default=20261122)
    throwaway.add_arguments(parser)
    args = parser.parse_args()
    if args.smoke:
        args.hands = 2

    setup_test_environment()  # the test client's host name is allowed
    with throwaway.throwaway_database("pokerhands", disposable_server=args.disposable_server):
        # The tests' helpers: players, token clients, the scenario's driver.
        from tests.casino.api.conftest import client_for
        from tests.casino.conftest import NOON, VENUES
        from tests.scenarios import test_poker_cash_game as scenario

        # A fixed business time outside every blackout, as in the tests.
        clock.now = lambda: NOON
        load_shipped_rulebooks()
        ensure_role_groups()
        for rulebook_id, code in VENUES.items():
            register_venue(code=code, name=code, rulebook_id=rulebook_id)
        register_venue(code=scenario.ONLINE, name="Veikkaus online poker",
                       rulebook_id="veikkaus-online-poker")
        client = client_for(Role.TABLE_CONTROLLER)
        officer = client_for(Role.COMPLIANCE_OFFICER)
        rng = random.Random(args.seed)
        tables = [
            ("NLHE 1/2, 9-handed", scenario._open(
                client, officer, rng, venue="poker-helsinki", variant="holdem",
                structure="no_limit", small_blind=100, big_blind=200, seats=9,
                buy_in_min=10_000, buy_in_max=40_000, jackpot=True, paid_with="cash",
                deposit_minor=0)),
            ("PLO 0.50/1, 6-max", scenario._open(
                client, officer, rng, venue=scenario.ONLINE, variant="omaha",
                structure="pot_limit", small_blind=50, big_blind=100, seats=6,
                buy_in_min=4_000, buy_in_max=10_000, jackpot=False, paid_with="account",
                deposit_minor=scenario.DEPOSIT_MINOR)),
        ]
        print(f"{'table':<20} {'mode':<8} {'hands':>6} {'requests':>9} {'req/hand':>9}"
              f" {'hands/s':>8} {'req/s':>7} {'ms/req':>7}")
        rates = {}
        for mode in ("actions", "history"):
            hands_total = 0
            seconds_total = 0.0
            for name, run in tables:
                requests = 0
                post = run.post

                def counted(*a, _post=post, **kw):
                    nonlocal requests
                    requests += 1
                    return _post(*a, **kw)

                run.post = counted
                began = time.perf_counter()
                for number in range(args.hands):
                    run.play_hand(number, history=mode == "history")
                elapsed = time.perf_counter() - began
                run.post = post
                hands_total += args.hands
                seconds_total += elapsed
                print(f"{name:<20} {mode:<8} {args.hands:>6} {requests:>9}"
                      f" {requests / args.hands:>9.1f} {args.hands / elapsed:>8.1f}"
                      f" {requests / elapsed:>7.0f} {1000 * elapsed / requests:>7.1f}",
                      flush=True)
            rates[mode] = hands_total / seconds_total
        for name, run in tables:
            print(f"{name}: " + ", ".join(f"{k} {v}" for k, v in sorted(run.stats.items())))
        print(f"poker_hands: actions_hands_per_s={rates['actions']:.1f}"
              f" history_hands_per_s={rates['history']:.1f}")


if __name__ == "__main__":
    main()
