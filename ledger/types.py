"""Value types of the ledger's public API: what goes in, what comes out.

All are frozen: an event, once described, does not change on its way to the
log. Validation that needs no database happens here, at construction, so a
malformed event fails in the caller's thread before it queues for the writer.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Mapping

from .errors import InvalidEvent, UnbalancedPostings

STREAM_LENGTH_MAX = 200
TYPE_LENGTH_MAX = 100
KEY_LENGTH_MAX = 200
POSTINGS_PER_EVENT_MAX = 64
# PostgreSQL bigint; amounts and balances must stay inside it.
AMOUNT_MINOR_ABS_MAX = 2**63 - 1
METADATA_FIELDS = ("actor", "source", "request_id", "correlation_id", "causation_id")


@dataclass(frozen=True, slots=True)
class Posting:
    """One leg of a double entry: signed minor units, debits positive."""

    account: str
    amount_minor: int
    currency: str

    def __post_init__(self) -> None:
        if type(self.amount_minor) is not int:
            raise InvalidEvent(
                "amount_minor must be an integer number of minor units",
                amount_minor=repr(self.amount_minor),
            )
        if self.amount_minor == 0 or abs(self.amount_minor) > AMOUNT_MINOR_ABS_MAX:
            raise InvalidEvent("amount_minor must be non-zero and fit in 64 bits",
                               amount_minor=self.amount_minor)
        if not (isinstance(self.currency, str) and len(self.currency) == 3
                and self.currency.isascii() and self.currency.isupper()):
            raise InvalidEvent("currency must be a three-letter ISO 4217 code",
                               currency=self.currency)
        if not isinstance(self.account, str) or not self.account:
            raise InvalidEvent("account must be a non-empty account code")

    @classmethod
    def trusted(cls, account: str, amount_minor: int, currency: str) -> "Posting":
        """Build a posting read back from the log, skipping re-validation."""
        posting = object.__new__(cls)
        object.__setattr__(posting, "account", account)
        object.__setattr__(posting, "amount_minor", amount_minor)
        object.__setattr__(posting, "currency", currency)
        return posting


@dataclass(frozen=True, slots=True)
class Metadata:
    """Who and what caused a batch of events; stored with every event."""

    actor: str | None = None
    source: str | None = None
    request_id: str | None = None
    correlation_id: str | None = None
    causation_id: str | None = None

    def as_dict(self) -> dict[str, str]:
        return {name: value for name in METADATA_FIELDS
                if (value := getattr(self, name)) is not None}


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to append. Its position, version and hash come from the writer.

    `occurred_at` defaults to the database's clock at commit; `gaming_day`
    defaults to the local date of `occurred_at` in settings.TIME_ZONE (venue
    code passes the venue's own gaming day).
    """

    stream: str
    type: str
    payload: Mapping[str, Any] = field(default_factory=dict)
    postings: tuple[Posting, ...] = ()
    schema_version: int = 1
    occurred_at: dt.datetime | None = None
    gaming_day: dt.date | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.stream, str) or not 0 < len(self.stream) <= STREAM_LENGTH_MAX:
            raise InvalidEvent("stream must be a non-empty string of at most 200 characters")
        if not isinstance(self.type, str) or not 0 < len(self.type) <= TYPE_LENGTH_MAX:
            raise InvalidEvent("type must be a non-empty string of at most 100 characters")
        if not isinstance(self.payload, Mapping):
            raise InvalidEvent("payload must be a JSON object", stream=self.stream)
        check_json_value(self.payload, "payload")
        if type(self.schema_version) is not int or not 1 <= self.schema_version <= 32767:
            raise InvalidEvent("schema_version must be a small positive integer")
        if self.occurred_at is not None and (
            not isinstance(self.occurred_at, dt.datetime) or self.occurred_at.tzinfo is None
        ):
            raise InvalidEvent("occurred_at must be a timezone-aware datetime")
        if self.gaming_day is not None and (
            not isinstance(self.gaming_day, dt.date) or isinstance(self.gaming_day, dt.datetime)
        ):
            raise InvalidEvent("gaming_day must be a date")
        postings = tuple(self.postings)
        object.__setattr__(self, "postings", postings)
        if len(postings) > POSTINGS_PER_EVENT_MAX:
            raise InvalidEvent("too many postings in one event", postings_max=POSTINGS_PER_EVENT_MAX)
        check_balanced(postings)


def check_balanced(postings: tuple[Posting, ...]) -> None:
    """Raise UnbalancedPostings unless the postings sum to zero per currency."""
    if not postings:
        return
    totals: dict[str, int] = defaultdict(int)
    for posting in postings:
        if not isinstance(posting, Posting):
            raise InvalidEvent("postings must be ledger.Posting values")
        totals[posting.currency] += posting.amount_minor
    unbalanced = {currency: total for currency, total in totals.items() if total}
    if unbalanced:
        raise UnbalancedPostings(
            "postings of one event must sum to zero per currency", totals=unbalanced
        )


def check_json_value(value: Any, path: str) -> None:
    """Accept only JSON that round-trips exactly through PostgreSQL's jsonb.

    Floats are refused: money is integer minor units, and a float's text form
    is not stable enough to hash. NUL characters are refused because jsonb
    cannot store them. Integers must fit in 64 bits.
    """
    kind = type(value)
    if kind is str:
        if "\x00" in value:
            raise InvalidEvent(f"{path}: NUL character in string")
    elif kind is int:
        if not -AMOUNT_MINOR_ABS_MAX <= value <= AMOUNT_MINOR_ABS_MAX:
            raise InvalidEvent(f"{path}: integer out of 64-bit range")
    elif value is None or kind is bool:
        pass
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if type(key) is not str:
                raise InvalidEvent(f"{path}: object keys must be strings")
            if "\x00" in key:
                raise InvalidEvent(f"{path}: NUL character in key")
            check_json_value(item, f"{path}.{key}")
    elif kind is list or kind is tuple:
        for index, item in enumerate(value):
            check_json_value(item, f"{path}[{index}]")
    elif isinstance(value, float):
        raise InvalidEvent(f"{path}: floats are not allowed; use integer minor units or strings")
    elif isinstance(value, int):  # an int subclass such as an IntEnum member
        check_json_value(int(value), path)
    elif isinstance(value, str):  # a str subclass such as a StrEnum member
        check_json_value(str(value), path)
    else:
        raise InvalidEvent(f"{path}: {kind.__name__} is not a JSON value")


@dataclass(frozen=True, slots=True)
class RecordedEvent:
    """An event as stored in the log."""

    position: int
    stream: str
    version: int
    type: str
    schema_version: int
    payload: Mapping[str, Any]
    metadata: Mapping[str, Any]
    idempotency_key: str | None
    occurred_at: dt.datetime
    recorded_at: dt.datetime
    gaming_day: dt.date
    prev_hash: str
    hash: str
    postings: tuple[Posting, ...]
    # The balances (natural direction) of the accounts this event posts to,
    # just after it: set by the writer, which computes them under its lock,
    # so the caller's answer needs no read; None for events loaded from the
    # log (ledger.read.balances_after reads those). Not stored, not hashed.
    balances_after: Mapping[str, int] | None = field(default=None, compare=False)
    # For an event of a request written across books (ledger.crossbook): the
    # request's position in each other book it wrote, as of this event (its
    # own part there so far, or just before it), so "just after the event"
    # reads another book's account at the same moment; () otherwise.
    # Not stored, not hashed.
    as_of: tuple[int, ...] = field(default=(), compare=False)

    @property
    def book(self) -> int:
        """The book the event belongs to: its position names it (ledger.books)."""
        return book_of(self.position)


BOOK_SPAN = 1 << 40


def book_of(position: int) -> int:
    """The book that holds `position`: book b holds (b-1)*2^40+1 .. b*2^40."""
    return ((position - 1) >> 40) + 1


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What one `append` wrote (or, for a repeated key, had written before)."""

    events: tuple[RecordedEvent, ...]
    replayed: bool = False

    @property
    def first_position(self) -> int:
        return self.events[0].position

    @property
    def last_position(self) -> int:
        return self.events[-1].position
