"""Verification of the log against its own hash chain and invariants.

Walks every event in position order and checks, for each one: the position
is the next integer (no gap, nothing deleted), prev_hash is the previous
event's hash, the stored hash equals the recomputed one (nothing edited), and
the postings sum to zero per currency. Finally the head row must point at the
last event (nothing cut off the end). The first failure is reported with its
position; later positions are not trusted once one link is broken.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Callable

from .canonical import GENESIS_HASH, dumps, event_hash, timestamp_text
from .store import head, iter_event_chunks


@dataclass(frozen=True, slots=True)
class VerifyResult:
    ok: bool
    events: int
    head_position: int
    bad_position: int | None = None
    problem: str = ""

    def __str__(self) -> str:
        if self.ok:
            return f"verify_ledger: OK ({self.events} events)"
        return f"verify_ledger: FAILED at position {self.bad_position}: {self.problem}"


def verify_chain(progress: Callable[[int], None] | None = None) -> VerifyResult:
    """Recompute the hash chain over the whole log; report the first break."""
    expected_position = 1
    prev_hash = GENESIS_HASH
    count = 0
    for chunk in iter_event_chunks():
        for event in chunk:
            position = event.position
            if position != expected_position:
                return VerifyResult(False, count, position, expected_position,
                                    f"position {expected_position} is missing (next is {position})")
            if event.prev_hash != prev_hash:
                return VerifyResult(False, count, position, position,
                                    "prev_hash does not match the previous event's hash")
            recomputed = event_hash(
                prev_hash=prev_hash, position=position, stream=event.stream,
                version=event.version, type=event.type, schema_version=event.schema_version,
                payload_json=dumps(event.payload), metadata_json=dumps(event.metadata),
                idempotency_key=event.idempotency_key,
                occurred_at_text=timestamp_text(event.occurred_at),
                recorded_at_text=timestamp_text(event.recorded_at), gaming_day=event.gaming_day,
                postings=[(p.account, p.amount_minor, p.currency) for p in event.postings],
            )
            if recomputed != event.hash:
                return VerifyResult(False, count, position, position,
                                    "content does not match its hash (the event was altered)")
            totals: dict[str, int] = defaultdict(int)
            for posting in event.postings:
                totals[posting.currency] += posting.amount_minor
            if any(totals.values()):
                return VerifyResult(False, count, position, position,
                                    "postings do not sum to zero per currency")
            prev_hash = event.hash
            expected_position += 1
            count += 1
        if progress is not None:
            progress(len(chunk))
    head_position, head_hash = head()
    if head_position != count or head_hash != prev_hash:
        return VerifyResult(False, count, head_position, count + 1,
                            f"the head says position {head_position} but the log ends at {count}")
    return VerifyResult(True, count, head_position)
