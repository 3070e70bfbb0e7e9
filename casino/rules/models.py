"""Projections of rulebook and venue events.

Primary keys are natural (`ray-casino@1`, `ray-casino@1/roulette.numbers_1`)
so that a rebuild reproduces every row exactly, ids included.
"""

from django.db import models


class VenueType(models.TextChoices):
    GAMING_HALL = "gaming_hall"
    PARTNER_PREMISES = "partner_premises"
    CASINO = "casino"
    ONLINE = "online"
    POKER_ROOM = "poker_room"
    ONLINE_POKER = "online_poker"
    TOURNAMENT_SERIES = "tournament_series"


class RulebookVersion(models.Model):
    """One loaded version of a rulebook, as data with citations."""

    key = models.CharField(max_length=80, primary_key=True)  # "<rulebook_id>@<version>"
    rulebook_id = models.CharField(max_length=60)
    version = models.PositiveIntegerField()
    effective_from = models.DateField()
    effective_from_cite = models.CharField(max_length=40, blank=True)
    seed = models.CharField(max_length=3)
    title = models.CharField(max_length=300)
    venue_type = models.CharField(max_length=30, choices=VenueType.choices)
    currency = models.CharField(max_length=3)
    time_zone = models.CharField(max_length=60)
    content_sha256 = models.CharField(max_length=64)
    source_name = models.CharField(max_length=200)
    loaded_position = models.BigIntegerField()

    class Meta:
        ordering = ["rulebook_id", "version"]
        constraints = [
            models.UniqueConstraint(fields=["rulebook_id", "version"], name="rules_rulebook_version"),
        ]

    def __str__(self) -> str:
        return f"{self.rulebook_id} v{self.version} (from {self.effective_from})"


class RaiseRule(models.TextChoices):
    NONE = "none"
    PER_GAME_RULES = "per_game_rules"
    AT_MOST_DOUBLE = "at_most_double"


class StakeLimit(models.Model):
    """A maximum stake for one game and bet unit (seed 002 Part IV)."""

    key = models.CharField(max_length=200, primary_key=True)
    rulebook = models.ForeignKey(RulebookVersion, on_delete=models.CASCADE,
                                 related_name="stake_limits")
    limit_id = models.CharField(max_length=100)
    game = models.CharField(max_length=60)
    bet_unit = models.CharField(max_length=40)
    stake_minor_max = models.BigIntegerField()
    raise_rule = models.CharField(max_length=20, choices=RaiseRule.choices)
    cite = models.CharField(max_length=40)
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["rulebook", "game", "bet_unit"]
        constraints = [
            models.UniqueConstraint(fields=["rulebook", "game", "bet_unit"],
                                    name="rules_stake_limit_game_unit"),
        ]

    def __str__(self) -> str:
        return f"{self.game}/{self.bet_unit} <= {self.stake_minor_max} ({self.cite})"


class WinLimit(models.Model):
    """A venue-level maximum win (seed 002 Part IV section 11)."""

    key = models.CharField(max_length=200, primary_key=True)
    rulebook = models.ForeignKey(RulebookVersion, on_delete=models.CASCADE,
                                 related_name="win_limits")
    limit_id = models.CharField(max_length=100)
    scope = models.CharField(max_length=30)
    win_minor_max = models.BigIntegerField()
    cite = models.CharField(max_length=40)
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["rulebook", "limit_id"]

    def __str__(self) -> str:
        return f"win <= {self.win_minor_max} ({self.cite})"


class Figure(models.Model):
    """Any other cited figure: rake, limits, windows, thresholds."""

    key = models.CharField(max_length=200, primary_key=True)
    rulebook = models.ForeignKey(RulebookVersion, on_delete=models.CASCADE,
                                 related_name="figures")
    figure_key = models.CharField(max_length=120)
    value = models.JSONField()
    unit = models.CharField(max_length=20)
    # Empty for a value no seed line holds: `decision` then names the row that
    # chose it ("Not in the seed: chosen because ...").
    cite = models.CharField(max_length=40)
    note = models.TextField(blank=True)
    decision = models.CharField(max_length=120, blank=True)
    effective_from = models.DateField(null=True, blank=True)

    class Meta:
        ordering = ["rulebook", "figure_key"]
        constraints = [
            models.UniqueConstraint(fields=["rulebook", "figure_key"], name="rules_figure_key"),
        ]

    def __str__(self) -> str:
        source = self.cite or f"decision {self.decision}"
        return f"{self.figure_key} = {self.value} {self.unit} ({source})"


class Decision(models.Model):
    """What was decided where a seed is silent or ambiguous, and why."""

    key = models.CharField(max_length=200, primary_key=True)
    rulebook = models.ForeignKey(RulebookVersion, on_delete=models.CASCADE,
                                 related_name="decisions")
    index = models.PositiveIntegerField()
    topic = models.CharField(max_length=120)
    decision = models.TextField()
    reason = models.TextField()
    cite = models.CharField(max_length=40, blank=True)

    class Meta:
        ordering = ["rulebook", "index"]

    def __str__(self) -> str:
        return f"{self.topic}: {self.decision[:60]}"


class RuleTable(models.Model):
    """A cited table of rows: a pay table, a payout structure, a rake table.

    The rows are kept as the rulebook gives them (a list of JSON objects);
    the app that owns the table validates and reads its columns.
    """

    key = models.CharField(max_length=200, primary_key=True)
    rulebook = models.ForeignKey(RulebookVersion, on_delete=models.CASCADE,
                                 related_name="tables")
    table_key = models.CharField(max_length=120)
    rows = models.JSONField()
    cite = models.CharField(max_length=40)
    note = models.TextField(blank=True)
    decision = models.CharField(max_length=120, blank=True)

    class Meta:
        ordering = ["rulebook", "table_key"]
        constraints = [
            models.UniqueConstraint(fields=["rulebook", "table_key"], name="rules_table_key"),
        ]

    def __str__(self) -> str:
        return f"{self.table_key} ({len(self.rows)} rows, {self.cite})"


class Venue(models.Model):
    """A place (or site) where games run under one rulebook."""

    code = models.CharField(max_length=60, primary_key=True)
    name = models.CharField(max_length=200)
    rulebook_id = models.CharField(max_length=60)
    currency = models.CharField(max_length=3)
    time_zone = models.CharField(max_length=60)
    gaming_day_start = models.TimeField()
    registered_position = models.BigIntegerField()
    # The venue's type as registered: its rulebook's type (a registration
    # naming another is refused). Blank for a venue registered before the
    # type was recorded: its rulebook's type holds.
    venue_type = models.CharField(max_length=30, choices=VenueType.choices, blank=True)
    # Whether only people aged 18 or over enter (posted for partner premises,
    # 002:L1401, L3371), and the position of the event that last said so.
    adults_only = models.BooleanField(default=False)
    adults_only_position = models.BigIntegerField(default=0)
    changed_position = models.BigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["code"]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"


class VenueBooksSince(models.Model):
    """Where per-venue books (issue 19) began on this database: the main book's
    head when the migration that brought them ran (0 on a new database).

    A venue registered at or before it has its history on the main book and
    keeps writing there under the default (`casino.books`); a venue
    registered after it gets a book of its own. One row, never changed.
    """

    position = models.BigIntegerField()

    def __str__(self) -> str:
        return f"per-venue books since position {self.position}"
