import pytest

from casino.rules.commands import load_shipped_rulebooks


@pytest.fixture
def rulebooks(db):
    """Every shipped rulebook, loaded through the ledger."""
    return {version.rulebook_id: version for version, _ in load_shipped_rulebooks()}
