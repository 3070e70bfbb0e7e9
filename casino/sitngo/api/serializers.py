"""Serializers of the sit'n'go jackpot API (money in: decimal strings; out: _minor)."""

from __future__ import annotations

from rest_framework import serializers

from casino.api import MoneyField, StrictSerializer


class SeriesPostSerializer(StrictSerializer):
    venue = serializers.CharField(max_length=60)
    wins_to_trigger = serializers.IntegerField(
        help_text="Consecutive sit'n'go jackpot tournaments a player must win (posted).")
    fee = MoneyField(help_text="The jackpot fee each entrant pays (posted).")
    kind = serializers.ChoiceField(choices=["poker", "slot"], required=False, default="poker",
                                   help_text="poker: the poker sit'n'gos (002:L3299); slot:"
                                   " slot tournaments played as sit'n'gos, online"
                                   " (002:L3329).")


class SeriesSerializer(StrictSerializer):
    series_id = serializers.CharField()
    venue = serializers.CharField()
    currency = serializers.CharField()
    wins_to_trigger = serializers.IntegerField()
    fee_minor = serializers.IntegerField()
    kind = serializers.CharField(required=False)
    pool_minor = serializers.IntegerField(required=False)
    paid_minor = serializers.IntegerField(required=False)
    tournaments = serializers.IntegerField(required=False)
    streaks = serializers.DictField(child=serializers.IntegerField(), required=False,
                                    help_text="player id -> consecutive wins so far")


class TournamentRecordSerializer(StrictSerializer):
    tournament_id = serializers.CharField(max_length=60)


class TournamentRecordedSerializer(StrictSerializer):
    series_id = serializers.CharField()
    tournament_id = serializers.CharField()
    winner_id = serializers.CharField()
    winner_streak = serializers.IntegerField()
    fees_minor = serializers.IntegerField()
    jackpot_minor = serializers.IntegerField(help_text="Paid to the winner: the pool, when"
                                             " the streak reached the trigger.")
