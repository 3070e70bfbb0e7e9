"""Signals the games send to other apps.

`progressive_hit` is sent after the append that settled a round has
committed, once per progressive bet that won (THB and UTH progressives,
decision games.progressive.paid_from_pool), and again when the settling
request is replayed: receivers must key on `bet_id`. Arguments: `round_id`,
`bet_id`, `player_id`, `venue`, `position` (of the player's
`games.player_settled` event) and `hit` {row, cite, kind, pool_basis_points
| pays, stake_minor}: the pool of kind `kind` at `venue` owes the player
`pool_basis_points` of its balance, or `pays` times `stake_minor`.
"""

from django.dispatch import Signal

progressive_hit = Signal()
