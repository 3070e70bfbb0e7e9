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
    UNFINISHED_GAME = "unfinished_game"
    """A game past its rulebook's time to be completed (HexaPro, 001:L576)."""


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
        verbose_name_plural = "player activities"
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
        verbose_name_plural = "cash activities"


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


class CaseState(models.TextChoices):
    OPEN = "open"
    INVESTIGATING = "investigating"
    ESCALATED = "escalated"
    CLOSED = "closed"


class Case(models.Model):
    """An officer's investigation: the alerts and events it concerns, its notes.

    open -> investigating -> escalated -> closed, or investigating -> closed
    (django-fsm guards each step in casino.compliance.cases; the projection
    then sets the state the `case_state_changed` event records). Closing
    needs a reason.
    """

    id = models.CharField(max_length=40, primary_key=True)
    title = models.CharField(max_length=200)
    state = FSMField(default=CaseState.OPEN, choices=CaseState.choices, protected=False)
    alert_id = models.CharField(max_length=80, blank=True)
    player_id = models.CharField(max_length=40, blank=True)
    venue = models.CharField(max_length=60, blank=True)
    opened_by = models.CharField(max_length=150)
    opened_at = models.DateTimeField()
    state_changed_by = models.CharField(max_length=150, blank=True)
    state_changed_at = models.DateTimeField(null=True, blank=True)
    closed_reason = models.TextField(blank=True)
    notes_count = models.IntegerField(default=0)
    opened_position = models.BigIntegerField()
    last_position = models.BigIntegerField()

    class Meta:
        ordering = ["-opened_position"]
        indexes = [models.Index(fields=["state", "opened_position"],
                                name="compliance_case_state")]

    def __str__(self) -> str:
        return f"case {self.id}: {self.title} ({self.state})"

    # Transitions guard the commands; nothing calls save() on a case.
    @transition(field=state, source=CaseState.OPEN, target=CaseState.INVESTIGATING)
    def investigate(self) -> None:
        pass

    @transition(field=state, source=CaseState.INVESTIGATING, target=CaseState.ESCALATED)
    def escalate(self) -> None:
        pass

    @transition(field=state, source=[CaseState.INVESTIGATING, CaseState.ESCALATED],
                target=CaseState.CLOSED)
    def close(self) -> None:
        pass


class CaseNote(models.Model):
    """One note on a case, in the order written (the event's position is its id)."""

    position = models.BigIntegerField(primary_key=True)
    case = models.ForeignKey(Case, on_delete=models.DO_NOTHING, db_constraint=False,
                             related_name="notes")
    author = models.CharField(max_length=150)
    text = models.TextField()
    written_at = models.DateTimeField()

    class Meta:
        ordering = ["position"]

    def __str__(self) -> str:
        return f"note #{self.position} on case {self.case_id}"


class CaseLink(models.Model):
    """An event a case concerns, by its ledger position."""

    key = models.CharField(max_length=80, primary_key=True)  # "<case_id>/<position>"
    case = models.ForeignKey(Case, on_delete=models.DO_NOTHING, db_constraint=False,
                             related_name="links")
    position = models.BigIntegerField()
    linked_by = models.CharField(max_length=150)
    linked_position = models.BigIntegerField()

    class Meta:
        ordering = ["case_id", "position"]
        indexes = [models.Index(fields=["position"], name="compliance_caselink_position")]

    def __str__(self) -> str:
        return f"case {self.case_id} concerns #{self.position}"


class AlertDismissal(models.Model):
    """An alert an officer reviewed and closed without opening a case."""

    alert_id = models.CharField(max_length=80, primary_key=True)
    dismissed_by = models.CharField(max_length=150)
    reason = models.TextField()
    dismissed_at = models.DateTimeField()
    position = models.BigIntegerField()

    class Meta:
        ordering = ["-position"]

    def __str__(self) -> str:
        return f"{self.alert_id} dismissed"


class ChainVerification(models.Model):
    """One recorded run of the hash-chain verification (compliance.chain_verified)."""

    position = models.BigIntegerField(primary_key=True)
    ok = models.BooleanField()
    events = models.BigIntegerField()
    head_position = models.BigIntegerField()
    head_hash = models.CharField(max_length=64, blank=True)
    bad_position = models.BigIntegerField(null=True, blank=True)
    problem = models.TextField(blank=True)
    verified_by = models.CharField(max_length=150)
    verified_at = models.DateTimeField()

    class Meta:
        ordering = ["-position"]

    def __str__(self) -> str:
        return f"verification #{self.position}: {'ok' if self.ok else 'FAILED'}"
