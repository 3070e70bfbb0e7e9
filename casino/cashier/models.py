"""Projections of the cashier events: shifts and transfers."""

from django.db import models


class ShiftState(models.TextChoices):
    OPEN = "open"
    CLOSED = "closed"


class Shift(models.Model):
    """One cashier's shift at one window (cashier.shift_opened / _closed)."""

    id = models.CharField(max_length=120, primary_key=True)
    venue = models.CharField(max_length=60)
    window = models.CharField(max_length=60)
    cashier = models.CharField(max_length=150)
    state = models.CharField(max_length=8, choices=ShiftState.choices)
    currency = models.CharField(max_length=3)
    gaming_day = models.DateField()
    bank = models.JSONField()
    bank_minor = models.BigIntegerField()
    opened_at = models.DateTimeField()
    opened_position = models.BigIntegerField()
    count = models.JSONField(null=True)
    counted_minor = models.BigIntegerField(null=True)
    expected_minor = models.BigIntegerField(null=True)
    over_short_minor = models.BigIntegerField(null=True)
    reason = models.TextField(blank=True)
    closed_at = models.DateTimeField(null=True)
    closed_position = models.BigIntegerField(null=True)

    class Meta:
        ordering = ["-opened_position"]
        constraints = [models.UniqueConstraint(
            fields=["venue", "window"], condition=models.Q(state="open"),
            name="cashier_one_open_shift_per_window")]

    def __str__(self) -> str:
        return f"{self.venue} window {self.window}: {self.cashier} ({self.state})"


class Transfer(models.Model):
    """Cash moved between the vault, a window and a table (two signatures)."""

    id = models.CharField(max_length=120, primary_key=True)
    venue = models.CharField(max_length=60)
    source = models.CharField(max_length=80)
    target = models.CharField(max_length=80)
    count = models.JSONField()
    amount_minor = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    first_signature = models.CharField(max_length=150)
    second_signature = models.CharField(max_length=150)
    note = models.TextField(blank=True)
    gaming_day = models.DateField()
    made_at = models.DateTimeField()
    position = models.BigIntegerField()

    class Meta:
        ordering = ["-position"]

    def __str__(self) -> str:
        return f"{self.source} -> {self.target}"
