"""The tournament rules as pure Python: no Django, no database.

money         prices (prize, fee, bounty parts) and exact cent allocation
payouts       payout structures by paid field, re-entries included
places        same-hand eliminations, ties, disqualification and exclusion
icm           Malmuth-Harville ICM, exact, rounded by the stated rule
tournament    the state machine: entries, rebuys, add-ons, bounties, deals,
              finish, cancellation; returns the money it moves as transfers
cancellation  interruption payouts (001:L417-444) and their terms
hexapro       the random prize pool game (001:L454-499)
"""

from .cancellation import CancellationTerms
from .errors import EngineError
from .icm import icm_equities, icm_split
from .money import Price, allocate, by_basis_points, split_equally
from .payouts import Bracket, PayoutStructure, paid_field
from .places import EliminationRules, Out, rank_group, standings
from .tournament import Config, Payout, Phase, Tournament, Transfer

__all__ = [
    "Bracket", "CancellationTerms", "Config", "EliminationRules", "EngineError", "Out", "Payout",
    "PayoutStructure", "Phase", "Price", "Tournament", "Transfer", "allocate",
    "by_basis_points", "icm_equities", "icm_split", "paid_field", "rank_group",
    "split_equally", "standings",
]
