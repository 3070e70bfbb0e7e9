"""Projections of the reports' events: closes, exports and seals.

Each row is a copy of one event's facts for the admin and the API; the
events themselves are the record (`manage.py rebuild_projections` rebuilds
these tables from them).
"""

from django.db import models


class DayClose(models.Model):
    """One venue's recorded close of one gaming day (reports.day_closed)."""

    key = models.CharField(max_length=100, primary_key=True)  # "<venue>/<day>"
    venue = models.CharField(max_length=60)
    gaming_day = models.DateField()
    reconciled = models.BooleanField()
    head_position = models.BigIntegerField()
    head_hash = models.CharField(max_length=64)
    postings = models.IntegerField()
    figures = models.JSONField()
    lines = models.JSONField()
    differences = models.JSONField()
    closed_by = models.CharField(max_length=150)
    position = models.BigIntegerField()

    class Meta:
        ordering = ["-gaming_day", "venue"]
        indexes = [models.Index(fields=["gaming_day", "venue"], name="reports_close_day_venue")]

    def __str__(self) -> str:
        return f"{self.venue} {self.gaming_day.isoformat()}"


class JournalExport(models.Model):
    """One journal export (reports.journal_exported), by its event's position."""

    position = models.BigIntegerField(primary_key=True)
    actor = models.CharField(max_length=150)
    first_day = models.DateField()
    last_day = models.DateField()
    format = models.CharField(max_length=8)
    part = models.CharField(max_length=20)
    rows = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)
    head_position = models.BigIntegerField()
    head_hash = models.CharField(max_length=64)
    totals = models.JSONField()
    recorded_at = models.DateTimeField()

    class Meta:
        ordering = ["-position"]

    def __str__(self) -> str:
        return f"export #{self.position} {self.first_day}..{self.last_day} {self.format}"


class ReportExport(models.Model):
    """One threshold or exception report exported as a file
    (reports.threshold_report_exported): who exported which report of which
    days, when, in which format, and the digest of the bytes sent."""

    position = models.BigIntegerField(primary_key=True)
    actor = models.CharField(max_length=150)
    report = models.CharField(max_length=40)
    first_day = models.DateField()
    last_day = models.DateField()
    format = models.CharField(max_length=8)
    rows = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)
    size_bytes = models.BigIntegerField()
    head_position = models.BigIntegerField()
    head_hash = models.CharField(max_length=64)
    recorded_at = models.DateTimeField()

    class Meta:
        ordering = ["-position"]
        verbose_name = "threshold report export"

    def __str__(self) -> str:
        return f"{self.report} {self.first_day}..{self.last_day} {self.format} by {self.actor}"


class DaySeal(models.Model):
    """The seal of one gaming day (reports.day_sealed)."""

    gaming_day = models.DateField(primary_key=True)
    head_position = models.BigIntegerField()
    head_hash = models.CharField(max_length=64)
    day_last_position = models.BigIntegerField()
    day_last_hash = models.CharField(max_length=64)
    day_events = models.BigIntegerField()
    position = models.BigIntegerField()
    recorded_at = models.DateTimeField()

    class Meta:
        ordering = ["-gaming_day"]

    def __str__(self) -> str:
        return f"seal {self.gaming_day.isoformat()} at #{self.head_position}"
