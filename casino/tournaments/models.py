"""Projections of tournament events: the tournament and its entrants.

`Tournament.state` is a django-fsm field moved only by its transitions,
which the projection calls as events arrive; the commands ask
`django_fsm.can_proceed` before deciding, so a finished or cancelled
tournament has no way out (000 §4, 001 §6):

    announced -> registering -> running -> pool_fixed -> in_the_money -> finished
    announced | registering -> cancelled
    running | pool_fixed | in_the_money -> interrupted
"""

from django.db import models
from django_fsm import FSMField, transition


class TournamentState(models.TextChoices):
    ANNOUNCED = "announced"
    REGISTERING = "registering"
    RUNNING = "running"
    POOL_FIXED = "pool_fixed"
    IN_THE_MONEY = "in_the_money"
    FINISHED = "finished"
    CANCELLED = "cancelled"
    INTERRUPTED = "interrupted"


S = TournamentState
PLAYING = [S.RUNNING, S.POOL_FIXED, S.IN_THE_MONEY]


class Tournament(models.Model):
    """One tournament: configuration, money and where it stands."""

    id = models.CharField(max_length=60, primary_key=True)
    venue = models.CharField(max_length=60)
    currency = models.CharField(max_length=3)
    rulebook = models.CharField(max_length=80)
    name = models.CharField(max_length=200)
    format = models.CharField(max_length=30)
    config = models.JSONField()
    state = FSMField(default=S.ANNOUNCED, choices=S.choices, protected=True)
    entries = models.IntegerField(default=0)
    re_entries = models.IntegerField(default=0)
    players_left = models.IntegerField(default=0)
    pool_minor = models.BigIntegerField(default=0)
    fees_minor = models.BigIntegerField(default=0)
    bounties_minor = models.BigIntegerField(default=0)
    paid_field = models.IntegerField(default=0)
    prize_table = models.JSONField(default=list)   # [{"place", "prize_minor"}]
    payout = models.JSONField(null=True)
    last_position = models.BigIntegerField()

    class Meta:
        ordering = ["venue", "id"]

    def __str__(self) -> str:
        return f"{self.id} {self.name} at {self.venue} ({self.state})"

    @transition(field=state, source=S.ANNOUNCED, target=S.REGISTERING)
    def open_registration(self) -> None:
        """Entries are taken (000:L3212)."""

    @transition(field=state, source=S.REGISTERING, target=S.RUNNING)
    def start(self) -> None:
        """Play starts; late entries, re-entries and rebuys in their windows."""

    @transition(field=state, source=S.RUNNING, target=S.POOL_FIXED)
    def fix_pool(self) -> None:
        """The rebuy period is over: the prize money is known (000:L3384-3386)."""

    @transition(field=state, source=S.POOL_FIXED, target=S.IN_THE_MONEY)
    def reach_money(self) -> None:
        """No more players left than places paid."""

    @transition(field=state, source=[S.POOL_FIXED, S.IN_THE_MONEY], target=S.FINISHED)
    def finish(self) -> None:
        """Prizes paid."""

    @transition(field=state, source=[S.ANNOUNCED, S.REGISTERING], target=S.CANCELLED)
    def cancel(self) -> None:
        """Cancelled before the start: every purchase refunded (001:L419-421)."""

    @transition(field=state, source=PLAYING, target=S.INTERRUPTED)
    def interrupt(self) -> None:
        """Cancelled after the start: paid by the cancellation policy (001:L423-444)."""


class EntrantStatus(models.TextChoices):
    PLAYING = "playing"
    OUT = "out"
    DISQUALIFIED = "disqualified"
    EXCLUDED = "excluded"


class Entrant(models.Model):
    """One player in one tournament: purchases, bounty, place and prize."""

    key = models.CharField(max_length=120, primary_key=True)  # "<tournament>/<player>"
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE,
                                   related_name="entrants")
    player_id = models.CharField(max_length=40)
    entries = models.IntegerField(default=0)
    rebuys = models.IntegerField(default=0)
    add_ons = models.IntegerField(default=0)
    paid_minor = models.BigIntegerField(default=0)
    bounty_minor = models.BigIntegerField(default=0)     # on the player's head
    bounties_won_minor = models.BigIntegerField(default=0)
    status = models.CharField(max_length=20, choices=EntrantStatus.choices,
                              default=EntrantStatus.PLAYING)
    place = models.IntegerField(null=True)
    prize_minor = models.BigIntegerField(default=0)

    class Meta:
        ordering = ["tournament", "place", "player_id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player_id"],
                                    name="tournaments_entrant_player"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.tournament_id}"


class TournamentSnapshot(models.Model):
    """The engine's state of one tournament at a stream version.

    Written by the projection in the append's transaction and again by
    `rebuild_projections`; a command reads this row (joined to its
    tournament, for the configuration) instead of replaying the stream.
    `version` is the stream version of the last event folded into `state`
    (casino/tournaments/replay.py `dump_state`).
    """

    tournament = models.OneToOneField(Tournament, on_delete=models.CASCADE,
                                      primary_key=True, related_name="snapshot")
    version = models.IntegerField()
    state = models.JSONField()

    def __str__(self) -> str:
        return f"snapshot of {self.tournament_id} at version {self.version}"
