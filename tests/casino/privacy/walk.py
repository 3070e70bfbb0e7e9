"""Rows of the Idempotency-Key walk (tests/casino/api/test_idempotency_walk.py) for erasures."""

from __future__ import annotations

import datetime as dt
import itertools

from casino.players.commands import register_player
from casino.privacy.commands import propose_erasure
from casino.roles import Role
from tests.casino.api.walk_world import Row, pair
from tests.casino.conftest import NOON

_documents = itertools.count(1)


def _retired_player() -> str:
    """A player whose last event is six years old: past the 5-year retention."""
    return register_player(given_name="Aino", family_name="Virtanen",
                           date_of_birth=dt.date(1980, 1, 2), nationality="FI",
                           document_type="passport", document_number=f"W{next(_documents)}000",
                           actor="cage", at=NOON - dt.timedelta(days=6 * 366)).id


def propose() -> Row:
    client, other = pair(Role.COMPLIANCE_OFFICER)
    url = f"/api/v1/players/{_retired_player()}/erasures"
    return Row(client, url, {"reason": "retention over"}, url,
               {"reason": "the player asked, retention over"}, other)


def approve() -> Row:
    client, other = pair(Role.COMPLIANCE_OFFICER)
    first, second = _retired_player(), _retired_player()
    for player_id in (first, second):
        propose_erasure(player_id=player_id, reason="retention over", actor="walk-proposer")
    return Row(client, f"/api/v1/players/{first}/erasures/approve", {},
               f"/api/v1/players/{second}/erasures/approve", {}, other)
