"""L2 and L4 under real parallel connections.

Eight threads, each with its own database connection, fire 500 random
transfers each among ten accounts; many would overdraw a guarded account.
Afterwards the log must be gap-free and verify, every balance must equal the
sum of its accepted postings, and no guarded account may ever have been
negative at any position of the log.
"""

import random
import threading
from collections import defaultdict

import pytest
from django.db import connection, transaction

from ledger import open_account, verify_chain
from ledger.errors import InsufficientFunds
from ledger.models import Account, Event, Posting, natural_sign

from .factories import transfer

THREADS = 8
TRANSFERS_PER_THREAD = 500
GUARDED = [f"player/{n}" for n in range(8)]
UNGUARDED = ["cage/cash", "house/float"]


def _open_accounts() -> None:
    open_account(code="cage/cash", type="asset", currency="EUR")
    open_account(code="house/float", type="equity", currency="EUR")
    for code in GUARDED:
        open_account(code=code, type="liability", currency="EUR", must_not_go_negative=True)
    # Seed every player with a little money so transfers between them happen.
    for code in GUARDED:
        transfer(code, "cage/cash", 5_000)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("mode", ["own_transaction", "group_commit"])
def test_parallel_random_transfers_keep_every_invariant(mode):
    """8 connections x 500 random transfers: gap-free, conserved, never negative."""
    _open_accounts()
    codes = GUARDED + UNGUARDED
    start = threading.Barrier(THREADS)
    outcomes = defaultdict(int)
    unexpected = []

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        start.wait()
        try:
            for _ in range(TRANSFERS_PER_THREAD):
                source, destination = rng.sample(codes, 2)
                amount = rng.randint(1, 4_000)
                try:
                    if mode == "own_transaction":
                        with transaction.atomic():
                            transfer(source, destination, amount)
                    else:
                        transfer(source, destination, amount)
                    outcomes["accepted"] += 1
                except InsufficientFunds:
                    outcomes["refused"] += 1
        except Exception as error:  # noqa: BLE001 - reported below
            unexpected.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert unexpected == []
    assert outcomes["accepted"] + outcomes["refused"] == THREADS * TRANSFERS_PER_THREAD
    assert outcomes["refused"] > 0, "the scenario must include refused overdrafts"
    assert outcomes["accepted"] > 0

    positions = list(Event.objects.values_list("position", flat=True))
    assert positions == list(range(1, len(positions) + 1))
    transfers = Event.objects.filter(type="test.transferred").count()
    assert transfers == outcomes["accepted"] + len(GUARDED)

    # Replay postings in log order: the running balance of a guarded account
    # is never negative, and the final one equals the projection.
    types = dict(Account.objects.values_list("code", "type"))
    running = defaultdict(int)
    for account, amount in Posting.objects.order_by("event_id", "index").values_list(
        "account_id", "amount_minor"
    ):
        running[account] += natural_sign(types[account]) * amount
        if account in GUARDED:
            assert running[account] >= 0
    assert dict(Account.objects.values_list("code", "balance_minor")) == {
        code: running[code] for code in codes
    }
    raw_total = sum(Posting.objects.values_list("amount_minor", flat=True))
    assert raw_total == 0
    assert verify_chain().ok
