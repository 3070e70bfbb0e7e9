"""Signals other apps listen to, so poker never imports them.

`hand_settled` is sent after the append that settled a hand has committed,
with `hand_id` and `event` (the `poker.hand_settled` RecordedEvent). It is
sent again when a client repeats the settling request under its key, so a
receiver that failed the first time gets another chance: receivers must be
idempotent (the jackpot hit check keys its append by the hand).
"""

from django.dispatch import Signal

hand_settled = Signal()

jackpot_drop_terms = Signal()
"""Sent when a table that takes a jackpot drop or fee opens, with `venue`
and `at`. A receiver answers a refusal message (str) when the venue's pool
has no terms that could pay the money out (002:L1792, L1808; 003:L141-142:
the venue posts them), None otherwise; no receiver means no refusal."""
