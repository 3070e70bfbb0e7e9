"""Fixtures for the security tests: the shared casino fixtures (pinned business
clock, shipped rulebooks and venues) and a jackpot table."""

from __future__ import annotations

from tests.casino.conftest import business_clock, venues  # noqa: F401  (fixtures)
from tests.casino.jackpots.conftest import table  # noqa: F401  (fixture)
from tests.ledger.conftest import accounts  # noqa: E402,F401  (fixture)
from tests.casino.reports.conftest import seeded_day  # noqa: E402,F401  (fixture)
