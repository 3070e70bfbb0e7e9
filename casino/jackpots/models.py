"""Projections of the jackpot events: pools, daily roll-ups, hits.

Balances are the ledger's (`jackpot/<venue>/<kind>/pending` and `.../pool`);
these tables add what a balance cannot show: which days were rolled up and
with how many contributions, the hits and their approval state.

`JackpotRollup` is unique per (pool, gaming day): a second roll-up event of
one day could not be projected, so the append that tried it would roll back
(the second of the two database guards; the first is the roll-up's
idempotency key).
"""

from __future__ import annotations

from django.db import models
from django_fsm import FSMField, transition


class PoolStatus(models.TextChoices):
    ACCUMULATING = "accumulating", "Accumulating"
    HIT = "hit", "Hit awaiting approval"


class JackpotPool(models.Model):
    key = models.CharField(max_length=120, primary_key=True)  # "<venue>/<kind>"
    venue = models.CharField(max_length=60)
    kind = models.CharField(max_length=40)
    currency = models.CharField(max_length=3)
    rulebook_id = models.CharField(max_length=60)
    rulebook_version = models.IntegerField()
    first_day = models.DateField()
    pending_account = models.CharField(max_length=200)
    pool_account = models.CharField(max_length=200)
    funding_account = models.CharField(max_length=200)
    base_guarantee_minor = models.BigIntegerField(default=0)
    players_min = models.IntegerField(null=True, blank=True)
    hits_enabled = models.BooleanField(default=False)
    status = models.CharField(max_length=20, choices=PoolStatus.choices,
                              default=PoolStatus.ACCUMULATING)
    last_rolled_day = models.DateField(null=True, blank=True)
    rollups = models.IntegerField(default=0)
    contributions = models.BigIntegerField(default=0)
    rolled_up_minor = models.BigIntegerField(default=0)
    paid_minor = models.BigIntegerField(default=0)
    topped_up_minor = models.BigIntegerField(default=0)
    hits = models.IntegerField(default=0)
    opened_position = models.BigIntegerField()
    last_position = models.BigIntegerField()

    class Meta:
        ordering = ["venue", "kind"]

    def __str__(self) -> str:
        return self.key


class JackpotRollup(models.Model):
    """One pool's roll-up of one gaming day, keyed by its event's position
    (natural, so a rebuild reproduces every row exactly, L9)."""

    position = models.BigIntegerField(primary_key=True)
    pool = models.ForeignKey(JackpotPool, on_delete=models.PROTECT, related_name="rollup_rows")
    gaming_day = models.DateField()
    contributions = models.BigIntegerField()
    amount_minor = models.BigIntegerField()

    class Meta:
        ordering = ["pool", "gaming_day"]
        constraints = [models.UniqueConstraint(fields=["pool", "gaming_day"],
                                               name="jackpots_rollup_once_per_day")]

    def __str__(self) -> str:
        return f"{self.pool_id} {self.gaming_day.isoformat()}"


class JackpotTerms(models.Model):
    """Terms a venue posted for a pool its rulebook leaves to the gaming area.

    One row per `terms_posted` event, keyed by its position: who posted
    them, when, from which gaming day, and the trigger criteria, shares and
    guaranteed base the hit check and the approval read (decision
    jackpots.posted_terms). The latest row before a hand started governs it.
    """

    position = models.BigIntegerField(primary_key=True)
    pool = models.ForeignKey(JackpotPool, on_delete=models.PROTECT, related_name="terms_rows")
    posted_by = models.CharField(max_length=150)
    posted_at = models.DateTimeField()
    effective_day = models.DateField()
    notice = models.TextField()
    base_guarantee_minor = models.BigIntegerField()
    criteria = models.JSONField()   # {category: {family: threshold}}
    shares = models.JSONField()     # {category: {share name: basis points}}
    rulebook_id = models.CharField(max_length=60)
    rulebook_version = models.IntegerField()

    class Meta:
        ordering = ["pool", "position"]
        verbose_name_plural = "jackpot terms"

    def __str__(self) -> str:
        return f"{self.pool_id} terms at {self.position}"


class HitState(models.TextChoices):
    HIT = "hit", "Hit, awaiting approval"
    APPROVED = "approved", "Approved"
    PAID = "paid", "Paid"
    REJECTED = "rejected", "Rejected"


OPEN_HIT_STATES = (HitState.HIT, HitState.APPROVED)


class HitTrigger(models.TextChoices):
    BAD_BEAT = "bad_beat", "Bad beat (a poker hand)"
    PROGRESSIVE = "progressive", "Progressive side bet (a house-game bet)"


class JackpotHit(models.Model):
    """A triggered jackpot and its way to payment (django-fsm).

    hit -> approved -> paid, or hit -> rejected. Commands call the
    transition on a loaded row (which refuses a wrong source state), then
    append the event; the projection sets the state from the event, so a
    rebuild gives the same rows.
    """

    id = models.CharField(max_length=120, primary_key=True)  # the hand id
    pool = models.ForeignKey(JackpotPool, on_delete=models.PROTECT, related_name="hit_rows")
    state = FSMField(default=HitState.HIT, choices=HitState.choices)
    category = models.SmallIntegerField()
    threshold = models.CharField(max_length=60)
    table_id = models.CharField(max_length=60)
    hand_id = models.CharField(max_length=120)
    hand_started_at = models.DateTimeField()
    variant = models.CharField(max_length=30)
    players = models.JSONField()   # seat -> player id
    roles = models.JSONField()     # seat -> loser | winner | other
    hands = models.JSONField()
    balance_minor = models.BigIntegerField(null=True, blank=True)
    amount_minor = models.BigIntegerField(null=True, blank=True)
    remainder_minor = models.BigIntegerField(null=True, blank=True)
    shares = models.JSONField(null=True, blank=True)
    approved_by = models.CharField(max_length=150, blank=True)
    rejected_by = models.CharField(max_length=150, blank=True)
    paid_by = models.CharField(max_length=150, blank=True)
    reason = models.TextField(blank=True)
    top_up_minor = models.BigIntegerField(default=0)
    # A progressive hit (trigger progressive): the winning bet and its
    # pay-table row; the prize is pool_basis_points of the posted pool or
    # pays x stake_minor. For these, table_id is the game table, hand_id the
    # round, variant the game, category 0 and threshold the row.
    trigger = models.CharField(max_length=20, choices=HitTrigger.choices,
                               default=HitTrigger.BAD_BEAT)
    bet_id = models.CharField(max_length=120, blank=True, default="")
    row = models.CharField(max_length=40, blank=True, default="")
    pool_basis_points = models.IntegerField(null=True, blank=True)
    pays = models.IntegerField(null=True, blank=True)
    stake_minor = models.BigIntegerField(null=True, blank=True)
    recorded_position = models.BigIntegerField()
    last_position = models.BigIntegerField()

    class Meta:
        ordering = ["hand_started_at", "recorded_position"]

    def __str__(self) -> str:
        return f"{self.pool_id} {self.id} ({self.state})"

    @transition(field=state, source=HitState.HIT, target=HitState.APPROVED)
    def approve(self) -> None:
        """A compliance officer approves the hit and its shares."""

    @transition(field=state, source=HitState.HIT, target=HitState.REJECTED)
    def reject(self) -> None:
        """A compliance officer refuses the hit (e.g. 002:L1810)."""

    @transition(field=state, source=HitState.APPROVED, target=HitState.PAID)
    def pay(self) -> None:
        """The approved shares are posted to the players' accounts."""
