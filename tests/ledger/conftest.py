import pytest

from ledger import open_account


@pytest.fixture
def accounts(db):
    """A cage cash asset, a house revenue account and two players (EUR)."""
    open_account(code="cage/cash", type="asset", currency="EUR")
    open_account(code="house/revenue", type="revenue", currency="EUR")
    open_account(code="player/alice", type="liability", currency="EUR",
                 must_not_go_negative=True, balance_max_minor=500_000)
    open_account(code="player/bob", type="liability", currency="EUR",
                 must_not_go_negative=True)
    return ["cage/cash", "house/revenue", "player/alice", "player/bob"]
