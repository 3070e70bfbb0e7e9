"""Projections of the machines' events: machines, premises, vouchers, meters.

Primary keys are natural (the machine's and the voucher's ids) so that a
rebuild reproduces every row exactly. Balances live in the ledger; these
tables say what is where and count the day's meters per machine.
"""

from django.db import models


class MachineKind(models.TextChoices):
    SLOT = "slot"
    TERMINAL_ROULETTE = "terminal_roulette"
    ELECTRONIC_POKER_TABLE = "electronic_poker_table"
    BLACKJACK_MACHINE = "blackjack_machine"
    ONLINE_SLOT = "online_slot"
    ONLINE_SOLO_GAME = "online_solo_game"


SPECIAL_KINDS = frozenset({MachineKind.TERMINAL_ROULETTE, MachineKind.ELECTRONIC_POKER_TABLE,
                           MachineKind.BLACKJACK_MACHINE})
ONLINE_KINDS = frozenset({MachineKind.ONLINE_SLOT, MachineKind.ONLINE_SOLO_GAME})


class Machine(models.Model):
    """A gaming machine registered to a venue."""

    id = models.CharField(max_length=60, primary_key=True)
    venue = models.CharField(max_length=60)
    kind = models.CharField(max_length=30, choices=MachineKind.choices)
    games = models.JSONField()
    long_interactive_rounds = models.BooleanField(default=False)
    currency = models.CharField(max_length=3)
    rulebook = models.CharField(max_length=80)
    registered_position = models.BigIntegerField()

    class Meta:
        ordering = ["venue", "id"]

    def __str__(self) -> str:
        return f"{self.id} ({self.kind} at {self.venue})"


class Premises(models.Model):
    """A venue's posted entry rule: whether only people aged 18+ get in (002:L1401)."""

    venue = models.CharField(max_length=60, primary_key=True)
    adults_only = models.BooleanField()
    posted_position = models.BigIntegerField()

    class Meta:
        ordering = ["venue"]
        verbose_name_plural = "premises"

    def __str__(self) -> str:
        return f"{self.venue}: {'18+ entry' if self.adults_only else 'open entry'}"


class MachineDay(models.Model):
    """One machine's meters on one gaming day, kept by the projection."""

    machine = models.ForeignKey(Machine, on_delete=models.CASCADE, related_name="days")
    day = models.DateField()
    coin_in_minor = models.BigIntegerField(default=0)
    coin_out_minor = models.BigIntegerField(default=0)
    cash_in_minor = models.BigIntegerField(default=0)
    vouchers_issued_minor = models.BigIntegerField(default=0)
    vouchers_redeemed_minor = models.BigIntegerField(default=0)
    rounds = models.PositiveIntegerField(default=0)
    rounds_rejected = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["machine", "day"]
        constraints = [
            models.UniqueConstraint(fields=["machine", "day"], name="machines_day_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.machine_id} {self.day}: in {self.coin_in_minor} out {self.coin_out_minor}"


class VoucherState(models.TextChoices):
    ISSUED = "issued"
    REDEEMED = "redeemed"


class Voucher(models.Model):
    """A ticket-out voucher: issued by a machine, redeemed exactly once."""

    id = models.CharField(max_length=40, primary_key=True)
    venue = models.CharField(max_length=60)
    machine = models.CharField(max_length=60)
    amount_minor = models.BigIntegerField()
    state = models.CharField(max_length=10, choices=VoucherState.choices)
    issued_position = models.BigIntegerField()
    redeemed_position = models.BigIntegerField(null=True, blank=True)
    redeemed_at = models.CharField(max_length=10, blank=True)
    redeemed_machine = models.CharField(max_length=60, blank=True)

    class Meta:
        ordering = ["venue", "id"]

    def __str__(self) -> str:
        return f"{self.id} {self.amount_minor} ({self.state})"
