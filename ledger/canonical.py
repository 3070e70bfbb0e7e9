"""Canonical encoding and the hash chain.

`hash = sha256(prev_hash || canonical_json(event))`, hex-encoded, over the
global order of positions; the first event's prev_hash is 64 zeros. The
canonical form is JSON with sorted keys, no whitespace and UTF-8 text, over
every stored column except the hashes themselves, postings included. Every
value in it round-trips exactly through PostgreSQL (integers, strings,
microsecond UTC timestamps), so `verify_ledger` recomputes the same bytes from
what it reads back.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from typing import Any, Iterable, Mapping

GENESIS_HASH = "0" * 64

_dumps = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
).encode


def canonical_json(value: Any) -> bytes:
    return _dumps(value).encode("utf-8")


def timestamp_text(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def event_hash(
    *,
    prev_hash: str,
    position: int,
    stream: str,
    version: int,
    type: str,
    schema_version: int,
    payload: Mapping[str, Any],
    metadata: Mapping[str, Any],
    idempotency_key: str | None,
    occurred_at: dt.datetime,
    recorded_at: dt.datetime,
    gaming_day: dt.date,
    postings: Iterable[tuple[str, int, str]],
) -> str:
    """Return the chain hash of one event given its predecessor's hash."""
    body = canonical_json(
        {
            "position": position,
            "stream": stream,
            "version": version,
            "type": type,
            "schema_version": schema_version,
            "payload": payload,
            "metadata": metadata,
            "idempotency_key": idempotency_key,
            "occurred_at": timestamp_text(occurred_at),
            "recorded_at": timestamp_text(recorded_at),
            "gaming_day": gaming_day.isoformat(),
            "postings": [list(posting) for posting in postings],
        }
    )
    return hashlib.sha256(prev_hash.encode("ascii") + body).hexdigest()


def request_fingerprint(value: Any) -> str:
    """Return a digest identifying a request, for idempotency comparisons."""
    return hashlib.sha256(canonical_json(value)).hexdigest()
