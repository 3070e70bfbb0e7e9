"""Listeners to other apps' signals: bad-beat checks and progressive hits.

Poker sends `hand_settled` after its append has committed, and again on an
idempotent replay; the check is keyed by the hand, so it records a hit once.
The house games send `progressive_hit` the same way after a round settles,
once per winning progressive bet; the hit is keyed by the bet. A failure
here must not fail the hand or the round (it has settled): it is logged,
and a replay of the settling request sends the signal again.
"""

from __future__ import annotations

import logging

from .commands import check_hand, drop_terms_refusal, record_progressive_hit

logger = logging.getLogger(__name__)


def check_settled_hand(sender, *, hand_id: str, event, **kwargs) -> None:
    try:
        check_hand(hand_id=hand_id, settled=event)
    except Exception:  # noqa: BLE001 - the settled hand stands; the check is retried
        logger.exception("jackpots.hit_check_failed", extra={"hand_id": hand_id})


def refuse_drop_without_terms(sender, *, venue: str, at, **kwargs) -> str | None:
    """Answer poker's `jackpot_drop_terms`: a refusal while no terms can pay the pool."""
    return drop_terms_refusal(venue=venue, at=at)


def record_progressive(sender, *, round_id: str, bet_id: str, player_id: str, venue: str,
                       position: int, hit, **kwargs) -> None:
    try:
        record_progressive_hit(round_id=round_id, bet_id=bet_id, player_id=player_id,
                               venue=venue, position=position, hit=hit)
    except Exception:  # noqa: BLE001 - the settled round stands; the signal is resent
        logger.exception("jackpots.progressive_hit_failed", extra={"bet_id": bet_id})
