"""The ledger's tables.

Two kinds of table live here:

* The log: `Event`, `Posting` and `IdempotencyRecord`. Rows are only ever
  inserted, by `ledger.writer`; PostgreSQL triggers (migration 0002) reject
  UPDATE, DELETE and TRUNCATE for every role. `LedgerHead` is the log's single
  row of state (last position and hash); the writer locks it to serialise
  appends and a trigger keeps it in step with the event table.
* Projections: `Account` (chart of accounts plus running balance) and
  `Stream` (per-stream version). They are derived from the log and can be
  rebuilt from it (`manage.py rebuild_projections`).
"""

from django.db import models


class AccountType(models.TextChoices):
    ASSET = "asset", "Asset"
    LIABILITY = "liability", "Liability"
    REVENUE = "revenue", "Revenue"
    EXPENSE = "expense", "Expense"
    EQUITY = "equity", "Equity"


# Postings are signed with debits positive. An account's balance is shown in
# its natural direction: debit-normal types count debits up, credit-normal
# types count credits up, so a player's deposit raises their liability account.
DEBIT_NORMAL_TYPES = frozenset({AccountType.ASSET, AccountType.EXPENSE})


def natural_sign(account_type: str) -> int:
    """Return +1 for debit-normal account types, -1 for credit-normal ones."""
    return 1 if account_type in DEBIT_NORMAL_TYPES else -1


class Event(models.Model):
    """One immutable fact, at a gap-free position in its book.

    Book b holds positions (b-1)*2^40+1 .. b*2^40 (migration 0007), so a
    position names its book and stays unique across books.
    """

    position = models.BigIntegerField(primary_key=True)
    book = models.SmallIntegerField(default=1)
    stream = models.CharField(max_length=200)
    version = models.IntegerField()
    type = models.CharField(max_length=100)
    schema_version = models.SmallIntegerField(default=1)
    payload = models.JSONField()
    metadata = models.JSONField()
    idempotency_key = models.CharField(max_length=200, null=True, blank=True)
    occurred_at = models.DateTimeField()
    recorded_at = models.DateTimeField()
    gaming_day = models.DateField()
    prev_hash = models.CharField(max_length=64)
    hash = models.CharField(max_length=64)

    class Meta:
        db_table = "ledger_event"
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["stream", "version"], name="ledger_event_stream_version"),
            models.CheckConstraint(condition=models.Q(position__gte=1), name="ledger_event_position_positive"),
            models.CheckConstraint(condition=models.Q(version__gte=1), name="ledger_event_version_positive"),
        ]
        indexes = [
            models.Index(fields=["type", "position"], name="ledger_event_type_pos"),
            models.Index(fields=["gaming_day", "position"], name="ledger_event_day_pos"),
        ]

    def __str__(self) -> str:
        return f"#{self.position} {self.type} {self.stream}@{self.version}"


class Account(models.Model):
    """An account of the chart and its running balance (a projection).

    `balance_minor` is in the account's natural direction (see
    `natural_sign`). The CHECK constraints restate the writer's account rules
    so a bug in Python cannot leave a forbidden balance behind.
    """

    code = models.CharField(max_length=200, primary_key=True)
    book = models.SmallIntegerField(default=1)
    type = models.CharField(max_length=16, choices=AccountType.choices)
    currency = models.CharField(max_length=3)
    name = models.CharField(max_length=200, blank=True)
    must_not_go_negative = models.BooleanField(default=False)
    balance_max_minor = models.BigIntegerField(null=True, blank=True)
    balance_minor = models.BigIntegerField(default=0)
    opened_position = models.BigIntegerField()
    last_position = models.BigIntegerField()

    class Meta:
        db_table = "ledger_account"
        ordering = ["code"]
        constraints = [
            models.UniqueConstraint(fields=["code", "currency"], name="ledger_account_code_currency"),
            models.CheckConstraint(
                condition=models.Q(must_not_go_negative=False) | models.Q(balance_minor__gte=0),
                name="ledger_account_not_negative",
            ),
            models.CheckConstraint(
                condition=models.Q(balance_max_minor__isnull=True)
                | models.Q(balance_minor__lte=models.F("balance_max_minor")),
                name="ledger_account_balance_max",
            ),
        ]

    def __str__(self) -> str:
        return self.code


class Posting(models.Model):
    """One leg of an event's double entry: signed minor units, debit positive."""

    # Both references are checked by the posting insert trigger, set-based,
    # instead of row-by-row foreign keys (migration 0002 says why).
    event = models.ForeignKey(
        Event, on_delete=models.PROTECT, db_constraint=False, related_name="postings"
    )
    index = models.SmallIntegerField()
    book = models.SmallIntegerField(default=1)
    account = models.ForeignKey(
        Account, on_delete=models.PROTECT, db_constraint=False, related_name="postings"
    )
    amount_minor = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    # The event's gaming day: the partition key (migrations 0009, 0010);
    # NOT NULL since 0012 filled in the postings written without it.
    gaming_day = models.DateField()

    class Meta:
        db_table = "ledger_posting"
        ordering = ["event_id", "index"]
        constraints = [
            models.UniqueConstraint(fields=["event", "index"], name="ledger_posting_event_index"),
            models.CheckConstraint(condition=~models.Q(amount_minor=0), name="ledger_posting_amount_nonzero"),
        ]
        indexes = [models.Index(fields=["account", "event"], name="ledger_posting_account_event")]

    def __str__(self) -> str:
        return f"{self.account_id} {self.amount_minor:+d} {self.currency}"


class Stream(models.Model):
    """A stream's current version: the writer's optimistic-concurrency index."""

    name = models.CharField(max_length=200, primary_key=True)
    book = models.SmallIntegerField(default=1)
    version = models.IntegerField()
    last_position = models.BigIntegerField()

    class Meta:
        db_table = "ledger_stream"
        ordering = ["name"]

    def __str__(self) -> str:
        return f"{self.name}@{self.version}"


class IdempotencyRecord(models.Model):
    """The result of one keyed append: which positions it wrote.

    A request (one `append` call) may write several events, so uniqueness of
    the client's key lives here, one row per request.
    """

    key = models.CharField(max_length=200, primary_key=True)
    book = models.SmallIntegerField(default=1)
    fingerprint = models.CharField(max_length=64)
    first_position = models.BigIntegerField()
    last_position = models.BigIntegerField()
    recorded_at = models.DateTimeField()

    class Meta:
        db_table = "ledger_idempotency"

    def __str__(self) -> str:
        return self.key


class LedgerHead(models.Model):
    """One book of the log: its key, last position and hash.

    The writer takes `SELECT ... FOR UPDATE` on the book's row: that row lock
    is the book's writer lock, so books append in parallel. A trigger on
    event insert moves it forward; `ledger.books.open_book` adds a book.
    """

    id = models.SmallIntegerField(primary_key=True, default=1)
    key = models.CharField(max_length=40, unique=True, default="main")
    position = models.BigIntegerField()
    hash = models.CharField(max_length=64)
    # A book moved to another database stays here frozen (migration 0008).
    read_only = models.BooleanField(default=False)

    class Meta:
        db_table = "ledger_head"

    def __str__(self) -> str:
        return f"book {self.key} #{self.position}"


class BookPlacement(models.Model):
    """The directory: which database (a Django alias) holds each book.

    Kept in the directory database (`default`), which hands out book ids,
    so a book keeps its id and range of positions wherever it lives.
    `ledger.placement` reads it; `manage.py move_book` changes it.
    """

    book = models.SmallIntegerField(primary_key=True)
    key = models.CharField(max_length=40, unique=True)
    database = models.CharField(max_length=100)
    previous_database = models.CharField(max_length=100, null=True, blank=True)
    moved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "ledger_placement"
        ordering = ["book"]

    def __str__(self) -> str:
        return f"book {self.key} in {self.database}"
