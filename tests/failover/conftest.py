"""Fixtures of the failover tests (issue 19 point 7).

The casino fixtures (rulebooks, venues, the pinned business clock) are
re-exported for the runner's retry test; the failover test itself runs its
own servers (tests/failover/cluster.py) and needs none of them.
"""

from tests.casino.conftest import business_clock, venues  # noqa: F401 - re-exported fixtures
