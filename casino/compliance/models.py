"""Projections of compliance events, and of other apps' activity blocks."""

from django.db import models
from django_fsm import FSMField, transition


class AlertKind(models.TextChoices):
    REJECTED_ATTEMPT = "rejected_attempt"
    LIMIT_HIT = "limit_hit"
    AML_THRESHOLD = "aml_threshold"
    AML_STRUCTURING = "aml_structuring"
    SHOWDOWN_MISMATCH = "showdown_mismatch"
    PAYOUT_MISMATCH = "payout_mismatch"
    JACKPOT_HIT = "jackpot_hit"


class Alert(models.Model):
    """Something an officer should look at, raised by an event."""

    id = models.CharField(max_length=80, primary_key=True)
    kind = models.CharField(max_length=30, choices=AlertKind.choices)
    player_id = models.CharField(max_length=40, blank=True)
    venue = models.CharField(max_length=60, blank=True)
    summary = models.CharField(max_length=300)
    details = models.JSONField(default=dict)
    raised_position = models.BigIntegerField()
    raised_at = models.DateTimeField()

    class Meta:
        ordering = ["-raised_position"]

    def __str__(self) -> str:
        return f"{self.kind}: {self.summary}"


class WagerCategory(models.TextChoices):
    SLOTS = "slots"
    CASINO_VS_HOUSE = "casino_vs_house"
    PVP = "pvp"


class PlayerActivity(models.Model):
    """What a player staked and won per venue day and game category."""

    key = models.CharField(max_length=160, primary_key=True)
    player_id = models.CharField(max_length=40)
    venue = models.CharField(max_length=60)
    day = models.DateField()
    category = models.CharField(max_length=20, choices=WagerCategory.choices)
    staked_minor = models.BigIntegerField(default=0)
    won_minor = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["player_id", "day", "category"]
        indexes = [models.Index(fields=["player_id", "day"], name="compliance_activity_day")]

    @property
    def loss_minor(self) -> int:
        return self.staked_minor - self.won_minor


class CashActivity(models.Model):
    """A player's cash transactions at a venue in one gaming day (AML)."""

    key = models.CharField(max_length=160, primary_key=True)
    player_id = models.CharField(max_length=40)
    venue = models.CharField(max_length=60)
    gaming_day = models.DateField()
    total_minor = models.BigIntegerField(default=0)
    transactions = models.IntegerField(default=0)
    near_threshold = models.IntegerField(default=0)

    class Meta:
        ordering = ["player_id", "gaming_day"]


class CorrectionState(models.TextChoices):
    PROPOSED = "proposed"
    APPROVED = "approved"
    POSTED = "posted"
    REJECTED = "rejected"


class Correction(models.Model):
    """A manual balance correction: proposed by one person, approved by another."""

    id = models.CharField(max_length=40, primary_key=True)
    account = models.CharField(max_length=200)
    counter_account = models.CharField(max_length=200)
    amount_minor = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    reason = models.TextField()
    proposed_by = models.CharField(max_length=150)
    proposed_at = models.DateTimeField()
    balance_before_minor = models.BigIntegerField()
    decided_by = models.CharField(max_length=150, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.TextField(blank=True)
    balance_after_minor = models.BigIntegerField(null=True, blank=True)
    state = FSMField(default=CorrectionState.PROPOSED, choices=CorrectionState.choices,
                     protected=False)
    last_position = models.BigIntegerField()

    class Meta:
        ordering = ["-proposed_at"]

    def __str__(self) -> str:
        return f"correction {self.id} ({self.state})"

    # Transitions guard the commands; the projection then records the state
    # that the resulting event implies (see commands.py).
    @transition(field=state, source=CorrectionState.PROPOSED, target=CorrectionState.APPROVED)
    def approve(self) -> None:
        pass

    @transition(field=state, source=CorrectionState.PROPOSED, target=CorrectionState.REJECTED)
    def reject(self) -> None:
        pass

    @transition(field=state, source=CorrectionState.APPROVED, target=CorrectionState.POSTED)
    def post(self) -> None:
        pass
