"""Chain verification, recorded: who checked the log, when, and what it said.

`ledger.verify_chain` walks the hash chain and names the first altered,
missing or cut-off position (L8). Running it from the officers' admin or
the API also appends `compliance.chain_verified` on stream
`compliance/chain` (ok, events checked, the head position and hash it
reached, the first bad position and why), so "when was the log last
verified, and by whom" is answered by the log itself, and a later run can
show the chain still reaches the hash an earlier one saw. The ledger stays
domain-free: the recording lives here, in the casino.
"""

from __future__ import annotations

from casino import clock
from ledger import Metadata, NewEvent, append, verify_chain
from ledger.models import Event
from ledger.store import recorded_result

from .events import CHAIN_STREAM, CHAIN_VERIFIED
from .models import ChainVerification

SOURCE = "casino.compliance"


def verify_and_record(*, actor: str, idempotency_key: str | None = None
                      ) -> ChainVerification:
    """Verify the whole chain now and record the result as an event.

    A failed verification is recorded too (that is when it matters most);
    the append itself is refused by the ledger only if the head row no
    longer matches the log, which verify reports as its problem.
    """
    recorded = recorded_result(idempotency_key)
    if recorded is not None:
        return ChainVerification.objects.get(position=recorded[0].position)
    result = verify_chain()
    head_hash = ""
    if result.ok and result.head_position:
        head_hash = Event.objects.values_list("hash", flat=True).get(
            position=result.head_position)
    payload = {"ok": result.ok, "events": result.events,
               "head_position": result.head_position, "head_hash": head_hash,
               "bad_position": result.bad_position, "problem": result.problem}
    appended = append([NewEvent(stream=CHAIN_STREAM, type=CHAIN_VERIFIED, payload=payload,
                                occurred_at=clock.now())],
                      idempotency_key=idempotency_key,
                      request={"op": "verify_chain"},
                      metadata=Metadata(actor=actor, source=SOURCE))
    return ChainVerification.objects.get(position=appended.first_position)


def last_verification() -> ChainVerification | None:
    return ChainVerification.objects.order_by("-position").first()
