"""Projection of player events into Player and PlayerLimit."""

from __future__ import annotations

import datetime as dt
from typing import Sequence

from casino.privacy.crypto import ERASED, SEALED_FIELD, is_sealed, open_sealed
from casino.privacy.events import PERSONAL_DATA_ERASED
from ledger import RecordedEvent

from .events import IDENTITY_VERIFIED, LIMIT_SET, PLAYER_REGISTERED, SELF_EXCLUDED
from .models import Player, PlayerLimit, VerificationStatus


# What an erased player's row keeps (decision, issue 18 item 8): the word
# "erased" for the names, no nationality, document or identity digest (the
# digest is made unique per player), and a birth date no person has, the
# first day of year 1; the identity is no longer verified, so the
# compliance pipeline refuses every stake and transfer of the player.
ERASED_BIRTH_DATE = "0001-01-01"


def erased_fields(player_id: str) -> dict:
    return {"given_name": ERASED, "family_name": ERASED, "date_of_birth": ERASED_BIRTH_DATE,
            "nationality": "", "identity_key": f"erased:{player_id}", "document_hint": ""}


class PlayerProjection:
    name = "players.players"
    event_types = frozenset({PLAYER_REGISTERED, IDENTITY_VERIFIED, SELF_EXCLUDED, LIMIT_SET,
                             PERSONAL_DATA_ERASED})

    def reset(self) -> None:
        PlayerLimit.objects.all().delete()
        Player.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            getattr(self, "_" + event.type.split(".", 1)[1])(event)

    def _player_registered(self, event: RecordedEvent) -> None:
        p = event.payload
        if is_sealed(p):        # schema 2: open with the player's key (issue 18 item 8)
            opened = open_sealed(p["player_id"], p[SEALED_FIELD])
            p = {"player_id": p["player_id"], **(erased_fields(p["player_id"])
                                                 if opened == ERASED else opened)}
        Player.objects.create(
            id=p["player_id"], given_name=p["given_name"], family_name=p["family_name"],
            date_of_birth=dt.date.fromisoformat(p["date_of_birth"]),
            nationality=p["nationality"], identity_key=p["identity_key"],
            document_hint=p["document_hint"], registered_position=event.position,
            last_position=event.position,
        )

    def _personal_data_erased(self, event: RecordedEvent) -> None:
        """The key is destroyed (casino.privacy): keep "erased", and no verified identity."""
        player_id = event.payload["player_id"]
        fields = erased_fields(player_id)
        fields["date_of_birth"] = dt.date.fromisoformat(fields["date_of_birth"])
        Player.objects.filter(id=player_id).update(
            **fields, verification_status=VerificationStatus.UNVERIFIED,
            verification_method="", verified_at=None, last_position=event.position)

    def _identity_verified(self, event: RecordedEvent) -> None:
        Player.objects.filter(id=event.payload["player_id"]).update(
            verification_status=VerificationStatus.VERIFIED,
            verification_method=event.payload["method"],
            verified_at=event.occurred_at, last_position=event.position,
        )

    def _self_excluded(self, event: RecordedEvent) -> None:
        Player.objects.filter(id=event.payload["player_id"]).update(
            self_excluded_from=dt.datetime.fromisoformat(event.payload["from"]),
            self_excluded_until=dt.datetime.fromisoformat(event.payload["until"]),
            last_position=event.position,
        )

    def _limit_set(self, event: RecordedEvent) -> None:
        p = event.payload
        effective_at = dt.datetime.fromisoformat(p["effective_at"])
        limit = PlayerLimit.objects.filter(player_id=p["player_id"], kind=p["kind"]).first()
        if limit is None:
            limit = PlayerLimit(key=f"{p['player_id']}/{p['kind']}", player_id=p["player_id"],
                                kind=p["kind"], value=p["value"])
        elif limit.pending_effective_at is not None and limit.pending_effective_at <= event.occurred_at:
            limit.value = limit.pending_value  # the earlier raise took effect first
        if effective_at <= event.occurred_at:
            limit.value, limit.pending_value, limit.pending_effective_at = p["value"], None, None
        else:
            limit.pending_value, limit.pending_effective_at = p["value"], effective_at
        limit.cite = p["cite"]
        limit.last_position = event.position
        limit.save()
        Player.objects.filter(id=p["player_id"]).update(last_position=event.position)
