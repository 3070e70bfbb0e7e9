"""Serializers of the jackpots API. Money out as decimal strings and `_minor`."""

from __future__ import annotations

from rest_framework import serializers

from casino.api import StrictSerializer, MoneyField


class PoolOpenSerializer(StrictSerializer):
    venue = serializers.CharField(max_length=60)
    kind = serializers.RegexField(r"^[a-z_]{1,40}$", required=False, default="bad_beat")


class PoolSerializer(StrictSerializer):
    """A pool as its projection holds it (balances are in the history)."""

    key = serializers.CharField()
    venue = serializers.CharField()
    kind = serializers.CharField()
    currency = serializers.CharField()
    status = serializers.CharField(help_text="accumulating, or hit while a hit is open.")
    rulebook_id = serializers.CharField()
    rulebook_version = serializers.IntegerField()
    first_day = serializers.DateField()
    last_rolled_day = serializers.DateField(allow_null=True)
    base_guarantee_minor = serializers.IntegerField()
    players_min = serializers.IntegerField(allow_null=True)
    hits_enabled = serializers.BooleanField()
    rollups = serializers.IntegerField()
    hits = serializers.IntegerField()


class PoolHistorySerializer(StrictSerializer):
    """The pool's money, summed from the ledger in one snapshot."""

    key = serializers.CharField()
    venue = serializers.CharField()
    kind = serializers.CharField()
    currency = serializers.CharField()
    status = serializers.CharField()
    contributions = serializers.IntegerField(help_text="Credits to the pending account.")
    contributions_minor = serializers.IntegerField()
    adjustments_minor = serializers.IntegerField(
        help_text="Other postings to the pending account (reversals), net.")
    rolled_up_minor = serializers.IntegerField()
    paid_minor = serializers.IntegerField()
    topped_up_minor = serializers.IntegerField()
    pending = MoneyField(source="pending_minor")
    pending_minor = serializers.IntegerField()
    pool = MoneyField(source="pool_minor", help_text="The posted pool a hit pays from.")
    pool_minor = serializers.IntegerField()
    base_guarantee_minor = serializers.IntegerField()
    rollups = serializers.IntegerField()
    hits = serializers.IntegerField()
    last_rolled_day = serializers.DateField(allow_null=True)
    as_of_position = serializers.IntegerField()
    reconciles = serializers.BooleanField(
        help_text="contributions - rolled up = pending, and rolled up - paid + topped up"
                  " = pool, to the cent.")


class RollupRequestSerializer(StrictSerializer):
    gaming_day = serializers.DateField(
        help_text="The closed gaming day to roll up, one per request (the request's"
                  " Idempotency-Key is this day's); the scheduler catches up missed days.")


class RollupSerializer(StrictSerializer):
    venue = serializers.CharField()
    kind = serializers.CharField()
    gaming_day = serializers.DateField()
    contributions = serializers.IntegerField()
    amount = MoneyField(source="amount_minor")
    amount_minor = serializers.IntegerField()
    currency = serializers.CharField()
    position = serializers.IntegerField()


class RollupRowSerializer(StrictSerializer):
    gaming_day = serializers.DateField()
    contributions = serializers.IntegerField()
    amount_minor = serializers.IntegerField()
    position = serializers.IntegerField()


class ShareSerializer(StrictSerializer):
    seat = serializers.IntegerField()
    player_id = serializers.CharField()
    role = serializers.CharField(help_text="loser, winner or other.")
    fraction = serializers.CharField(help_text="Exact share of the balance, num/den; for a"
                                     " fixed progressive prize, `<pays>x<stake_minor>`.")
    amount_minor = serializers.IntegerField()


class HitSerializer(StrictSerializer):
    hit_id = serializers.CharField(source="id")
    pool = serializers.CharField(source="pool_id")
    state = serializers.CharField(help_text="hit, approved, paid or rejected.")
    category = serializers.IntegerField()
    threshold = serializers.CharField()
    table_id = serializers.CharField()
    hand_id = serializers.CharField()
    hand_started_at = serializers.DateTimeField()
    variant = serializers.CharField()
    players = serializers.DictField(child=serializers.CharField())
    roles = serializers.DictField(child=serializers.CharField())
    balance_minor = serializers.IntegerField(allow_null=True)
    amount_minor = serializers.IntegerField(allow_null=True)
    remainder_minor = serializers.IntegerField(allow_null=True)
    top_up_minor = serializers.IntegerField()
    shares = ShareSerializer(many=True, allow_null=True)
    approved_by = serializers.CharField()
    rejected_by = serializers.CharField()
    paid_by = serializers.CharField()
    reason = serializers.CharField()
    trigger = serializers.CharField(help_text="bad_beat (a poker hand) or progressive (a"
                                    " house-game side bet: hand_id is the round).")
    bet_id = serializers.CharField(help_text="The winning progressive bet; empty for a bad"
                                   " beat.")
    row = serializers.CharField(help_text="The progressive pay-table row.")
    pool_basis_points = serializers.IntegerField(
        allow_null=True, help_text="A progressive prize as a share of the posted pool.")
    pays = serializers.IntegerField(
        allow_null=True, help_text="A progressive prize as a multiple of the stake.")
    stake_minor = serializers.IntegerField(allow_null=True)


class RejectSerializer(StrictSerializer):
    reason = serializers.CharField(max_length=500)


class TermsPostSerializer(StrictSerializer):
    """The terms a venue posted for its pool (002:L1792, L1808; 003:L141-142)."""

    notice = serializers.CharField(max_length=500, help_text="Where and how the venue"
                                   " posted the terms (the gaming-area notice).")
    criteria = serializers.DictField(
        child=serializers.DictField(child=serializers.CharField(max_length=60)),
        help_text='Category ("1", "2") -> {variant family: threshold}, e.g.'
                  ' {"1": {"texas_holdem": "full_house:aces_over_kings"}}.')
    shares = serializers.DictField(
        child=serializers.DictField(child=serializers.IntegerField(min_value=0,
                                                                   max_value=10_000)),
        help_text="Category -> {loser_share, winner_share, others_share} in basis points"
                  " of the pool.")
    base_guarantee = MoneyField(help_text="The posted guaranteed minimum of the pool.")


class TermsSerializer(StrictSerializer):
    """Posted terms as recorded: who posted them, when, and what they say."""

    position = serializers.IntegerField()
    posted_by = serializers.CharField()
    posted_at = serializers.DateTimeField()
    effective_day = serializers.DateField()
    notice = serializers.CharField()
    base_guarantee_minor = serializers.IntegerField()
    criteria = serializers.DictField()
    shares = serializers.DictField()
    rulebook_id = serializers.CharField()
    rulebook_version = serializers.IntegerField()
