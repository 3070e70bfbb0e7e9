"""Projection of player events into Player and PlayerLimit."""

from __future__ import annotations

import datetime as dt
from typing import Sequence

from ledger import RecordedEvent

from .events import IDENTITY_VERIFIED, LIMIT_SET, PLAYER_REGISTERED, SELF_EXCLUDED
from .models import Player, PlayerLimit, VerificationStatus


class PlayerProjection:
    name = "players.players"
    event_types = frozenset({PLAYER_REGISTERED, IDENTITY_VERIFIED, SELF_EXCLUDED, LIMIT_SET})

    def reset(self) -> None:
        PlayerLimit.objects.all().delete()
        Player.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            getattr(self, "_" + event.type.split(".", 1)[1])(event)

    def _player_registered(self, event: RecordedEvent) -> None:
        p = event.payload
        Player.objects.create(
            id=p["player_id"], given_name=p["given_name"], family_name=p["family_name"],
            date_of_birth=dt.date.fromisoformat(p["date_of_birth"]),
            nationality=p["nationality"], identity_key=p["identity_key"],
            document_hint=p["document_hint"], registered_position=event.position,
            last_position=event.position,
        )

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
