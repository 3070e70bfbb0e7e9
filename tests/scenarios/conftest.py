"""Scenario tests use the casino apps' fixtures: shipped rulebooks, venues, clock."""

from tests.casino.conftest import business_clock, venues  # noqa: F401
