"""Appends that span books of one database (issue 19: a venue's own book).

An event belongs to its stream's book and posts only to its own book's
accounts (`ledger.books`). A command, though, may touch several books at
once: a chip purchase at a venue whose cage is on the venue's book, written
on the player's stream, which is operator-wide and on the main book; a
deposit from the venue's cage into the player's one gaming account. This
module takes such a request and writes it as one all-or-nothing unit:

* each event goes to its stream's book (an existing stream keeps its book;
  a new one goes where `book_for_stream` says, by default the home book);
* an event whose postings reach accounts of other books is split: it keeps
  its own book's postings plus one clearing posting per other book and
  currency, and each other book gets a companion event
  (`ledger.crossbook_leg`, on the stream `crossbook/<leg id>`) with that
  book's postings and the opposite clearing posting:

      book A  the event      A-postings ...      clearing/<A>/<B>/<C>  +s
      book B  the companion  B-postings ...      clearing/<B>/<A>/<C>  -s

  where s is the sum of the B-postings, so each event balances and, as with
  `ledger.transfers`, balance(clearing A/B) + balance(clearing B/A) == 0;
* all parts are written in ONE transaction, books in ascending id order
  (the order `ledger.transfers` and the writer use, so no deadlock), each
  under its book's writer lock; either every book gains its part or none.

Idempotency: the part holding the caller's first event is recorded under
the caller's key (so the caller's events carry the key it sent), each other
book's part under `<key>#<book id>`; they commit together, so a retry
finds all of them or none, and `recorded(key)` returns every part's events
in the order they were first returned.

Decision: only books placed on the same database are joined this way. Books
on different servers cannot share a transaction; money between them moves
by the two-phase transfer (`ledger.transfers.transfer_two_phase`), and a
request spanning them is refused (`ledger.invalid_event`) rather than
written in part.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
import uuid
from collections import defaultdict
from typing import Any, Callable, Mapping, Sequence

from django.db import DatabaseError, connections, transaction

from .books import book_id, book_key
from .errors import AccountExists, InvalidEvent, LedgerError, StaleVersion
from .placement import database_for, forget as forget_placement, is_moved_error
from .store import balances_at, load_events
from .transfers import _opening, clearing_account
from .types import AppendResult, Metadata, NewEvent, Posting, RecordedEvent
from .writer import _build_request, _writer, append, write_books, write_group

__all__ = ["CROSSBOOK_LEG", "append_across", "recorded", "recorded_across", "part_key",
           "forget"]

CROSSBOOK_LEG = "ledger.crossbook_leg"
# A request is tried again at most this many times while the writer names
# streams and accounts that live in other books than assumed.
LEARN_ATTEMPTS_MAX = 8
REMEMBERED_MAX = 200_000

# The books of streams and accounts this process has seen: a stream's or an
# account's book never changes (a moved book keeps its id).
_streams: dict[str, int] = {}
_accounts: dict[str, int] = {}
# Clearing accounts known open (committed): they are never closed.
_open_clearing_accounts: set[str] = set()
_lock = threading.Lock()

BookFor = Callable[[str], "int | str | None"]


def part_key(key: str, book: int) -> str:
    """The idempotency key of a request's part in a book other than its home."""
    return f"{key}#{book}"


def append_across(
    events: Sequence[NewEvent],
    *,
    home_book: int | str,
    book_for_stream: BookFor | None = None,
    book_for_account: BookFor | None = None,
    expected_versions: Mapping[str, int] | None = None,
    idempotency_key: str | None = None,
    metadata: Metadata | None = None,
    request: Any = None,
    report_balances: Sequence[str] = (),
) -> AppendResult:
    """Append `events` across the books their streams and accounts belong to.

    A stream or account this process has not seen yet is taken to be where
    `book_for_stream` / `book_for_account` say (None or no rule: the home
    book), which is where a new one opens; when the writer answers that it
    lives in another book, that is remembered (a stream's or account's book
    never changes) and the request is tried again. So a request within one
    book costs no statement more than a plain append.

    Returns the events in the order given, each followed by its companions
    in other books (if any); an event's `balances_after` also carries its
    companions' accounts, so a caller reads a balance it moved wherever the
    account lives. Raises the `LedgerError` that refused any part (nothing
    written).
    """
    home = book_id(home_book)
    learnt: set[tuple[str, int]] = set()
    for _ in range(LEARN_ATTEMPTS_MAX):
        try:
            return _append_once(tuple(events), home, book_for_stream, book_for_account,
                                dict(expected_versions or {}), idempotency_key, metadata,
                                request, tuple(report_balances))
        except InvalidEvent as error:
            fact = (str(error.details.get("stream") or error.details.get("account")),
                    error.details.get("book"))
            # The same fact twice: this request cannot be placed by learning
            # more (a refusal about something else): let it through.
            if fact in learnt or not _learn(error):
                raise
            learnt.add(fact)
    raise InvalidEvent("the books of this request's streams and accounts kept changing",
                       attempts=LEARN_ATTEMPTS_MAX)


def _learn(error: InvalidEvent) -> bool:
    """Remember the book a refusal names for a stream or account; whether it did."""
    book = error.details.get("book")
    if not isinstance(book, int) or "belongs to another book" not in str(error):
        return False
    for kind, known in (("stream", _streams), ("account", _accounts)):
        name = error.details.get(kind)
        if isinstance(name, str):
            # Also when already known: another thread may have learnt it
            # while this attempt was on its way (the attempts are bounded).
            _remember(known, {name: book})
            return True
    return False


def _remember(known: dict[str, int], learned: Mapping[str, int]) -> None:
    with _lock:
        if len(known) + len(learned) > REMEMBERED_MAX:
            known.clear()
        known.update(learned)


def forget() -> None:
    """Forget the books of streams and accounts (a test's database was rolled back)."""
    with _lock:
        _streams.clear()
        _accounts.clear()
        _open_clearing_accounts.clear()


def _append_once(events: tuple[NewEvent, ...], home: int, book_for_stream: BookFor | None,
                 book_for_account: BookFor | None, expected: dict[str, int],
                 idempotency_key: str | None, metadata: Metadata | None, request: Any,
                 report_balances: tuple[str, ...], _moved_retry: bool = False
                 ) -> AppendResult:
    using = database_for(home)
    # A new stream the caller's rule leaves to the default opens beside the
    # streams whose versions the request checks, when those are known to be
    # in one book: a version is checked under its own book's lock, in the
    # part that writes to that book.
    checked = {_streams[s] for s in expected if s in _streams}
    default = checked.pop() if len(checked) == 1 else home

    def book_of_stream(stream: str) -> int:
        known = _streams.get(stream)
        if known is not None:
            return known
        chosen = book_for_stream(stream) if book_for_stream is not None else None
        return default if chosen is None else book_id(chosen)

    def book_of_account(code: str) -> int:
        known = _accounts.get(code)
        if known is not None:
            return known
        chosen = book_for_account(code) if book_for_account is not None else None
        return home if chosen is None else book_id(chosen)

    # Per book: (event, index of the caller's event it belongs to, companion?).
    parts: dict[int, list[tuple[NewEvent, int, bool]]] = defaultdict(list)
    clearing: dict[int, set[str]] = defaultdict(set)
    for index, event in enumerate(events):
        book = book_of_stream(event.stream)
        own, other = _split_postings(event, book, book_of_account)
        if not other:
            parts[book].append((event, index, False))
            continue
        own_postings = list(own)
        for (other_book, currency), postings in sorted(other.items()):
            total = sum(p.amount_minor for p in postings)
            leg_id = _leg_id(idempotency_key, index, other_book, currency)
            # Postings that balance among themselves in the other book (a
            # venue's cash against its chips) need no clearing: they move
            # nothing between the books.
            counter: tuple[Posting, ...] = ()
            if total:
                here = clearing_account(book_key(book), book_key(other_book), currency)
                there = clearing_account(book_key(other_book), book_key(book), currency)
                clearing[book].add(here)
                clearing[other_book].add(there)
                own_postings.append(Posting(here, total, currency))
                counter = (Posting(there, -total, currency),)
            leg = NewEvent(
                stream=f"crossbook/{leg_id}", type=CROSSBOOK_LEG,
                payload={"leg_id": leg_id, "from_book": book_key(book),
                         "stream": event.stream, "type": event.type,
                         **({"venue": event.payload["venue"]}
                            if isinstance(event.payload.get("venue"), str) else {})},
                postings=(*postings, *counter),
                gaming_day=event.gaming_day, occurred_at=event.occurred_at)
            parts[other_book].append((leg, index, True))
        parts[book].append((dataclasses.replace(event, postings=tuple(own_postings)), index,
                            False))

    # Versions of streams in books this request writes nothing to: checked
    # under those books' locks, in the same transaction and lock order.
    checks: dict[int, dict[str, int]] = defaultdict(dict)
    for stream, version in expected.items():
        if book_of_stream(stream) not in parts:
            checks[book_of_stream(stream)][stream] = version
    for book in (*parts, *checks):
        if database_for(book) != using:
            raise InvalidEvent(
                "this request spans books on different databases; money between them moves"
                " by a two-phase transfer",
                books=sorted(book_key(b) for b in (*parts, *checks)))
    if len(parts) == 1 and not checks:
        (book,) = parts
        return append(events, book=book, expected_versions=expected,
                      idempotency_key=idempotency_key, metadata=metadata, request=request,
                      report_balances=report_balances)

    # The caller's key is recorded with the part that holds the caller's
    # first event (its events carry the key the caller sent; companions in
    # other books carry `<key>#<book>`).
    key_book = book_of_stream(events[0].stream)
    requests = {}
    for book, entries in parts.items():
        key = None if idempotency_key is None else (
            idempotency_key if book == key_book else part_key(idempotency_key, book))
        requests[book] = _build_request(
            [event for event, _, _ in entries],
            # A companion's stream is written once: a second write of the
            # same leg (a retry racing the first) is refused, never doubled.
            {**{s: v for s, v in expected.items() if book_of_stream(s) == book},
             **{e.stream: 0 for e, _, companion in entries if companion}},
            key, metadata,
            # The key's part keeps the caller's request, so the fingerprint a
            # retry is compared with (`recorded`) is the caller's own.
            request if request is None or book == key_book
            else {"request": request, "book": book},
            [code for code in report_balances if book_of_account(code) == book],
            book)
    clearing_codes = {code for codes in clearing.values() for code in codes}
    if (not checks and not clearing_codes - _open_clearing_accounts
            and not connections[using].in_atomic_block):
        # Every part through the database's group-commit writer, linked:
        # committed together, in a round shared with other requests.
        ordered = sorted(requests)
        try:
            outcomes = _writer(ordered[0], using).submit_linked(
                [requests[book] for book in ordered])
        except DatabaseError as error:
            # A book was moved and this process's directory entry is stale:
            # the old copy refused (it is frozen). Ask the directory again,
            # once, as `append` does; a request now spanning servers is refused.
            if not is_moved_error(error) or _moved_retry:
                raise
            for book in ordered:
                forget_placement(book)
            return _append_once(events, home, book_for_stream, book_for_account, expected,
                                idempotency_key, metadata, request, report_balances,
                                _moved_retry=True)
        for outcome in outcomes:
            if isinstance(outcome, LedgerError):
                raise outcome
        results = dict(zip(ordered, outcomes))
        replayed = any(outcome.replayed for outcome in results.values())
    else:
        results, replayed = _append_in_transaction(requests, checks, clearing, clearing_codes,
                                                   using, metadata)
    if not replayed:
        return _combined(parts, results)
    # Written before under this key: every part was (they commit together).
    found = recorded(idempotency_key, using) if idempotency_key is not None else None
    if found is None:
        raise InvalidEvent("a part of this request is on the record without its keyed part",
                           idempotency_key=idempotency_key)
    return AppendResult(tuple(found[1]), replayed=True)


def _append_in_transaction(requests: Mapping[int, Any], checks: Mapping[int, dict[str, int]],
                           clearing: Mapping[int, set[str]], clearing_codes: set[str],
                           using: str, metadata: Metadata | None
                           ) -> tuple[dict[int, AppendResult], bool]:
    """Write every part in one transaction of the caller's connection (inside the
    caller's, when it has one), opening missing clearing accounts and checking
    versions in books written nothing first; (results by book, replayed)."""
    results: dict[int, AppendResult] = {}
    replayed = False
    with transaction.atomic(using=using):
        missing = _missing_accounts(clearing_codes - _open_clearing_accounts, using)
        if checks:
            # Versions in books written nothing: each book locked in turn, in
            # ascending order, the checks and the parts interleaved.
            for book in sorted({*requests, *checks}):
                if book in checks:
                    _check_versions(book, checks[book], using)
                    continue
                _open_clearing(book, sorted(clearing.get(book, set()) & missing), using,
                               metadata)
                outcome = write_group([requests[book]], using=using)[0]
                if isinstance(outcome, LedgerError):
                    raise outcome
                results[book] = outcome
                if outcome.replayed:
                    replayed = True
                    break
        else:
            for book in sorted(requests):
                _open_clearing(book, sorted(clearing.get(book, set()) & missing), using,
                               metadata)
            # Every part in one round: the books' heads locked in ascending
            # order in one statement, every part's rows in one insert.
            ordered = sorted(requests)
            outcomes = write_books([requests[book] for book in ordered], using=using)
            for book, outcome in zip(ordered, outcomes):
                if isinstance(outcome, LedgerError):
                    raise outcome
            results = dict(zip(ordered, outcomes))
            replayed = any(outcome.replayed for outcome in results.values())
        if replayed:
            # Written before under this key: every part was (they commit
            # together). Answer from the record, write nothing now.
            transaction.set_rollback(True, using=using)
        elif clearing_codes:
            # Open for good once committed (an account is never closed).
            transaction.on_commit(lambda: _open_clearing_accounts.update(clearing_codes),
                                  using=using)
    return results, replayed


def recorded(idempotency_key: str, using: str = "default"
             ) -> tuple[str, list[RecordedEvent]] | None:
    """The fingerprint of a keyed request's keyed part and every part's events."""
    with connections[using].cursor() as cursor:
        cursor.execute(
            "SELECT key, fingerprint, first_position, last_position FROM ledger_idempotency"
            " WHERE key = %s OR key = ANY(SELECT %s || '#' || id FROM ledger_head)"
            " ORDER BY book", [idempotency_key, idempotency_key])
        rows = cursor.fetchall()
    home = [row for row in rows if row[0] == idempotency_key]
    if not home:
        return None
    events: list[RecordedEvent] = []
    for _, _, first, last in rows:
        events.extend(load_events(first, last, using))
    if len(rows) > 1:
        events = _with_balances(events)
    return home[0][1], events


def _with_balances(events: list[RecordedEvent]) -> list[RecordedEvent]:
    """Give events loaded from several books the balances the live append gave them.

    A balance "just after an event" is taken in the event's own book (its
    position means nothing in another); a caller's event then also carries
    its companions' (matched by the stream and type they name), as
    `append_across` returned them. Companions follow their event.
    """
    loaded = [dataclasses.replace(event, balances_after=balances_at(
        dict.fromkeys(p.account for p in event.postings), event.position))
        for event in events]
    sources = [event for event in loaded if event.type != CROSSBOOK_LEG]
    legs = [event for event in loaded if event.type == CROSSBOOK_LEG]
    ordered: list[RecordedEvent] = []
    for source in sources:
        mine = [leg for leg in legs if (leg.payload.get("stream"), leg.payload.get("type"))
                == (source.stream, source.type)]
        for leg in mine:
            legs.remove(leg)
        extra = {code: balance for leg in mine for code, balance in leg.balances_after.items()}
        ordered.append(dataclasses.replace(
            source, balances_after={**extra, **source.balances_after}) if extra else source)
        ordered.extend(mine)
    return list(_as_of(ordered + legs))


def _split_postings(event: NewEvent, book: int, book_of_account: Callable[[str], int]
                    ) -> tuple[list[Posting], dict[tuple[int, str], list[Posting]]]:
    """The event's postings to its own book, and the others by (book, currency)."""
    own: list[Posting] = []
    other: dict[tuple[int, str], list[Posting]] = defaultdict(list)
    for posting in event.postings:
        account_book = book_of_account(posting.account)
        if account_book == book:
            own.append(posting)
        else:
            other[(account_book, posting.currency)].append(posting)
    return own, dict(other)


def _leg_id(key: str | None, index: int, book: int, currency: str) -> str:
    """A companion's id: from the request's key when there is one (a retry
    names the same stream), else unique to this append."""
    if key is None:
        return uuid.uuid4().hex
    digest = hashlib.sha256(f"{key}\x00{index}\x00{book}\x00{currency}".encode()).hexdigest()
    return digest[:32]


def _check_versions(book: int, expected: Mapping[str, int], using: str) -> None:
    """Check stream versions of a book this request writes nothing to, under
    that book's writer lock (its head row), held to the commit like a writer's."""
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT id FROM ledger_head WHERE id = %s FOR UPDATE", [book])
        if cursor.fetchone() is None:
            raise InvalidEvent(f"book {book} is not open", book=book)
        cursor.execute("SELECT name, version, book FROM ledger_stream WHERE name = ANY(%s)",
                       [sorted(expected)])
        found = {name: (version, stream_book) for name, version, stream_book
                 in cursor.fetchall()}
    for stream, version in sorted(expected.items()):
        current, stream_book = found.get(stream, (0, book))
        if stream_book != book:
            raise InvalidEvent(f"stream {stream} belongs to another book", stream=stream,
                               book=stream_book)
        if current != version:
            raise StaleVersion(f"stream {stream} is at version {current}, not {version}",
                               stream=stream, expected_version=version, current_version=current)


def _missing_accounts(codes: set[str], using: str) -> set[str]:
    if not codes:
        return set()
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT code FROM ledger_account WHERE code = ANY(%s)", [sorted(codes)])
        return codes - {row[0] for row in cursor.fetchall()}


def _open_clearing(book: int, codes: Sequence[str], using: str,
                   metadata: Metadata | None) -> None:
    """Open the book's clearing accounts not open yet, in this transaction.

    Appends of their own before the book's part: the posting trigger checks
    accounts as they stood before its statement (ledger.transfers).
    """
    for code in codes:
        try:
            with transaction.atomic(using=using):
                outcome = write_group([_build_request([_opening(code)], None, None, metadata,
                                                      None, (), book)], using=using)[0]
                if isinstance(outcome, LedgerError):
                    raise outcome
        except AccountExists:
            pass  # opened by a concurrent request between the same books


def _combined(parts: Mapping[int, list[tuple[NewEvent, int, bool]]],
              results: Mapping[int, AppendResult]) -> AppendResult:
    """Every part's events in the caller's order, companions after their event.

    The caller's event also reports its companions' balances, so a balance
    it moved is readable wherever the account lives.
    """
    placed: list[tuple[int, bool, RecordedEvent]] = []
    for book, entries in parts.items():
        for (_, index, companion), event in zip(entries, results[book].events):
            placed.append((index, companion, event))
    placed.sort(key=lambda item: (item[0], item[1], item[2].position))
    extra: dict[int, dict[str, int]] = defaultdict(dict)
    for index, companion, event in placed:
        if companion and event.balances_after:
            extra[index].update(event.balances_after)
    merged = [event if companion or not extra.get(index) else dataclasses.replace(
        event, balances_after={**extra[index], **(event.balances_after or {})})
        for index, companion, event in placed]
    return AppendResult(_as_of(merged))


def _as_of(events: Sequence[RecordedEvent]) -> tuple[RecordedEvent, ...]:
    """Give each event the request's position in every other book it wrote, as
    of that event (`RecordedEvent.as_of`): the last of the request's events
    there up to the event and its companions, or just before the request's
    first there. `events` come each followed by its companions."""
    firsts: dict[int, int] = {}
    for event in events:
        firsts[event.book] = min(firsts.get(event.book, event.position), event.position)
    groups: list[list[RecordedEvent]] = []
    for event in events:
        if event.type == CROSSBOOK_LEG and groups:
            groups[-1].append(event)
        else:
            groups.append([event])
    seen: dict[int, int] = {}
    placed: list[RecordedEvent] = []
    for group in groups:
        for event in group:
            seen[event.book] = max(seen.get(event.book, event.position), event.position)
        for event in group:
            as_of = tuple(seen.get(book, first - 1) for book, first in sorted(firsts.items())
                          if book != event.book)
            placed.append(dataclasses.replace(event, as_of=as_of) if as_of else event)
    return tuple(placed)


# The name the package exports (`ledger.recorded_across`): `recorded` of a
# request that may span books.
recorded_across = recorded
