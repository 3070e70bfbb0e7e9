"""Sealing personal data: AES-256-GCM under the subject's own key.

`seal(subject, fields)` returns the JSON object an event payload carries
(`{"scheme": "aes-256-gcm/1", "nonce": ..., "ciphertext": ...}`, base64),
making the subject's key on first use; `open_sealed(subject, sealed)`
returns the fields, or ERASED once the key was destroyed. The subject id
is the associated data, so a sealed blob moved to another player's event
does not open.
"""

from __future__ import annotations

import base64
import json
import os
from typing import Any, Mapping

from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.db import connection

SCHEME = "aes-256-gcm/1"
ERASED = "erased"
SEALED_FIELD = "personal"
KEY_BYTES = 32
NONCE_BYTES = 12


def _key(subject: str, *, create: bool) -> bytes | None:
    with connection.cursor() as cursor:
        if create:
            cursor.execute("INSERT INTO privacy_personalkey (subject, key, created_at)"
                           " VALUES (%s, %s, now()) ON CONFLICT (subject) DO NOTHING",
                           [subject, AESGCM.generate_key(bit_length=KEY_BYTES * 8)])
        cursor.execute("SELECT key FROM privacy_personalkey WHERE subject = %s", [subject])
        row = cursor.fetchone()
    return bytes(row[0]) if row and row[0] is not None else None


def seal(subject: str, fields: Mapping[str, Any]) -> dict[str, str]:
    """Encrypt `fields` (JSON values) under the subject's key (made if missing)."""
    key = _key(subject, create=True)
    if key is None:
        raise ValueError(f"the personal data of {subject} were erased: nothing is sealed")
    nonce = os.urandom(NONCE_BYTES)
    plaintext = json.dumps(dict(fields), sort_keys=True, separators=(",", ":")).encode()
    ciphertext = AESGCM(key).encrypt(nonce, plaintext, subject.encode())
    return {"scheme": SCHEME, "nonce": base64.b64encode(nonce).decode(),
            "ciphertext": base64.b64encode(ciphertext).decode()}


def open_sealed(subject: str, sealed: Mapping[str, Any]) -> dict[str, Any] | str:
    """The sealed fields, or ERASED when the subject's key was destroyed."""
    if sealed.get("scheme") != SCHEME:
        raise ValueError(f"unknown sealing scheme {sealed.get('scheme')!r}")
    key = _key(subject, create=False)
    if key is None:
        return ERASED
    plaintext = AESGCM(key).decrypt(base64.b64decode(sealed["nonce"]),
                                    base64.b64decode(sealed["ciphertext"]), subject.encode())
    return json.loads(plaintext)


def is_sealed(payload: Any) -> bool:
    return (isinstance(payload, Mapping) and isinstance(payload.get(SEALED_FIELD), Mapping)
            and payload[SEALED_FIELD].get("scheme") == SCHEME)


def opened_payload(payload: Mapping[str, Any]) -> dict[str, Any]:
    """The payload with its sealed personal data opened in place, or marked erased.

    For readers entitled to personal data (officers, auditors): the fields
    come back under their own names; once erased, `personal` is "erased".
    """
    out = dict(payload)
    subject = str(payload.get("player_id", ""))
    opened = open_sealed(subject, payload[SEALED_FIELD])
    if opened == ERASED:
        out[SEALED_FIELD] = ERASED
    else:
        del out[SEALED_FIELD]
        out.update(opened)
    return out
