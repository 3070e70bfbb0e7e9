"""Chain verification, recorded: who checked the log, when, and what it said.

`ledger.verify_chain` walks the hash chain and names the first altered,
missing or cut-off position (L8). Running it from the officers' admin or
the API also appends `compliance.chain_verified` on stream
`compliance/chain` (ok, events checked, the main book's head position and
hash it reached, every book's head as `heads` {key: {position, hash}}, each
book walked where it is placed (issue 19), the first bad position and
why), so "when was the log last verified, and by whom" is answered by the
log itself, and a later run can show the chain still reaches the hash an
earlier one saw. The ledger stays
domain-free: the recording lives here, in the casino.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping, Sequence

from django.db import DEFAULT_DB_ALIAS, connection

from casino.clock import operator_day
from casino.runner import BaseCommand, Call, Decision, run
from ledger import NewEvent, RecordedEvent, verify_chain
from ledger.read import Event, placed_heads

from .events import CHAIN_STREAM, CHAIN_VERIFIED
from .models import ChainVerification

SOURCE = "casino.compliance"


class VerifyChain(BaseCommand[dict, ChainVerification]):
    """Walk the chain (the load), record what it found (the decision)."""

    name = "compliance.verify_chain"
    source = SOURCE

    def load(self, arguments: Mapping[str, Any], call: Call) -> dict:
        result, heads = verify_every_book()
        head_hash = ""
        if result.ok and result.head_position:
            head_hash = Event.objects.values_list("hash", flat=True).get(
                position=result.head_position)
        return {"at": call.moment(),
                "payload": {"ok": result.ok, "events": result.events,
                            "head_position": result.head_position, "head_hash": head_hash,
                            "heads": heads, "bad_position": result.bad_position,
                            "problem": result.problem}}

    def decide(self, context: dict) -> Decision:
        # No stream version to expect: each run is its own record.
        return Decision([NewEvent(stream=CHAIN_STREAM, type=CHAIN_VERIFIED,
                                  payload=context["payload"], occurred_at=context["at"],
                                  gaming_day=operator_day(context["at"]))])

    def answer(self, events: Sequence[RecordedEvent], *, replayed: bool) -> ChainVerification:
        return ChainVerification.objects.get(position=events[0].position)


VERIFY_CHAIN = VerifyChain()


def verify_every_book() -> tuple[Any, dict[str, dict[str, Any]]]:
    """Walk every book's chain where it is placed; the result (a ledger VerifyResult)
    and each book's head.

    `ledger.verify_chain()` walks the books of the directory database (each
    in the database the directory places it, from its archive after a
    detach); a book opened on another database (issue 19, ledger.placement)
    is walked there too. The heads ({book key: {position, hash}}) are read
    before the walk, so each is within what the walk verified when it is
    ok. The result's `head_position` stays the main book's; `events` counts
    every walk's events. The first failing walk's result is returned.
    """
    heads = placed_heads()
    result = verify_chain()
    if result.ok:
        with connection.cursor() as cursor:
            cursor.execute("SELECT id FROM ledger_head")
            walked = {row[0] for row in cursor.fetchall()}
        for book, _key, _position, _hash, database in heads:
            if book in walked or database == DEFAULT_DB_ALIAS:
                continue
            found = verify_chain(book=book, using=database)
            if not found.ok:
                result = replace(found, events=result.events + found.events)
                break
            result = replace(result, events=result.events + found.events)
    return result, {key: {"position": position, "hash": hash_}
                    for _book, key, position, hash_, _database in heads}


def verify_and_record(*, actor: str, idempotency_key: str | None = None
                      ) -> ChainVerification:
    """Verify the whole chain now and record the result as an event.

    A failed verification is recorded too (that is when it matters most);
    the append itself is refused by the ledger only if the head row no
    longer matches the log, which verify reports as its problem.
    """
    return run(VERIFY_CHAIN, {}, Call(actor=actor, key=idempotency_key, source=SOURCE))


def last_verification() -> ChainVerification | None:
    return ChainVerification.objects.order_by("-position").first()
