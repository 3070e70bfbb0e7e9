"""Projections of poker events: tables, their seats, and hands.

Balances live in the ledger: `table/<id>/stacks` holds all the chips on a
table. `Seat.stack_minor` is each seat's share of it as of the last hand
boundary (buy-in, cash-out, hand settled or voided), so between and during
hands the table's ledger balance equals the sum of its seats' stacks. A
running hand's live stacks are in `Hand.stacks_minor`.

`Hand.state` is a django-fsm field moved only by the transitions below, which
the projection calls as events arrive: a hand that is settled or voided has no
transition out, so a second settlement could not be projected even if it were
written (the commands refuse it first).
"""

from django.db import models
from django_fsm import FSMField, transition


class Table(models.Model):
    """A cash-game table and its configuration, from `poker.table_opened`."""

    id = models.CharField(max_length=60, primary_key=True)
    venue = models.CharField(max_length=60)
    currency = models.CharField(max_length=3)
    rulebook = models.CharField(max_length=80)
    variant = models.CharField(max_length=40)
    structure = models.CharField(max_length=20)
    stakes = models.JSONField()
    seats_max = models.PositiveSmallIntegerField()
    buy_in_minor_min = models.BigIntegerField()
    buy_in_minor_max = models.BigIntegerField()
    rake = models.JSONField()
    drop = models.JSONField(null=True)
    jackpot = models.CharField(max_length=200, blank=True)
    banzai = models.BooleanField(default=False)  # online shallow-stack format (001:L219-223)
    jackpot_time_fee = models.JSONField(null=True)  # the jackpot fee by time (000:L2876-2879)
    electronic = models.BooleanField(default=False)  # a special machine (002:L3381, L3443)
    hands_started = models.IntegerField(default=0)
    opened_position = models.BigIntegerField()

    class Meta:
        ordering = ["venue", "id"]

    def __str__(self) -> str:
        return f"{self.id} {self.variant} {self.structure} at {self.venue}"


class Seat(models.Model):
    """One seat of a table: who sits there and their stack between hands."""

    key = models.CharField(max_length=80, primary_key=True)  # "<table>/<seat>"
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    player_id = models.CharField(max_length=40, blank=True)
    stack_minor = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="poker_seat_table_number"),
            models.CheckConstraint(condition=models.Q(stack_minor__gte=0),
                                   name="poker_seat_stack_not_negative"),
        ]

    def __str__(self) -> str:
        return f"{self.table_id} seat {self.number}"


class SeatMove(models.Model):
    """A player's buy-in or cash-out, one row each: the record of their moves.

    The rules that span tables read the summaries below (`PlayerEvening`,
    `PlayerBanzaiMove`), never these rows, so a buy-in's cost does not grow
    with the day.
    """

    BUY_IN = "buy_in"
    CASH_OUT = "cash_out"

    position = models.BigIntegerField(primary_key=True)
    kind = models.CharField(max_length=10, choices=[(BUY_IN, "buy-in"), (CASH_OUT, "cash-out")])
    player_id = models.CharField(max_length=40)
    venue = models.CharField(max_length=60)
    gaming_day = models.DateField()
    occurred_at = models.DateTimeField()
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="moves")
    amount_minor = models.BigIntegerField()
    stack_minor = models.BigIntegerField()  # after a buy-in; taken away on a cash-out
    short = models.BooleanField(default=False)

    class Meta:
        ordering = ["position"]
        indexes = [models.Index(fields=["player_id", "venue", "gaming_day"],
                                name="poker_move_player_day")]

    def __str__(self) -> str:
        return f"{self.kind} {self.player_id} {self.amount_minor} at {self.table_id}"


class PlayerEvening(models.Model):
    """A player's gaming day at a venue, summed up for the evening rules.

    One row per (player, venue, gaming day), read by its key: the day's
    buy-ins and short buy-ins, and the last move at a non-Banzai table of
    each betting structure (`evening.Evening`). The projection folds each
    buy-in and cash-out into it (`Evening.after`), so a buy-in reads one row
    however many moves came before (issue 21).
    """

    key = models.CharField(max_length=160, primary_key=True)  # player/venue/day
    player_id = models.CharField(max_length=40)
    venue = models.CharField(max_length=60)
    gaming_day = models.DateField()
    buy_ins = models.PositiveIntegerField(default=0)
    short_buy_ins = models.PositiveIntegerField(default=0)
    last_moves = models.JSONField(default=dict)  # structure -> evening.move_record

    class Meta:
        ordering = ["key"]

    def __str__(self) -> str:
        return f"{self.player_id} at {self.venue} on {self.gaming_day}"

    @staticmethod
    def key_of(player_id: str, venue: str, gaming_day: object) -> str:
        return f"{player_id}/{venue}/{gaming_day}"


class PlayerBanzaiMove(models.Model):
    """A player's last buy-in or cash-out at a Banzai table of a venue, any day.

    Banzai's 30-minute lock looks at this move only (001:L223); read by key.
    """

    key = models.CharField(max_length=110, primary_key=True)  # player/venue
    player_id = models.CharField(max_length=40)
    venue = models.CharField(max_length=60)
    move = models.JSONField()  # evening.move_record

    class Meta:
        ordering = ["key"]

    def __str__(self) -> str:
        return f"{self.player_id} at {self.venue}: last Banzai move"

    @staticmethod
    def key_of(player_id: str, venue: str) -> str:
        return f"{player_id}/{venue}"


class HandStatus(models.TextChoices):
    STARTED = "started"
    BETTING = "betting"
    SHOWDOWN = "showdown"
    SETTLED = "settled"
    DISPUTED = "disputed"
    VOIDED = "voided"


RUNNING = [HandStatus.STARTED, HandStatus.BETTING, HandStatus.SHOWDOWN, HandStatus.DISPUTED]


class Hand(models.Model):
    """One hand at a table; `state` follows its events."""

    id = models.CharField(max_length=80, primary_key=True)  # "<table>.<number>"
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="hands")
    number = models.IntegerField()
    state = FSMField(default=HandStatus.STARTED, choices=HandStatus.choices, protected=True)
    button = models.PositiveSmallIntegerField()
    to_act = models.PositiveSmallIntegerField(null=True)
    pot_minor = models.BigIntegerField(default=0)
    stacks_minor = models.JSONField()  # seat -> live stack
    rake_minor = models.BigIntegerField(default=0)
    drop_minor = models.BigIntegerField(default=0)
    awards_minor = models.JSONField(null=True)
    last_position = models.BigIntegerField()

    class Meta:
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="poker_hand_table_number"),
        ]

    def __str__(self) -> str:
        return f"hand {self.id} ({self.state})"

    @transition(field=state, source=[HandStatus.STARTED, HandStatus.BETTING],
                target=HandStatus.BETTING)
    def open_betting(self) -> None:
        """An action was taken, or the forced bets left players to act."""

    @transition(field=state, source=[HandStatus.STARTED, HandStatus.BETTING],
                target=HandStatus.SHOWDOWN)
    def reach_showdown(self) -> None:
        """The betting is over with two or more players left."""

    @transition(field=state, source=[HandStatus.STARTED, HandStatus.BETTING,
                                     HandStatus.SHOWDOWN, HandStatus.DISPUTED],
                target=HandStatus.SETTLED)
    def settle(self) -> None:
        """Pots awarded (verified showdown, the last player in, or an officer's
        decision on a disputed hand)."""

    @transition(field=state, source=HandStatus.SHOWDOWN, target=HandStatus.DISPUTED)
    def dispute(self) -> None:
        """The claimed result differs from the verified one."""

    @transition(field=state, source=RUNNING, target=HandStatus.VOIDED)
    def void(self) -> None:
        """Every bet returned; stacks back to the start of the hand."""


class HandSnapshot(models.Model):
    """A hand's engine state at a stream version (casino/poker/snapshots.py).

    Written by the projection in the append's transaction and again by
    `rebuild_projections`; a command reads this row, joined to its hand and
    table, instead of replaying the hand's events.
    """

    hand = models.OneToOneField(Hand, on_delete=models.CASCADE, primary_key=True,
                                related_name="snapshot")
    version = models.IntegerField()
    state = models.JSONField()   # {"status", "engine": snapshots.dump_state}

    def __str__(self) -> str:
        return f"snapshot of hand {self.hand_id} at version {self.version}"
