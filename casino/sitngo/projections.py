"""Projection of the sit'n'go jackpot events; the same code runs on rebuild."""

from __future__ import annotations

from typing import Sequence

from django.db.models import F

from ledger import RecordedEvent

from .events import PROJECTED_TYPES, SERIES_POSTED, TOURNAMENT_RECORDED
from .models import SitngoSeries, SitngoStreak, SitngoTournament


class SitngoProjection:
    name = "sitngo.series"
    event_types = PROJECTED_TYPES

    def reset(self) -> None:
        SitngoTournament.objects.all().delete()
        SitngoStreak.objects.all().delete()
        SitngoSeries.objects.all().delete()

    def apply(self, events: Sequence[RecordedEvent]) -> None:
        for event in events:
            p = event.payload
            if event.type == SERIES_POSTED:
                SitngoSeries.objects.create(
                    id=p["series_id"], venue=p["venue"], currency=p["currency"],
                    wins_to_trigger=p["wins_to_trigger"], fee_minor=p["fee_minor"],
                    kind=p.get("kind", "poker"), last_position=event.position)
            elif event.type == TOURNAMENT_RECORDED:
                series_id = p["series_id"]
                SitngoSeries.objects.filter(id=series_id).update(
                    pool_minor=F("pool_minor") + p["fees_minor"] - p["jackpot_minor"],
                    paid_minor=F("paid_minor") + p["jackpot_minor"],
                    tournaments=F("tournaments") + 1, last_position=event.position)
                for player_id, wins in p["streaks_after"].items():
                    SitngoStreak.objects.update_or_create(
                        key=f"{series_id}/{player_id}",
                        defaults={"series_id": series_id, "player_id": player_id,
                                  "wins": wins})
                SitngoTournament.objects.create(
                    key=f"{series_id}/{p['tournament_id']}", series_id=series_id,
                    tournament_id=p["tournament_id"], winner_id=p["winner_id"],
                    streak=p["winner_streak"],
                    fees_minor=p["fees_minor"], jackpot_minor=p["jackpot_minor"],
                    position=event.position)
