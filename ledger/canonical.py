"""Canonical encoding and the hash chain.

`hash = sha256(prev_hash || canonical_json(event))`, hex-encoded, over the
global order of positions; the first event's prev_hash is 64 zeros. The
canonical form is JSON with sorted keys, no whitespace and UTF-8 text, over
every stored column except the hashes themselves, postings included
(`canonical_event` below is the definition). Every value in it round-trips
exactly through PostgreSQL (integers, strings, microsecond UTC timestamps),
so `verify_ledger` recomputes the same bytes from what it reads back.

`event_hash` builds the same bytes from pieces instead of one dict: the
writer dumps each payload once and stores that very text, so the hot path
does not encode it twice. tests/ledger/test_canonical.py proves the two agree.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from typing import Any, Iterable, Mapping

GENESIS_HASH = "0" * 64

dumps = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
).encode


def canonical_json(value: Any) -> bytes:
    return dumps(value).encode("utf-8")


def timestamp_text(value: dt.datetime) -> str:
    return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def canonical_event(
    *,
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
) -> bytes:
    """Return the canonical bytes of an event: the definition of the format."""
    return canonical_json(
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


def event_hash(
    *,
    prev_hash: str,
    position: int,
    stream: str,
    version: int,
    type: str,
    schema_version: int,
    payload_json: str,
    metadata_json: str,
    idempotency_key: str | None,
    occurred_at_text: str,
    recorded_at_text: str,
    gaming_day: dt.date,
    postings: Iterable[tuple[str, int, str]],
) -> str:
    """Return the chain hash of an event from pre-encoded parts.

    `payload_json` and `metadata_json` must come from `dumps`; the timestamps
    from `timestamp_text`. Keys are written in sorted order, as in
    `canonical_event`.
    """
    body = "".join((
        '{"gaming_day":"', gaming_day.isoformat(),
        '","idempotency_key":', dumps(idempotency_key),
        ',"metadata":', metadata_json,
        ',"occurred_at":"', occurred_at_text,
        '","payload":', payload_json,
        ',"position":', str(position),
        ',"postings":', dumps([list(posting) for posting in postings]),
        ',"recorded_at":"', recorded_at_text,
        '","schema_version":', str(schema_version),
        ',"stream":', dumps(stream),
        ',"type":', dumps(type),
        ',"version":', str(version),
        "}",
    ))
    return hashlib.sha256(prev_hash.encode("ascii") + body.encode("utf-8")).hexdigest()


def request_fingerprint(value: Any) -> str:
    """Return a digest identifying a request, for idempotency comparisons."""
    return hashlib.sha256(canonical_json(value)).hexdigest()
