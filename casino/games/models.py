"""Projections of the games' events: tables, rounds and bets.

`Round.state` is a django-fsm field moved only by the transitions below, as
the events arrive: open -> closed (no more bets) -> outcome recorded ->
settled, or disputed (a declared payout differed) -> settled by an officer;
any unfinished round can be voided (every stake returned). A settled or
voided round has no transition out.
"""

from django.db import models
from django_fsm import FSMField, transition


class GameTable(models.Model):
    """A house-game table opened at a venue, from `games.table_opened`."""

    id = models.CharField(max_length=60, primary_key=True)
    venue = models.CharField(max_length=60)
    game = models.CharField(max_length=40)
    currency = models.CharField(max_length=3)
    rulebook = models.CharField(max_length=80)
    config = models.JSONField(default=dict)
    stake_minor_min = models.BigIntegerField()
    stake_minor_max = models.BigIntegerField()
    rounds_started = models.IntegerField(default=0)
    opened_position = models.BigIntegerField()

    class Meta:
        ordering = ["venue", "id"]

    def __str__(self) -> str:
        return f"{self.id} {self.game} at {self.venue}"


class RoundState(models.TextChoices):
    OPEN = "open"
    CLOSED = "closed"
    OUTCOME_RECORDED = "outcome_recorded"
    DISPUTED = "disputed"
    SETTLED = "settled"
    VOIDED = "voided"


UNFINISHED = [RoundState.OPEN, RoundState.CLOSED, RoundState.OUTCOME_RECORDED,
              RoundState.DISPUTED]


class Round(models.Model):
    id = models.CharField(max_length=80, primary_key=True)  # "<table>.<number>"
    table = models.ForeignKey(GameTable, on_delete=models.CASCADE, related_name="rounds")
    number = models.IntegerField()
    state = FSMField(default=RoundState.OPEN, choices=RoundState.choices, protected=True)
    outcome = models.JSONField(null=True)
    staked_minor = models.BigIntegerField(default=0)
    returned_minor = models.BigIntegerField(default=0)
    commission_minor = models.BigIntegerField(default=0)
    contribution_minor = models.BigIntegerField(default=0)  # to progressive pools
    house_minor = models.BigIntegerField(default=0)
    void_reason = models.CharField(max_length=200, blank=True)
    last_position = models.BigIntegerField()

    class Meta:
        ordering = ["table", "number"]
        constraints = [models.UniqueConstraint(fields=["table", "number"],
                                               name="games_round_table_number")]

    def __str__(self) -> str:
        return f"round {self.id} ({self.state})"

    @transition(field=state, source=RoundState.OPEN, target=RoundState.CLOSED)
    def close(self) -> None:
        """No more bets (002:L1545)."""

    @transition(field=state, source=RoundState.CLOSED, target=RoundState.OUTCOME_RECORDED)
    def record_outcome(self) -> None:
        """The number, dice or cards are on the record."""

    @transition(field=state, source=RoundState.OUTCOME_RECORDED, target=RoundState.DISPUTED)
    def dispute(self) -> None:
        """A declared payout differs from the computed one."""

    @transition(field=state, source=[RoundState.OUTCOME_RECORDED, RoundState.DISPUTED],
                target=RoundState.SETTLED)
    def settle(self) -> None:
        """Every bet paid from the pay table."""

    @transition(field=state, source=UNFINISHED, target=RoundState.VOIDED)
    def void(self) -> None:
        """No spin, misdeal or malfunction: every stake returned."""


class Bet(models.Model):
    """One bet, its valid stake and, once settled, its payout and rule."""

    id = models.CharField(max_length=100, primary_key=True)  # "<round>.<k>"
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="bets")
    player_id = models.CharField(max_length=40)
    kind = models.CharField(max_length=40)
    spec = models.JSONField(default=dict)
    position = models.CharField(max_length=120)
    bet_unit = models.CharField(max_length=40)
    stake_minor = models.BigIntegerField()
    void_minor = models.BigIntegerField(default=0)
    returned_minor = models.BigIntegerField(null=True)
    result = models.CharField(max_length=10, blank=True)
    pay_table = models.CharField(max_length=80, blank=True)
    row = models.CharField(max_length=60, blank=True)
    cite = models.CharField(max_length=40, blank=True)
    commission_minor = models.BigIntegerField(default=0)
    declared_minor = models.BigIntegerField(null=True)
    detail = models.JSONField(default=dict)
    placed_position = models.BigIntegerField()

    class Meta:
        ordering = ["round", "placed_position"]

    def __str__(self) -> str:
        return f"bet {self.id} {self.kind} {self.stake_minor}"


class RoundSnapshot(models.Model):
    """A round's state at a stream version (casino/games/snapshots.py).

    Written by the projection in the append's transaction and again by
    `rebuild_projections`; a command reads this row, joined to its round and
    table, instead of the round's bet rows.
    """

    round = models.OneToOneField(Round, on_delete=models.CASCADE, primary_key=True,
                                 related_name="snapshot")
    version = models.IntegerField()
    state = models.JSONField()   # {"state", "outcome", "bets": [...]}

    def __str__(self) -> str:
        return f"snapshot of round {self.round_id} at version {self.version}"
