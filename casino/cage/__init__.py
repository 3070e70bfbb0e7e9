"""Cage: cash desk and gaming accounts (to be built: deposits, withdrawals, chips)."""
