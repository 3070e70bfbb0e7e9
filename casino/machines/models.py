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
    paylines = models.PositiveIntegerField(null=True, blank=True)
    stake_options = models.JSONField(default=list)     # minor units; empty: any
    online_game = models.CharField(max_length=40, blank=True)  # a solo game's Part IV game
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

    # Natural, so that a rebuild reproduces the rows exactly (`<machine>/<day>`).
    key = models.CharField(max_length=80, primary_key=True)
    machine = models.ForeignKey(Machine, on_delete=models.CASCADE, related_name="days")
    day = models.DateField()
    coin_in_minor = models.BigIntegerField(default=0)
    coin_out_minor = models.BigIntegerField(default=0)
    cash_in_minor = models.BigIntegerField(default=0)
    vouchers_issued_minor = models.BigIntegerField(default=0)
    vouchers_redeemed_minor = models.BigIntegerField(default=0)
    rounds = models.PositiveIntegerField(default=0)
    rounds_rejected = models.PositiveIntegerField(default=0)
    jackpots_minor = models.BigIntegerField(default=0)
    cancelled_credits_minor = models.BigIntegerField(default=0)
    malfunction_credits_minor = models.BigIntegerField(default=0)
    jackpot_contributions_minor = models.BigIntegerField(default=0)

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


class JackpotType(models.TextChoices):
    MYSTERY = "mystery"             # drawn as a surprise (002:L1389)
    COMBINATION = "combination"     # triggered by its winning combination (002:L1389)


class JackpotScope(models.TextChoices):
    SINGLE_MACHINE = "single_machine"       # one machine, its own pool
    MACHINE_IN_GROUP = "machine_in_group"   # each machine of a group, its own pool
    MACHINE_GROUP = "machine_group"         # one pool shared by the group


class JackpotAmount(models.TextChoices):
    FIXED = "fixed"
    MULTIPLIER = "multiplier"       # a multiple of the hit round's stake
    PROGRESSIVE = "progressive"     # the pool, grown by contributions


class JackpotDrawnBy(models.TextChoices):
    MACHINE = "machine"
    EXTERNAL = "external"


class MachineJackpot(models.Model):
    """A machine jackpot a venue posted: its type, scope, amount and terms (002:L1387-1389)."""

    id = models.CharField(max_length=60, primary_key=True)
    venue = models.CharField(max_length=60)
    name = models.CharField(max_length=200)
    type = models.CharField(max_length=20, choices=JackpotType.choices)
    scope = models.CharField(max_length=20, choices=JackpotScope.choices)
    drawn_by = models.CharField(max_length=20, choices=JackpotDrawnBy.choices)
    amount = models.CharField(max_length=20, choices=JackpotAmount.choices)
    terms = models.JSONField()      # rate, seed, reset, fixed, multiplier, qualifying stake
    currency = models.CharField(max_length=3)
    configured_position = models.BigIntegerField()
    hits = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["venue", "id"]

    def __str__(self) -> str:
        return f"{self.id} ({self.type} {self.amount} at {self.venue})"


class MachineJackpotLink(models.Model):
    """A machine taking part in a machine jackpot."""

    key = models.CharField(max_length=130, primary_key=True)   # <jackpot>/<machine>
    jackpot = models.ForeignKey(MachineJackpot, on_delete=models.CASCADE,
                                related_name="links")
    machine = models.ForeignKey(Machine, on_delete=models.CASCADE,
                                related_name="jackpot_links")
    linked_position = models.BigIntegerField()

    class Meta:
        ordering = ["jackpot", "machine"]

    def __str__(self) -> str:
        return self.key


class MalfunctionState(models.TextChoices):
    PROPOSED = "proposed"
    APPROVED = "approved"
    REJECTED = "rejected"


class MalfunctionCredit(models.Model):
    """A credit after a malfunction, from the device's own record, two people (002:L1383-1385)."""

    id = models.CharField(max_length=40, primary_key=True)
    machine = models.CharField(max_length=60)
    venue = models.CharField(max_length=60)
    round_id = models.CharField(max_length=80, blank=True)
    player_id = models.CharField(max_length=40, blank=True)
    amount_minor = models.BigIntegerField()
    free_games = models.PositiveIntegerField(default=0)
    device_record = models.JSONField()
    displayed = models.JSONField(default=dict)
    reason = models.TextField()
    state = models.CharField(max_length=10, choices=MalfunctionState.choices)
    proposed_by = models.CharField(max_length=150)
    decided_by = models.CharField(max_length=150, blank=True)
    last_position = models.BigIntegerField()

    class Meta:
        ordering = ["-last_position"]

    def __str__(self) -> str:
        return f"{self.id} {self.amount_minor} on {self.machine} ({self.state})"


class SlotTournamentState(models.TextChoices):
    ANNOUNCED = "announced"
    STARTED = "started"
    FINISHED = "finished"


class SlotTournament(models.Model):
    """A slot tournament: its entry fee (capped), its published prizes (002:L3317, L3375)."""

    id = models.CharField(max_length=60, primary_key=True)
    venue = models.CharField(max_length=60)
    name = models.CharField(max_length=200)
    entry_fee_minor = models.BigIntegerField()
    prizes = models.JSONField()     # [{place, amount_minor}] or {"share_bp": [...]}
    prizes_published_position = models.BigIntegerField(null=True, blank=True)
    state = models.CharField(max_length=10, choices=SlotTournamentState.choices)
    entries = models.PositiveIntegerField(default=0)
    fees_minor = models.BigIntegerField(default=0)
    currency = models.CharField(max_length=3)
    last_position = models.BigIntegerField()

    class Meta:
        ordering = ["venue", "id"]

    def __str__(self) -> str:
        return f"{self.id} ({self.state}, fee {self.entry_fee_minor})"


class MeterReconciliation(models.Model):
    """A venue's machines' meters for one gaming day, reconciled (kept by the projection)."""

    key = models.CharField(max_length=100, primary_key=True)    # <venue>/<day>
    venue = models.CharField(max_length=60)
    day = models.DateField()
    reconciled = models.BooleanField()
    machines = models.PositiveIntegerField()
    differences = models.JSONField(default=list)
    position = models.BigIntegerField()

    class Meta:
        ordering = ["venue", "day"]

    def __str__(self) -> str:
        return f"{self.key}: {'agrees' if self.reconciled else 'differs'}"


class MachineJackpotHit(models.Model):
    """A jackpot hit paid: one per jackpot, machine and round."""

    key = models.CharField(max_length=240, primary_key=True)  # <jackpot>/<machine>/<round>
    jackpot = models.ForeignKey(MachineJackpot, on_delete=models.CASCADE, related_name="paid")
    machine = models.CharField(max_length=60)
    round_id = models.CharField(max_length=80)
    paid_minor = models.BigIntegerField()
    position = models.BigIntegerField()

    class Meta:
        ordering = ["-position"]

    def __str__(self) -> str:
        return f"{self.key}: {self.paid_minor}"


class MachineRound(models.Model):
    """A round on the record: its id is the machine's key (played or refused once)."""

    key = models.CharField(max_length=150, primary_key=True)     # <machine>/<round>
    machine_id = models.CharField(max_length=60)
    round_id = models.CharField(max_length=80)
    status = models.CharField(max_length=10)        # played | refused
    rule = models.CharField(max_length=80, blank=True)
    fingerprint = models.CharField(max_length=32, blank=True)
    total_minor = models.BigIntegerField()
    player_id = models.CharField(max_length=40, blank=True)
    position = models.BigIntegerField()

    class Meta:
        ordering = ["position"]

    def __str__(self) -> str:
        return f"{self.key} {self.status}"
