"""Webhook signatures: HMAC-SHA256 over `<timestamp>.<body>`, one per active secret.

Headers of every delivery:

  Casino-Webhook-Id          the delivery's id (the same on every attempt)
  Casino-Event-Position      the event's ledger position: a receiver that has
                             seen it already drops the repeat (at-least-once)
  Casino-Webhook-Timestamp   Unix seconds when this attempt was signed
  Casino-Webhook-Signature   `v1=<hex>` for each active secret, newest first,
                             separated by spaces (two during a rotation)

A receiver recomputes HMAC-SHA256(secret, f"{timestamp}.{body}") with the
secret it holds, accepts when any `v1=` value matches (constant-time) and
the timestamp is within its tolerance (replays of an old capture fail).
The scheme is Stripe's and Standard Webhooks' (a versioned, timestamped
HMAC with several signatures during a rotation); `verify` is what a
Python receiver runs.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from typing import Iterable, Mapping

SIGNATURE_HEADER = "Casino-Webhook-Signature"
TIMESTAMP_HEADER = "Casino-Webhook-Timestamp"
POSITION_HEADER = "Casino-Event-Position"
ID_HEADER = "Casino-Webhook-Id"
SCHEME = "v1"
SECRET_PREFIX = "whsec_"
# Decision (not in the seeds): a receiver accepts a signature at most five
# minutes old, Stripe's default tolerance.
TOLERANCE_SECONDS = 300


def new_secret() -> str:
    """Return a fresh signing secret (256 random bits, URL-safe)."""
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def signature(secret: str, timestamp: int, body: bytes) -> str:
    message = str(timestamp).encode() + b"." + body
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def signature_header(secrets_: Iterable[str], timestamp: int, body: bytes) -> str:
    """The signature header's value: `v1=<hex>` per secret, space-separated."""
    return " ".join(f"{SCHEME}={signature(secret, timestamp, body)}" for secret in secrets_)


def verify(body: bytes, headers: Mapping[str, str], secret: str, *,
           tolerance_seconds: int = TOLERANCE_SECONDS, now: float | None = None) -> bool:
    """Whether a delivery was signed with `secret` recently enough."""
    lowered = {name.lower(): value for name, value in headers.items()}
    try:
        timestamp = int(lowered[TIMESTAMP_HEADER.lower()])
    except (KeyError, ValueError):
        return False
    moment = time.time() if now is None else now
    if abs(moment - timestamp) > tolerance_seconds:
        return False
    expected = signature(secret, timestamp, body)
    for part in lowered.get(SIGNATURE_HEADER.lower(), "").split():
        scheme, _, value = part.partition("=")
        if scheme == SCHEME and hmac.compare_digest(value, expected):
            return True
    return False
