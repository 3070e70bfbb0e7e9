"""Projections of the sit'n'go jackpots: series, streaks and recorded tournaments."""

from __future__ import annotations

from django.db import models


class SitngoSeries(models.Model):
    """A posted sit'n'go jackpot: trigger, fee and pool (projection)."""

    id = models.CharField(max_length=60, primary_key=True)
    venue = models.CharField(max_length=60)
    currency = models.CharField(max_length=3)
    wins_to_trigger = models.IntegerField()
    fee_minor = models.BigIntegerField()
    # poker: the tournaments app's sit'n'gos (002:L3299); slot: the machines'
    # slot tournaments played as sit'n'gos, online (002:L3329).
    kind = models.CharField(max_length=8, default="poker")
    pool_minor = models.BigIntegerField(default=0)
    paid_minor = models.BigIntegerField(default=0)
    tournaments = models.IntegerField(default=0)
    last_position = models.BigIntegerField()

    def __str__(self) -> str:
        return f"sit'n'go jackpot {self.id} at {self.venue}"


class SitngoStreak(models.Model):
    """A player's consecutive wins in a series' tournaments."""

    key = models.CharField(max_length=120, primary_key=True)    # "<series>/<player>"
    series = models.ForeignKey(SitngoSeries, on_delete=models.CASCADE, related_name="streaks")
    player_id = models.CharField(max_length=40)
    wins = models.IntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.player_id}: {self.wins} in a row"


class SitngoTournament(models.Model):
    """A tournament counted for a series, with its winner and what it paid."""

    key = models.CharField(max_length=140, primary_key=True)    # "<series>/<tournament>"
    series = models.ForeignKey(SitngoSeries, on_delete=models.CASCADE,
                               related_name="recorded")
    tournament_id = models.CharField(max_length=60)
    winner_id = models.CharField(max_length=40)
    streak = models.IntegerField()
    fees_minor = models.BigIntegerField()
    jackpot_minor = models.BigIntegerField(default=0)
    position = models.BigIntegerField()

    def __str__(self) -> str:
        return f"{self.tournament_id} in {self.series_id}"
