"""Signals other apps listen to, so poker never imports them.

`hand_settled` is sent after the append that settled a hand has committed,
with `hand_id` and `event` (the `poker.hand_settled` RecordedEvent). It is
sent again when a client repeats the settling request under its key, so a
receiver that failed the first time gets another chance: receivers must be
idempotent (the jackpot hit check keys its append by the hand).
"""

from django.dispatch import Signal

hand_settled = Signal()
