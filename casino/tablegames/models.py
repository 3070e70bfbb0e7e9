"""Projections of table-games accounting: sessions, slips, chips by denomination."""

from django.db import models


class SessionState(models.TextChoices):
    OPEN = "open"
    CLOSED = "closed"
    COUNTED = "counted"


class TableSession(models.Model):
    """One session (shift) of a gaming table, from opening to soft count."""

    id = models.CharField(max_length=120, primary_key=True)
    venue = models.CharField(max_length=60)
    table = models.CharField(max_length=60)
    state = models.CharField(max_length=8, choices=SessionState.choices)
    currency = models.CharField(max_length=3)
    gaming_day = models.DateField()
    opened_at = models.DateTimeField()
    opening_inventory = models.JSONField()
    opening_minor = models.BigIntegerField()
    fills_minor = models.BigIntegerField(default=0)
    credits_minor = models.BigIntegerField(default=0)
    closed_at = models.DateTimeField(null=True)
    closing_inventory = models.JSONField(null=True)
    closing_minor = models.BigIntegerField(null=True)
    drop_minor = models.BigIntegerField(null=True)
    count_variance_minor = models.BigIntegerField(null=True)
    counted_by = models.CharField(max_length=310, blank=True)
    win_minor = models.BigIntegerField(null=True)
    hold_basis_points = models.IntegerField(null=True)
    last_position = models.BigIntegerField()

    class Meta:
        ordering = ["-last_position"]
        constraints = [models.UniqueConstraint(
            fields=["venue", "table"], condition=models.Q(state="open"),
            name="tablegames_one_open_session_per_table")]

    def __str__(self) -> str:
        return f"{self.venue} table {self.table} ({self.state})"


class Slip(models.Model):
    """A fill (chips to the table) or a credit (chips back to the cage)."""

    id = models.CharField(max_length=120, primary_key=True)
    kind = models.CharField(max_length=8)     # fill | credit
    session = models.ForeignKey(TableSession, on_delete=models.CASCADE,
                                related_name="slips")
    venue = models.CharField(max_length=60)
    table = models.CharField(max_length=60)
    chips = models.JSONField()
    amount_minor = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    cage_signature = models.CharField(max_length=150)
    table_signature = models.CharField(max_length=150)
    made_at = models.DateTimeField()
    position = models.BigIntegerField()

    class Meta:
        ordering = ["-position"]

    def __str__(self) -> str:
        return f"{self.kind} {self.id} to table {self.table}"


class ChipStock(models.Model):
    """Pieces of one chip denomination at one place of a venue (events.py).

    Places: `chip_bank` (the cage), `tray:<table>`, `players` (the chip
    float's part that left the trays, by denomination). Pieces may be
    negative where the books lack a receipt (chips issued before any was
    recorded received); the chip bank's count shows it.
    """

    key = models.CharField(max_length=200, primary_key=True)
    venue = models.CharField(max_length=60)
    place = models.CharField(max_length=60)
    denomination_minor = models.BigIntegerField()
    pieces = models.BigIntegerField(default=0)
    currency = models.CharField(max_length=3)
    last_position = models.BigIntegerField()

    class Meta:
        ordering = ["venue", "place", "-denomination_minor"]
        verbose_name = "chip stock by denomination"
        verbose_name_plural = "chip stock by denomination"

    @property
    def value_minor(self) -> int:
        return self.denomination_minor * self.pieces

    def __str__(self) -> str:
        return f"{self.venue} {self.place}: {self.pieces} x {self.denomination_minor}"


class ChipBankCount(models.Model):
    """A count of the cage's chips by denomination against the expected stock."""

    id = models.CharField(max_length=120, primary_key=True)
    venue = models.CharField(max_length=60)
    gaming_day = models.DateField()
    count = models.JSONField()
    counted_minor = models.BigIntegerField()
    expected_count = models.JSONField()
    expected_minor = models.BigIntegerField()
    count_differences = models.JSONField()
    over_short_minor = models.BigIntegerField()
    reason = models.TextField(blank=True)
    first_signature = models.CharField(max_length=150)
    second_signature = models.CharField(max_length=150)
    currency = models.CharField(max_length=3)
    counted_at = models.DateTimeField()
    position = models.BigIntegerField()

    class Meta:
        ordering = ["-position"]

    def __str__(self) -> str:
        return f"chip count {self.id} at {self.venue}"


class ChipReceipt(models.Model):
    """Chips delivered into the cage's chip bank (tablegames.chips_received)."""

    id = models.CharField(max_length=120, primary_key=True)
    venue = models.CharField(max_length=60)
    chips = models.JSONField()
    amount_minor = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    first_signature = models.CharField(max_length=150)
    second_signature = models.CharField(max_length=150)
    note = models.TextField(blank=True)
    received_at = models.DateTimeField()
    position = models.BigIntegerField()

    class Meta:
        ordering = ["-position"]

    def __str__(self) -> str:
        return f"chips received {self.id} at {self.venue}"
