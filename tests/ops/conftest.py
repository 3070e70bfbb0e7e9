"""The casino apps' fixtures (pinned business clock, venues) for the operations tests."""

from tests.casino.conftest import business_clock, venues  # noqa: F401 - fixtures
