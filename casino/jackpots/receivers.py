"""Listeners to other apps' signals: the hit check after a hand settles.

Poker sends `hand_settled` after its append has committed, and again on an
idempotent replay; the check is keyed by the hand, so it records a hit once.
A failure here must not fail the hand (it has settled): it is logged, and a
replay of the settling request runs the check again.
"""

from __future__ import annotations

import logging

from .commands import check_hand

logger = logging.getLogger(__name__)


def check_settled_hand(sender, *, hand_id: str, event, **kwargs) -> None:
    try:
        check_hand(hand_id=hand_id, settled=event)
    except Exception:  # noqa: BLE001 - the settled hand stands; the check is retried
        logger.exception("jackpots.hit_check_failed", extra={"hand_id": hand_id})
