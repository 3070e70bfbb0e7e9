"""Projections of player events."""

import datetime as dt

from django.db import models


class VerificationStatus(models.TextChoices):
    UNVERIFIED = "unverified"
    VERIFIED = "verified"


class VerificationMethod(models.TextChoices):
    BANK_ID = "bank_id", "Strong electronic identification"
    PASSPORT = "passport", "Passport"
    ID_CARD = "id_card", "Identity card"
    DRIVING_LICENCE = "driving_licence", "Driving licence"


class Player(models.Model):
    """A person known to the operator: one per identity document."""

    id = models.CharField(max_length=40, primary_key=True)
    given_name = models.CharField(max_length=100)
    family_name = models.CharField(max_length=100)
    date_of_birth = models.DateField()
    nationality = models.CharField(max_length=2)
    # sha256 of nationality, document type and number: lets the database
    # enforce one player per person without keeping the number in clear.
    identity_key = models.CharField(max_length=64, unique=True)
    document_hint = models.CharField(max_length=20)
    verification_status = models.CharField(max_length=12, choices=VerificationStatus.choices,
                                           default=VerificationStatus.UNVERIFIED)
    verification_method = models.CharField(max_length=20, choices=VerificationMethod.choices,
                                           blank=True)
    verified_at = models.DateTimeField(null=True, blank=True)
    self_excluded_from = models.DateTimeField(null=True, blank=True)
    self_excluded_until = models.DateTimeField(null=True, blank=True)
    registered_position = models.BigIntegerField()
    last_position = models.BigIntegerField()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.given_name} {self.family_name} ({self.id})"

    def age_on(self, day: dt.date) -> int:
        born = self.date_of_birth
        return day.year - born.year - ((day.month, day.day) < (born.month, born.day))

    def is_self_excluded_at(self, moment: dt.datetime) -> bool:
        return (self.self_excluded_until is not None
                and self.self_excluded_from <= moment < self.self_excluded_until)


class LimitKind(models.TextChoices):
    DAILY_SPEND = "daily_spend", "Daily spending limit"
    MONTHLY_SPEND = "monthly_spend", "Monthly spending limit"
    DAILY_TIME = "daily_time", "Daily time limit (minutes)"


class PlayerLimit(models.Model):
    """A player-set limit: the value in force, and a raise waiting to apply."""

    key = models.CharField(max_length=80, primary_key=True)  # "<player>/<kind>"
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="limits")
    kind = models.CharField(max_length=20, choices=LimitKind.choices)
    value = models.BigIntegerField()  # minor units, or minutes for daily_time
    pending_value = models.BigIntegerField(null=True, blank=True)
    pending_effective_at = models.DateTimeField(null=True, blank=True)
    cite = models.CharField(max_length=40)
    last_position = models.BigIntegerField()

    class Meta:
        ordering = ["player", "kind"]

    def __str__(self) -> str:
        return f"{self.player_id} {self.kind} = {self.value}"

    def value_at(self, moment: dt.datetime) -> int:
        """The limit in force at a moment: a pending raise counts once due."""
        if self.pending_effective_at is not None and moment >= self.pending_effective_at:
            return self.pending_value
        return self.value
