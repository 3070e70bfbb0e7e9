"""The per-player keys (outside the log) and the erasures (a projection)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class PersonalKey(models.Model):
    """A player's data key; `key` is None once destroyed (the data are erased).

    Not an event and not a projection: a rebuild neither resets nor refills
    it, and nothing but the erasure projection writes `key = NULL`.
    """

    subject = models.CharField(max_length=40, primary_key=True)
    key = models.BinaryField(null=True)
    created_at = models.DateTimeField(default=timezone.now)
    destroyed_at = models.DateTimeField(null=True, blank=True)
    destroyed_position = models.BigIntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return f"key of {self.subject}" + (" (destroyed)" if self.key is None else "")


class Erasure(models.Model):
    """A proposed, then approved, erasure of one player's personal data."""

    class State(models.TextChoices):
        PROPOSED = "proposed"
        ERASED = "erased"

    player_id = models.CharField(max_length=40, primary_key=True)
    state = models.CharField(max_length=10, choices=State.choices)
    reason = models.TextField()
    proposed_by = models.CharField(max_length=150)
    proposed_position = models.BigIntegerField()
    approved_by = models.CharField(max_length=150, blank=True)
    erased_position = models.BigIntegerField(null=True, blank=True)
    last_position = models.BigIntegerField()

    def __str__(self) -> str:
        return f"erasure of {self.player_id} ({self.state})"
