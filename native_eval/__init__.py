"""Poker hand evaluation and showdown resolution for casino-ledger.

The implementation is the Rust extension ``native_eval._native`` (see ``src/``);
this package only re-exports its public names. ``_native.pyi`` documents the API.
"""

from ._native import (
    VARIANTS,
    Hand,
    PotResult,
    Showdown,
    __version__,
    best_hand,
    build_profile,
    card_codes,
    card_names,
    category,
    evaluate,
    evaluate_batch,
    evaluate_front,
    showdown,
)

__all__ = [
    "VARIANTS",
    "Hand",
    "PotResult",
    "Showdown",
    "__version__",
    "best_hand",
    "build_profile",
    "card_codes",
    "card_names",
    "category",
    "evaluate",
    "evaluate_batch",
    "evaluate_front",
    "showdown",
]
