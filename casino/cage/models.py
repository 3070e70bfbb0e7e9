"""Projection of cage events: what moved through each cage per gaming day.

Balances live in the ledger (`cage/<venue>/cash`, `cage/<venue>/chips`, the
players' accounts); this table adds what a balance cannot show, the day's
movements by kind and method, for the daily close and for reconciling the
cage two ways (these sums against the ledger's balances).
"""

from django.db import models


class CageDay(models.Model):
    """One venue's cage movements in one gaming day, in minor units."""

    key = models.CharField(max_length=80, primary_key=True)  # "<venue>/<gaming day>"
    venue = models.CharField(max_length=60)
    gaming_day = models.DateField()
    currency = models.CharField(max_length=3)
    deposits_cash_minor = models.BigIntegerField(default=0)
    deposits_bank_minor = models.BigIntegerField(default=0)
    withdrawals_cash_minor = models.BigIntegerField(default=0)
    withdrawals_bank_minor = models.BigIntegerField(default=0)
    chips_sold_cash_minor = models.BigIntegerField(default=0)
    chips_sold_account_minor = models.BigIntegerField(default=0)
    chips_redeemed_cash_minor = models.BigIntegerField(default=0)
    chips_redeemed_account_minor = models.BigIntegerField(default=0)
    transactions = models.IntegerField(default=0)
    last_position = models.BigIntegerField()

    class Meta:
        ordering = ["venue", "gaming_day"]
        indexes = [models.Index(fields=["gaming_day", "venue"], name="cage_day_day_venue")]

    def __str__(self) -> str:
        return f"{self.venue} {self.gaming_day.isoformat()}"

    @property
    def cash_net_minor(self) -> int:
        """Change in the cage's cash over the day."""
        return (self.deposits_cash_minor - self.withdrawals_cash_minor
                + self.chips_sold_cash_minor - self.chips_redeemed_cash_minor)

    @property
    def chips_net_minor(self) -> int:
        """Change in the chip float over the day."""
        return (self.chips_sold_cash_minor + self.chips_sold_account_minor
                - self.chips_redeemed_cash_minor - self.chips_redeemed_account_minor)
