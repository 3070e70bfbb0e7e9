"""The poker betting engine: pure functions and frozen values, no I/O.

`betting` runs one hand's betting as a state machine; `pots` builds the main
and side pots from the contributions and returns the uncalled bet; `rake`
takes rake and jackpot drops by the rulebooks' rules; `structures` holds the
betting structures, stakes and each variant's streets. Nothing here imports
Django, the ledger or another casino app: the poker app's commands load a
table's rulebook and configuration, call these functions, and append what
they return as events.

A hand, end to end::

    state = start_hand("holdem", "no_limit", Stakes(small_blind_minor=50,
                       big_blind_minor=100), {1: 10_000, 2: 10_000, 3: 10_000},
                       button=1)
    state = apply(state, Action.raise_to(1, 300))      # ... until state.is_over
    settlement = settle_hand(state)      # uncalled bet, pots; dead money apart
    rake = rake_for(rule, settlement.pots, reached_flop=state.reached_flop,
                    players_dealt=len(state.players))
    drop = drop_for(drop_rule, settlement.pots, players_dealt=...,
                    betting_rounds_reached=state.betting_rounds_reached, rake=rake)
    pots = net_pots(settlement.pots, rake.per_pot_minor, drop.per_pot_minor)
    # native_eval.showdown(variant, board, hands, pots, button), or
    # award_without_showdown(pots, state.winner_without_showdown)
"""

from .betting import (
    Action,
    ActionKind,
    HandState,
    DEAD_POSTS,
    MUCK,
    Interpretation,
    LegalActions,
    MissedBlind,
    Phase,
    PlayerState,
    PostKind,
    Record,
    apply,
    bar_bet_and_raise,
    interpret_chips,
    interpret_raise,
    legal_actions,
    muck,
    open_street,
    round_to_big_blind,
    start_hand,
)
from .errors import BettingErrorCode, IllegalAction, InvariantViolation
from .pots import (
    Pot,
    Settlement,
    award_uncontested,
    award_without_showdown,
    claimants,
    net_pots,
    settle,
    settle_hand,
)
from .rake import (
    BlockRake,
    DropResult,
    DropRule,
    PercentRake,
    RakeResult,
    RakeRule,
    Rounding,
    TimeCharge,
    TimeChargeBasis,
    TimeChargeResult,
    drop_for,
    online_rake,
    rake_for,
    ray_bad_beat_drop,
    ray_house_fee,
    ray_online_rake,
    ray_time_charge,
    tallinn_jackpot_drop,
    tallinn_rake,
    tallinn_time_rake,
    time_charge_for,
    veikkaus_bad_beat_drop,
    veikkaus_room_rake,
    veikkaus_room_time_charge,
)
from .structures import (
    VARIANTS,
    BettingStructure,
    Family,
    Stakes,
    Street,
    family_of,
    streets_for,
)

__all__ = [
    "DEAD_POSTS",
    "MUCK",
    "VARIANTS",
    "Action",
    "ActionKind",
    "BettingErrorCode",
    "BettingStructure",
    "BlockRake",
    "DropResult",
    "DropRule",
    "Family",
    "HandState",
    "IllegalAction",
    "Interpretation",
    "InvariantViolation",
    "LegalActions",
    "MissedBlind",
    "PercentRake",
    "Phase",
    "PlayerState",
    "Pot",
    "PostKind",
    "RakeResult",
    "RakeRule",
    "Record",
    "Rounding",
    "Settlement",
    "Stakes",
    "Street",
    "TimeCharge",
    "TimeChargeBasis",
    "TimeChargeResult",
    "apply",
    "award_uncontested",
    "award_without_showdown",
    "bar_bet_and_raise",
    "claimants",
    "drop_for",
    "family_of",
    "interpret_chips",
    "interpret_raise",
    "legal_actions",
    "muck",
    "net_pots",
    "online_rake",
    "open_street",
    "rake_for",
    "round_to_big_blind",
    "ray_bad_beat_drop",
    "ray_house_fee",
    "ray_online_rake",
    "ray_time_charge",
    "settle",
    "settle_hand",
    "start_hand",
    "streets_for",
    "tallinn_jackpot_drop",
    "tallinn_rake",
    "tallinn_time_rake",
    "time_charge_for",
    "veikkaus_bad_beat_drop",
    "veikkaus_room_rake",
    "veikkaus_room_time_charge",
]
