"""Erasures as a projection; the approval's event destroys the key in its transaction.

`privacy_erasure` is rebuilt from the events like any projection. The
keys table is not this projection's (`tables` names only the erasures), so
a rebuild never resets a key; replaying an erasure sets a destroyed key's
row to NULL again, which changes nothing.
"""

from __future__ import annotations

from typing import Sequence

from django.db import connection

from ledger import RecordedEvent

from .events import ERASURE_PROPOSED, PERSONAL_DATA_ERASED
from .models import Erasure


class ErasureProjection:
    name = "privacy.erasures"
    event_types = frozenset({ERASURE_PROPOSED, PERSONAL_DATA_ERASED})
    tables = ("privacy_erasure",)

    def reset(self) -> None:
        Erasure.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            p = event.payload
            if event.type == ERASURE_PROPOSED:
                Erasure.objects.update_or_create(
                    player_id=p["player_id"],
                    defaults={"state": Erasure.State.PROPOSED, "reason": p["reason"],
                              "proposed_by": p["proposed_by"],
                              "proposed_position": event.position,
                              "last_position": event.position})
            else:
                Erasure.objects.filter(player_id=p["player_id"]).update(
                    state=Erasure.State.ERASED, approved_by=p["approved_by"],
                    erased_position=event.position, last_position=event.position)
                destroy_key(p["player_id"], event.position)


def destroy_key(subject: str, position: int) -> None:
    """Destroy the subject's key: its sealed data can never be opened again."""
    with connection.cursor() as cursor:
        cursor.execute("UPDATE privacy_personalkey SET key = NULL,"
                       " destroyed_at = COALESCE(destroyed_at, now()),"
                       " destroyed_position = COALESCE(destroyed_position, %s)"
                       " WHERE subject = %s", [position, subject])
