"""Poker hand evaluation for casino-ledger, implemented in Rust (see src/)."""

from ._native import __version__, build_profile

__all__ = ["__version__", "build_profile"]
