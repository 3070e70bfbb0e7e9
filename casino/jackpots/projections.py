"""Projection of jackpot events into JackpotPool, JackpotRollup, JackpotHit.

The same `apply` runs inline in the append and on `rebuild_projections`.
"""

from __future__ import annotations

import datetime as dt
from typing import Sequence

from django.db.models import F

from ledger import RecordedEvent

from .events import POOL_EVENT_TYPES
from .models import (
    OPEN_HIT_STATES,
    HitState,
    HitTrigger,
    JackpotHit,
    JackpotPool,
    JackpotRollup,
    JackpotTerms,
    PoolStatus,
)


class JackpotProjection:
    name = "jackpots.pools"
    event_types = POOL_EVENT_TYPES

    def reset(self) -> None:
        JackpotHit.objects.all().delete()
        JackpotTerms.objects.all().delete()
        JackpotRollup.objects.all().delete()
        JackpotPool.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            handler = getattr(self, "_" + event.type.split(".", 1)[1])
            handler(event, event.payload)

    def _pool_opened(self, event: RecordedEvent, p) -> None:
        JackpotPool.objects.create(
            key=f"{p['venue']}/{p['kind']}", venue=p["venue"], kind=p["kind"],
            currency=p["currency"], rulebook_id=p["rulebook"]["id"],
            rulebook_version=p["rulebook"]["version"],
            first_day=dt.date.fromisoformat(p["first_day"]),
            pending_account=p["pending_account"], pool_account=p["pool_account"],
            funding_account=p["funding_account"],
            base_guarantee_minor=p["base_guarantee_minor"], players_min=p["players_min"],
            hits_enabled=p["hits_enabled"], opened_position=event.position,
            last_position=event.position)

    def _contributions_rolled_up(self, event: RecordedEvent, p) -> None:
        key = f"{p['venue']}/{p['kind']}"
        day = dt.date.fromisoformat(p["gaming_day"])
        JackpotRollup.objects.create(pool_id=key, gaming_day=day,
                                     contributions=p["contributions"],
                                     amount_minor=p["amount_minor"], position=event.position)
        JackpotPool.objects.filter(key=key).update(
            last_rolled_day=day, rollups=F("rollups") + 1,
            contributions=F("contributions") + p["contributions"],
            rolled_up_minor=F("rolled_up_minor") + p["amount_minor"],
            last_position=event.position)

    def _hit_recorded(self, event: RecordedEvent, p) -> None:
        key = f"{p['venue']}/{p['kind']}"
        JackpotHit.objects.create(
            id=p["hit_id"], pool_id=key, state=HitState.HIT, category=p["category"],
            threshold=p["threshold"], table_id=p["table_id"], hand_id=p["hand_id"],
            hand_started_at=dt.datetime.fromisoformat(p["hand_started_at"]),
            variant=p["variant"], players=p["players"], roles=p["roles"], hands=p["hands"],
            trigger=p.get("trigger", HitTrigger.BAD_BEAT), bet_id=p.get("bet_id", ""),
            row=p.get("row", ""), pool_basis_points=p.get("pool_basis_points"),
            pays=p.get("pays"), stake_minor=p.get("stake_minor"),
            recorded_position=event.position, last_position=event.position)
        JackpotPool.objects.filter(key=key).update(
            status=PoolStatus.HIT, hits=F("hits") + 1, last_position=event.position)

    def _hit_approved(self, event: RecordedEvent, p) -> None:
        JackpotHit.objects.filter(id=p["hit_id"]).update(
            state=HitState.APPROVED, approved_by=p["approved_by"],
            balance_minor=p["balance_minor"], amount_minor=p["amount_minor"],
            remainder_minor=p["remainder_minor"], shares=p["shares"],
            last_position=event.position)
        self._touch(event)

    def _hit_rejected(self, event: RecordedEvent, p) -> None:
        JackpotHit.objects.filter(id=p["hit_id"]).update(
            state=HitState.REJECTED, rejected_by=p["rejected_by"], reason=p["reason"],
            last_position=event.position)
        self._touch(event)

    def _hit_paid(self, event: RecordedEvent, p) -> None:
        JackpotHit.objects.filter(id=p["hit_id"]).update(
            state=HitState.PAID, paid_by=p["paid_by"], last_position=event.position)
        self._touch(event, paid_minor=F("paid_minor") + p["amount_minor"])

    def _base_topped_up(self, event: RecordedEvent, p) -> None:
        # A hit can be funded twice: a fixed prize's shortfall, then the base.
        JackpotHit.objects.filter(id=p["hit_id"]).update(
            top_up_minor=F("top_up_minor") + p["amount_minor"], last_position=event.position)
        self._touch(event, topped_up_minor=F("topped_up_minor") + p["amount_minor"])

    def _terms_posted(self, event: RecordedEvent, p) -> None:
        # Posted terms make the pool payable: hits are detected from now on,
        # and its base is the posted one.
        key = f"{p['venue']}/{p['kind']}"
        JackpotTerms.objects.create(
            position=event.position, pool_id=key, posted_by=p["posted_by"],
            posted_at=event.occurred_at, effective_day=dt.date.fromisoformat(p["effective_day"]),
            notice=p["notice"], base_guarantee_minor=p["base_guarantee_minor"],
            criteria=p["criteria"], shares=p["shares"], rulebook_id=p["rulebook"]["id"],
            rulebook_version=p["rulebook"]["version"])
        JackpotPool.objects.filter(key=key).update(
            hits_enabled=True, base_guarantee_minor=p["base_guarantee_minor"],
            last_position=event.position)

    def _touch(self, event: RecordedEvent, **changes) -> None:
        """Move the pool's position on; it is awaiting approval while a hit is open."""
        key = event.stream.split("/", 1)[1]
        open_hits = JackpotHit.objects.filter(pool_id=key, state__in=OPEN_HIT_STATES).exists()
        JackpotPool.objects.filter(key=key).update(
            status=PoolStatus.HIT if open_hits else PoolStatus.ACCUMULATING,
            last_position=event.position, **changes)
