"""Compliance: the check pipeline every stake and transfer goes through,
alerts, wagering activity, and two-person manual corrections.

The checks (checks.py) are pure functions of a frozen context, listed once
in precedence order; the first failure wins. A refused attempt is recorded as
its own event before the error surfaces, so rejections are part of the
record. This package imports rules and players, never the game apps.
"""
