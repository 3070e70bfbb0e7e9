"""The rounds body of a batch report, read without DRF's per-field machinery.

A controller sends up to 1,000 rounds in one request; validating them with
nested serializers costs a third of the request (one field object run per
value). `parse_rounds` reads the same body by hand with the same rules
as `RoundsReportSerializer` (which stays the documented schema): no
unknown field, a round id of 1-80 letters, digits, '.', '_' or '-',
amounts as decimal strings with at most two decimals (casino.api.MONEY;
stakes positive, total, re-used part and win 0 or more), at most
ROUND_STAKES_MAX stakes a round, an ISO 8601 `played_at` with an offset.
A body that breaks one answers 400 `request.invalid` naming the rounds
and fields, as the serializer would.
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from rest_framework import serializers

from casino.api import MONEY
from casino.runner import set_client_time

from ..commands import BATCH_ROUNDS_MAX, ROUND_STAKES_MAX

ROUND_ID = re.compile(r"^[A-Za-z0-9._-]{1,80}$")
ROUND_FIELDS = frozenset({"round_id", "stakes", "total", "reused", "win", "player_id",
                          "played_at"})
STAKE_FIELDS = frozenset({"option", "unit", "amount"})
UNKNOWN = "unknown field: this endpoint does not take it"
TEXT_MAX = 40


def _minor(value: Any, *, zero: bool) -> int:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError('give the amount as a string with at most two decimals, e.g. "150.00"')
    text = str(value).strip()
    if not MONEY.match(text):
        raise ValueError('give the amount as a string with at most two decimals, e.g. "150.00"')
    try:
        minor = int(Decimal(text) * 100)
    except InvalidOperation:
        raise ValueError('give the amount as a string with at most two decimals') from None
    if minor < 0 or (minor == 0 and not zero):
        raise ValueError("the amount must be greater than zero")
    return minor


def _text(value: Any, name: str, *, null: bool = True) -> str | None:
    if value is None and null:
        return None
    if not isinstance(value, str) or len(value) > TEXT_MAX:
        raise ValueError(f"{name}: a string of at most {TEXT_MAX} characters")
    return value


def _stake(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ValueError("a stake is an object")
    unknown = set(data) - STAKE_FIELDS
    if unknown:
        raise ValueError(f"{sorted(unknown)[0]}: {UNKNOWN}")
    if "amount" not in data:
        raise ValueError("amount: this field is required")
    return {"option": _text(data.get("option", ""), "option", null=False),
            "unit": _text(data.get("unit"), "unit"),
            "amount_minor": _minor(data["amount"], zero=False)}


def _round(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ValueError("a round is an object")
    unknown = set(data) - ROUND_FIELDS
    if unknown:
        raise ValueError(f"{sorted(unknown)[0]}: {UNKNOWN}")
    round_id = data.get("round_id")
    if not isinstance(round_id, str) or not ROUND_ID.match(round_id):
        raise ValueError("round_id: 1-80 letters, digits, '.', '_' or '-'")
    if "total" not in data:
        raise ValueError("total: this field is required")
    stakes = data.get("stakes", [])
    if not isinstance(stakes, list) or len(stakes) > ROUND_STAKES_MAX:
        raise ValueError(f"stakes: a list of at most {ROUND_STAKES_MAX} stakes")
    played_at = data.get("played_at")
    if played_at is not None:
        try:
            played_at = dt.datetime.fromisoformat(played_at)
        except (TypeError, ValueError):
            raise ValueError("played_at: an ISO 8601 date and time") from None
        if played_at.tzinfo is None:
            raise ValueError("played_at: give the offset")
    return {"round_id": round_id, "stakes": [_stake(s) for s in stakes],
            "total_minor": _minor(data["total"], zero=True),
            "reused_minor": _minor(data.get("reused", "0.00"), zero=True),
            "win_minor": _minor(data.get("win", "0.00"), zero=True),
            "player_id": _text(data.get("player_id"), "player_id"),
            "played_at": played_at}


def parse_rounds(body: Any) -> list[dict[str, Any]]:
    """Return the batch's rounds in the commands' terms, or raise a 400 ValidationError."""
    if not isinstance(body, dict):
        raise serializers.ValidationError({"non_field_errors": ["a JSON object"]})
    unknown = set(body) - {"rounds", "occurred_at"}
    if unknown:
        raise serializers.ValidationError({sorted(unknown)[0]: [UNKNOWN]})
    if body.get("occurred_at") is not None:
        # Business time, as casino.api.StrictSerializer reads it.
        try:
            occurred_at = dt.datetime.fromisoformat(body["occurred_at"])
        except (TypeError, ValueError):
            raise serializers.ValidationError(
                {"occurred_at": ["an ISO 8601 date and time with an offset"]}) from None
        if occurred_at.tzinfo is None:
            raise serializers.ValidationError({"occurred_at": ["give the offset"]})
        set_client_time(occurred_at)
    rounds = body.get("rounds")
    if not isinstance(rounds, list) or not 1 <= len(rounds) <= BATCH_ROUNDS_MAX:
        raise serializers.ValidationError(
            {"rounds": [f"a list of 1 to {BATCH_ROUNDS_MAX} rounds"]})
    parsed, errors = [], {}
    for index, data in enumerate(rounds):
        try:
            parsed.append(_round(data))
        except ValueError as error:
            errors[index] = [str(error)]
    if errors:
        raise serializers.ValidationError({"rounds": errors})
    return parsed
