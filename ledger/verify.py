"""Verification of the log, and of everything derived from it.

`verify_chain` walks every event in position order and checks, for each one:
the position is the next integer (no gap, nothing deleted), prev_hash is the
previous event's hash, the stored hash equals the recomputed one (nothing
edited), and the postings sum to zero per currency. Finally the head row must
point at the last event (nothing cut off the end). The first failure is
reported with its position; later positions are not trusted once one link is
broken.

`verify_ledger` (the command's) does that and then checks what the writer
and the readers trust besides the log: every account's balance against the
sum of its postings, and every projection against a rebuild of it into a
scratch schema. Balances are guarded by triggers (migration 0004), but a
superuser with triggers off gets past any trigger; this is what names it.

`verify_ledger(incremental=True)` (`manage.py verify_ledger --incremental`)
starts from the last seal instead (ledger.seals, the file outside the
database is the anchor): the seal file is checked without the database
(signatures, roots); the event at the sealed position must still carry the
sealed hash, content included; then only the events after it are walked
(chain, content, postings) and the balances of the accounts they post to are
recomputed. Its cost follows the new events, not the log. When it passes, the
new events are sealed, so the next run starts from there. A chain rehashed
after an edit, a deleted event, or a cut tail in the sealed part all change
the sealed position's hash and are then located by the full comparison with
the seals (the cost of a full walk only when something is wrong). What the
incremental run cannot see at once is an edit in the sealed part that
leaves every stored hash alone (or a deletion without a rehash), and a
projection other than the balances: the rolling audit (`audit`, N sealed
events re-read per run against the seals) finds the former within
sealed/N runs; the full run (the default), which reads every event and
rebuilds every projection, finds both in one, and a schedule still runs it.

Books (issue 19, ledger.books): each book has its own chain and its own
seal file (ledger.seals). The full run checks every book's seal file
against its live log; the incremental run starts each book from its own
last seal, checks the balances of the accounts that book's new events post
to, and seals each book that passes, whatever another book does. A failure
names the book and the position (`VerifyResult.book`; `bad_position` is the
log's position, which names its book, and the message gives the book's own
number too).

Both walks can be throttled (`rate`, events per second), so a verification
of a large log does not take the database from the writers.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable

from django.db import connection, connections, transaction

from . import projections
from .canonical import GENESIS_HASH, dumps, event_hash, timestamp_text
from .errors import InvariantViolation
from .models import DEBIT_NORMAL_TYPES
from .rebuild import replay_log
from . import store
from .books import MAIN_BOOK, MAIN_BOOK_KEY, BOOK_SPAN, base_position, book_key, book_of
from .store import head

# The clock and the sleep the throttle uses (tests replace them).
_clock = time.monotonic
_sleep = time.sleep

# Where verify rebuilds the projections: the session's temporary schema.
# Every session has its own, so a concurrent run never meets these tables,
# and only this session's tables are ever dropped (always qualified by it).
SCRATCH_SCHEMA = "pg_temp"


@dataclass(frozen=True, slots=True)
class VerifyResult:
    ok: bool
    events: int
    head_position: int
    bad_position: int | None = None
    problem: str = ""
    # Set instead of bad_position when the log is intact but what is derived
    # from it is not: the account whose balance differs, or the projection
    # table that differs from its rebuild.
    account: str | None = None
    table: str | None = None
    # With external seals (ledger.seals): the size of the last seal the log
    # still matches, when a sealed position differs.
    last_good_seal: int | None = None
    sealed: int = 0
    # Events whose content this run recomputed, and (incremental runs) the
    # sealed position it started after.
    read: int = 0
    since: int | None = None
    # Sealed events re-read by the rolling audit of an incremental run.
    audited: int = 0
    # Months were detached (ledger.partitions): the chains start after them,
    # and projections other than the balances were not rebuilt.
    archived: bool = False
    # The key of the book the result is about (None: the whole log), and an
    # incremental run's result for each book (its own seals, in book order).
    book: str | None = None
    books: tuple["VerifyResult", ...] = ()

    def __str__(self) -> str:
        if self.ok:
            if len(self.books) > 1:
                return "verify_ledger: OK (" + " | ".join(
                    f"{result.book}: {result._counts()}" for result in self.books) + ")"
            archived = ("; months archived: chains from the archived heads, projections"
                        " other than the balances not rebuilt" if self.archived else "")
            return f"verify_ledger: OK ({self._counts()}{archived})"
        where = self._where()
        if self.last_good_seal is not None or (self.sealed and self.bad_position):
            return (f"verify_ledger: FAILED at {where}: {self.problem}"
                    f" (last good seal: {self.last_good_seal or 'none'})")
        of_book = (f" of book {self.book}" if self.book not in (None, MAIN_BOOK_KEY) else "")
        if self.account is not None:
            return f"verify_ledger: FAILED at account {self.account}{of_book}: {self.problem}"
        if self.table is not None:
            return f"verify_ledger: FAILED in projection {self.table}: {self.problem}"
        return f"verify_ledger: FAILED at {where}: {self.problem}"

    def _counts(self) -> str:
        sealed = f", {self.sealed} sealed" if self.sealed else ""
        since = (f"; {self.read} read after the seal at {self.since}"
                 if self.since is not None else "")
        if self.audited:
            since += f", {self.audited} sealed re-read"
        return f"{self.events} events{sealed}{since}"

    def _where(self) -> str:
        """The bad position; in a book other than main, also the book's own number."""
        if self.book in (None, MAIN_BOOK_KEY):
            return f"position {self.bad_position}"
        if self.bad_position is None:
            return f"book {self.book}"
        local = self.bad_position - base_position(book_of(self.bad_position))
        return f"position {local} of book {self.book} (log position {self.bad_position})"


class Throttle:
    """Hold a walk to `rate` events per second (None: as fast as it goes)."""

    def __init__(self, rate: float | None) -> None:
        if rate is not None and rate <= 0:
            raise ValueError("the rate is a positive number of events per second")
        self.rate = rate
        self.started = _clock()
        self.events = 0

    @property
    def chunk_events(self) -> int:
        """Chunks of about a second's worth at the rate, so the pauses stay short."""
        if self.rate is None:
            return store.CHUNK_EVENTS_MAX
        return max(1, min(store.CHUNK_EVENTS_MAX, int(self.rate)))

    def done(self, events: int) -> None:
        self.events += events
        if self.rate is None:
            return
        ahead = self.events / self.rate - (_clock() - self.started)
        if ahead > 0:
            _sleep(ahead)


def verify_chain(progress: Callable[[int], None] | None = None, *, after: int = 0,
                 prev_hash: str = GENESIS_HASH, rate: float | None = None,
                 hashes: list[str] | None = None, book: int | None = None,
                 using: str | None = None) -> VerifyResult:
    """Recompute the hash chain of every book (or of `book`); report the first break.

    Each book is its own chain (ledger.books): positions gap-free from the
    book's first, the first event linking to the genesis hash, the book's
    head row at its last event. From the start by default; from position
    `after` of `book`, whose hash is `prev_hash`, when a seal vouches for
    what comes before. `hashes`, when given, receives each verified event's
    chain hash in order (what a seal records). `rate` throttles the walk
    (events per second). Over all books, `events` is the number of events
    in them all and `head_position` the main book's head.
    """
    if book is not None:
        return _verify_book(book, progress, after, prev_hash, rate, hashes, using)
    if after or hashes is not None:
        raise InvariantViolation("a walk from a sealed position names its book")
    events = read = 0
    main_head = 0
    # A book whose oldest months were detached (ledger.partitions) is walked
    # from its last archived event, whose hash the detach recorded.
    archived = _archived_heads(using or "default")
    for book_id in store.heads(**({"using": using} if using else {})):
        start, start_hash = archived.get(book_id, (0, GENESIS_HASH))
        result = _verify_book(book_id, progress, start, start_hash, rate, None, using)
        events, read = events + result.events, read + result.read
        if not result.ok:
            return replace(result, events=events, read=read)
        if book_id == MAIN_BOOK:
            main_head = result.head_position
    return VerifyResult(True, events, main_head, read=read)


def _archived_heads(using: str) -> dict[int, tuple[int, str]]:
    """Each book's last archived position and hash (none before an archive)."""
    from .partitions import archived_heads

    return archived_heads(using=using)


def _verify_book(book: int, progress, after: int, prev_hash: str, rate: float | None,
                 hashes: list[str] | None, using: str | None = None) -> VerifyResult:
    """One book's chain, in its own database (the directory's, unless `using`);
    `events` counts the book's events up to where it stops."""
    if using is None:
        from .placement import database_for

        using = database_for(book)
    base = base_position(book)
    after = max(after, base)
    expected_position = after + 1
    count = 0
    done = after - base   # the book's events before the walk's first
    throttle = Throttle(rate)
    for chunk in _book_chunks(book, throttle.chunk_events, after, using):
        for event in chunk:
            position = event.position
            if position != expected_position:
                return VerifyResult(False, done + count, position, expected_position,
                                    f"position {expected_position} is missing (next is {position})",
                                    read=count)
            if event.prev_hash != prev_hash:
                return VerifyResult(False, done + count, position, position,
                                    "prev_hash does not match the previous event's hash",
                                    read=count)
            recomputed = event_hash(
                prev_hash=prev_hash, position=position, stream=event.stream,
                version=event.version, type=event.type, schema_version=event.schema_version,
                payload_json=dumps(event.payload), metadata_json=dumps(event.metadata),
                idempotency_key=event.idempotency_key,
                occurred_at_text=timestamp_text(event.occurred_at),
                recorded_at_text=timestamp_text(event.recorded_at), gaming_day=event.gaming_day,
                postings=[(p.account, p.amount_minor, p.currency) for p in event.postings],
            )
            if recomputed != event.hash:
                return VerifyResult(False, done + count, position, position,
                                    "content does not match its hash (the event was altered)",
                                    read=count)
            totals: dict[str, int] = defaultdict(int)
            for posting in event.postings:
                totals[posting.currency] += posting.amount_minor
            if any(totals.values()):
                return VerifyResult(False, done + count, position, position,
                                    "postings do not sum to zero per currency", read=count)
            if hashes is not None:
                hashes.append(recomputed)
            prev_hash = event.hash
            expected_position += 1
            count += 1
        if progress is not None:
            progress(len(chunk))
        throttle.done(len(chunk))
    head_position, head_hash = head(book, using)
    last = after + count
    if head_position != last or head_hash != prev_hash:
        return VerifyResult(False, last - base, head_position, last + 1,
                            f"the head says position {head_position} but the log ends at {last}",
                            read=count)
    return VerifyResult(True, last - base, head_position, read=count)


def _book_chunks(book: int, chunk_events: int, after: int, using: str):
    """Yield one book's events after `after` in position order, chunk by chunk."""
    while True:
        chunk = store.load_book_events_after(book, after, chunk_events, using)
        if not chunk:
            return
        yield chunk
        after = chunk[-1].position


def verify_ledger(progress: Callable[[int], None] | None = None, *,
                  incremental: bool = False, rate: float | None = None,
                  audit: int = 0, using: str = "default") -> VerifyResult:
    """Verify the chain, then every balance, then every projection.

    The chain first (L8): if it is broken, nothing derived from it is
    checked. Then each account's balance is recomputed from the postings in
    one GROUP BY and compared with `ledger_account` (L4). Then every
    registered projection is rebuilt into scratch tables and compared with
    its live table row by row (L9). The first difference is reported: the
    position, the account (stored and recomputed balance) or the table and
    row (its key and the columns that differ).

    `incremental`: each book from its last seal instead (see the module
    docstring); it seals what it verified; `audit` more sealed events of
    each book are re-read each run, a rolling window over the sealed part
    (ledger.seals.audit_sealed). `rate`: at most that many events a second.
    `using`: the database alias of the seals' connection (placement).

    One snapshot serves all three (REPEATABLE READ when this call opens the
    transaction), so appends committing meanwhile neither wait nor skew the
    comparison. The incremental run takes its books' sealers' locks before
    that snapshot, so a seal another sealer appended is always within it.
    Nothing is written to the database: the scratch tables are
    dropped and the transaction rolled back. Run it in a process of its own,
    as the command does: the rebuild goes through the registered projection
    objects, which a writer thread of the same process may be using at the
    same time.
    """
    if incremental:
        from . import seals

        seal_file, key_file = seals.settings_paths(using)
        if seal_file is not None and key_file is not None:
            # Each book where the directory places it (ledger.seals.placed_refs).
            books = _sealed_books(using)
            with seals.locked_books([ref for ref, _ in books], using):
                return _in_snapshot(lambda: _verify_from_last_seal(
                    progress, rate, audit, books=books, using=using), using)
    return _in_snapshot(lambda: _verify_everything(progress, rate, using), using)


def _in_snapshot(run: Callable[[], VerifyResult], using: str) -> VerifyResult:
    """Run `run` in one REPEATABLE READ transaction (or the caller's), rolled back."""
    database = connections[using]
    outermost = not database.in_atomic_block
    with transaction.atomic(using=using):
        if outermost:
            with database.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        result = run()
        transaction.set_rollback(True, using=using)
    return result


def _verify_everything(progress, rate, using: str = "default") -> VerifyResult:
    # The external seals first (ledger.seals), every book's: they name the
    # first sealed position that differs even where the chain was
    # recomputed or its tail cut and the head moved back, which the chain
    # alone cannot see.
    sealed = _verify_seals(using)
    if sealed is not None and not sealed.ok:
        return _sealed_failure(sealed, using=using)
    result = verify_chain(progress, rate=rate)
    if not result.ok and result.bad_position is not None:
        result = replace(result, book=book_key(book_of(result.bad_position)))
    if result.ok and using == "default":
        result = _verify_placed_elsewhere(result)
    if result.ok and _archived_heads(using):
        # A rebuild needs every event, and the archived months' are not
        # here: the balances are checked against the archive's sums, the
        # other projections only after the months are restored.
        result = _verify_balances(result) or replace(result, archived=True)
    elif result.ok:
        result = _verify_balances(result) or _verify_projections(result) or result
    if sealed is not None:
        result = replace(result, sealed=sealed.sealed_size)
    return result


def _verify_placed_elsewhere(chain: VerifyResult) -> VerifyResult:
    """The chains of the books the directory places on other servers, each in
    its own database (ledger.placement); the first failure, naming its book."""
    from .placement import placed_books

    for book, key, database in placed_books():
        if database == "default":
            continue
        placed = verify_chain(book=book, using=database)
        if not placed.ok:
            return replace(placed, book=key, events=chain.events + placed.events)
        chain = replace(chain, events=chain.events + placed.events, read=chain.read + placed.read)
    return chain


def _sealed_books(using: str) -> list:
    """(book, database) of every book the seals of `using` cover: with the
    directory's alias, every book where the directory places it; else the
    books `using` holds (ledger.seals)."""
    from . import seals

    if using == seals.DIRECTORY:
        return seals.placed_refs()
    return [(ref, using) for ref in seals.open_books(using)]


def _sealed_failure(failed, *, using: str, book=None, **fields) -> VerifyResult:
    """A seal check's failure (ledger.seals.SealCheck, in the book's own
    positions) as a VerifyResult at the log's position, naming the book.

    The book is looked up where the directory places it (`using` being the
    directory's alias), so a book on another server has its position too.
    """
    from . import seals

    key = failed.book or MAIN_BOOK_KEY
    try:
        if book is not None:
            ref = book
        else:
            ref, using = seals.locate_book(key, using)
    except ValueError:   # a book the database no longer has
        ref = None
    position = (None if ref is None or failed.bad_position is None
                else ref.base + failed.bad_position)
    head_position = head()[0] if ref is None else head(ref.id, using=using)[0]
    return VerifyResult(False, 0, head_position, position, failed.problem,
                        last_good_seal=failed.last_good_seal, sealed=failed.sealed_size,
                        book=key, **fields)


def _verify_from_last_seal(progress, rate, audit: int = 0, *, books=None,
                           using: str = "default") -> VerifyResult:
    """The incremental run: for each book, its seal file, its sealed position,
    then its new events and the balances they move; then each book that
    passed is sealed.

    Call it holding the books' sealers' locks (verify_ledger takes them).
    Without a configured seal file it is the full run (nothing to start
    from, nowhere to record). While no book has a seal yet it walks
    everything, rebuilds the projections too, and writes the first seals.
    A book that fails is not sealed and is the result; the others are
    still sealed (`books` of the result has each book's).
    """
    from . import seals

    seal_file, key_file = seals.settings_paths(using)
    if seal_file is None or key_file is None:
        return _verify_everything(progress, rate, using)
    if books is None:
        books = _sealed_books(using)
    results: list[VerifyResult] = []
    passed = []      # (book, its seal file, its seals, recorded hashes, new hashes)
    any_sealed = False
    for ref, database in books:     # each book read in its own database
        book_file = seals.book_path(seal_file, ref.key)
        sealed, recorded, broken = seals.load_sealed(book_file, key_file, ref.key)
        since = len(recorded)
        any_sealed = any_sealed or since > 0
        failed = broken or seals.check_anchor(recorded, sealed, ref, database)
        audited = 0
        if failed is None:
            failed, audited = seals.audit_sealed(recorded, sealed, book_file, audit, ref,
                                                 database)
        if failed is not None:
            results.append(_sealed_failure(failed, using=database, book=ref, since=since,
                                           audited=audited))
            continue
        new: list[str] = []
        result = verify_chain(progress, after=ref.base + since,
                              prev_hash=recorded[-1] if recorded else GENESIS_HASH,
                              rate=rate, hashes=new, book=ref.id, using=database)
        result = replace(result, sealed=since, since=since, book=ref.key, audited=audited)
        if not result.ok:
            results.append(replace(result, last_good_seal=sealed[-1]["tree_size"]
                                   if sealed else None))
            continue
        # With no seal yet, every account of the book, posted to or not.
        failed_balance = _verify_balances(result, after=ref.base + since if since else None,
                                          book=ref.id, using=database)
        if failed_balance is not None:
            results.append(replace(failed_balance, book=ref.key, since=since, sealed=since,
                                   read=result.read))
            continue
        passed.append((ref, book_file, sealed, recorded, new))
        results.append(replace(result, sealed=since + len(new)))
    missing = {}     # each failure once, though every database's walk finds the seal files
    for database in sorted({database for _, database in books} | {using}):
        held = [ref for ref, alias in books if alias == database]
        for gone in seals.missing_books(seal_file, held, database):
            missing.setdefault((gone.book, gone.problem), gone)
    results += [_sealed_failure(gone, using=using) for gone in missing.values()]
    if not any_sealed and all(result.ok for result in results):
        # No seal anywhere yet: this is the full run, projections included.
        failed_projection = _verify_projections(_combined(results))
        if failed_projection is not None:
            return failed_projection
    for ref, book_file, sealed, recorded, new in passed:
        seals.seal_new(seal_file=book_file, key_file=key_file, seals=sealed,
                       recorded=recorded, new=new, book=ref.key)
    return _combined(results)


def _combined(results: list[VerifyResult]) -> VerifyResult:
    """The books' results as one: the first failure (in book order), else the
    sum over the books (the main book's head and `since`); `books` keeps each."""
    per_book = tuple(results)
    failure = next((result for result in results if not result.ok), None)
    if failure is not None:
        return replace(failure, books=per_book)
    main = next((result for result in results if result.book == MAIN_BOOK_KEY), results[0])
    if len(results) == 1:
        return replace(main, book=None, books=per_book)
    return VerifyResult(True, sum(r.events for r in results), main.head_position,
                        read=sum(r.read for r in results), since=main.since,
                        sealed=sum(r.sealed for r in results),
                        audited=sum(r.audited for r in results), books=per_book)


def _verify_seals(using: str = "default"):
    from .seals import verify_seals

    return verify_seals(using)


def _verify_balances(chain: VerifyResult, after: int | None = None,
                     book: int | None = None, using: str = "default") -> VerifyResult | None:
    """Name the first account (by code) whose balance is not its postings' sum.

    Every account (of `book`, when given); with `after` (a position of
    `book`), only the accounts the book's events after it post to (each
    still summed over all its postings). In the database `using`.
    """
    debit_normal = ", ".join(f"'{t}'" for t in sorted(DEBIT_NORMAL_TYPES))
    natural = (f"CASE WHEN a.type IN ({debit_normal}) THEN coalesce(r.debit_minor, 0)"
               " ELSE -coalesce(r.debit_minor, 0) END")
    with connections[using].cursor() as cursor:
        if after is None:
            of_book = "" if book is None else " WHERE book = %s"
            # Archived months (ledger.partitions) count by their recorded sums.
            cursor.execute(
                "WITH recomputed AS ("
                " SELECT account_id AS code, sum(amount_minor) AS debit_minor FROM ("
                f"  SELECT account_id, amount_minor FROM ledger_posting{of_book}"
                "  UNION ALL SELECT account_id, debit_minor FROM ledger_archived_balance"
                f"{of_book}) AS all_postings GROUP BY account_id)"
                f" SELECT coalesce(a.code, r.code), a.balance_minor, {natural}"
                f" FROM (SELECT * FROM ledger_account{of_book}) AS a"
                " FULL JOIN recomputed AS r ON r.code = a.code"
                f" WHERE a.code IS NULL OR a.balance_minor <> {natural}"
                " ORDER BY 1 LIMIT 1",
                [] if book is None else [book, book, book],
            )
        else:
            # The book's range of positions bounds the new postings, so the
            # postings' primary key serves the read (ledger.books).
            last = (book_of(after + 1) if book is None else book) * BOOK_SPAN
            cursor.execute(
                "WITH touched AS (SELECT DISTINCT account_id AS code FROM ledger_posting"
                " WHERE event_id > %s AND event_id <= %s),"
                " recomputed AS (SELECT p.account_id AS code, sum(p.amount_minor) AS debit_minor"
                " FROM ledger_posting AS p JOIN touched AS t ON t.code = p.account_id"
                " GROUP BY p.account_id)"
                f" SELECT r.code, a.balance_minor, {natural}"
                " FROM recomputed AS r LEFT JOIN ledger_account AS a ON a.code = r.code"
                f" WHERE a.code IS NULL OR a.balance_minor <> {natural}"
                " ORDER BY 1 LIMIT 1",
                [after, last],
            )
        row = cursor.fetchone()
    if row is None:
        return None
    code, stored, recomputed = row
    if stored is None:
        problem = "postings name this account but ledger_account has no row for it"
    else:
        problem = f"stored balance {stored}, recomputed from the postings {int(recomputed)}"
    return VerifyResult(False, chain.events, chain.head_position, account=code, problem=problem)


def _verify_projections(chain: VerifyResult) -> VerifyResult | None:
    """Rebuild every projection into scratch tables; name the first difference.

    The scratch tables are temporary tables (the session's own `pg_temp`
    schema), so verification needs no CREATE on the database: the
    least-privilege runtime role (casino/dbroles.py) runs it with the
    TEMPORARY privilege alone.
    """
    tables = projections.projection_tables()
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('search_path'), n.nspname"
            " FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace"
            " WHERE c.oid = 'ledger_event'::regclass"
        )
        search_path, live = cursor.fetchone()
        if live.startswith("pg_temp"):
            raise InvariantViolation(f"refusing to rebuild beside the log: it is in {live}")
        try:
            # A savepoint: a failed comparison must leave the transaction
            # usable for the DROP below.
            with transaction.atomic():
                failure = _rebuild_into(cursor, SCRATCH_SCHEMA, live, tables, search_path)
                if failure is not None:
                    where, problem = failure
                    return VerifyResult(False, chain.events, chain.head_position,
                                        table=where.removeprefix("projection "),
                                        problem=problem)
                for table in tables:
                    problem = _first_row_difference(cursor, live, SCRATCH_SCHEMA, table)
                    if problem is not None:
                        return VerifyResult(False, chain.events, chain.head_position,
                                            table=table, problem=problem)
        finally:
            for table in tables:
                cursor.execute(f"DROP TABLE IF EXISTS {SCRATCH_SCHEMA}.{quote(table)}")
    return None


def _rebuild_into(cursor, scratch: str, live: str, tables: list[str],
                  search_path: str) -> tuple[str, str] | None:
    """Create the projection tables in `scratch` and replay the log into them.

    The search_path puts the scratch schema first, so every projection's
    reset and replay (ORM or SQL, unqualified names) lands there, while the
    log and every table that is not a projection are read from the live
    schema. Copies take the columns, defaults, CHECKs and indexes (ON
    CONFLICT needs the unique ones), never triggers or foreign keys. Returns
    (what, why) if the rebuild itself fails, as it does when a live balance
    has paid out money the postings never held.
    """
    quote = connection.ops.quote_name
    try:
        with transaction.atomic():
            cursor.execute("SELECT set_config('search_path', %s, true)",
                           [f"{scratch}, {quote(live)}"])
            for table in tables:
                cursor.execute(f"DROP TABLE IF EXISTS {scratch}.{quote(table)}")
                cursor.execute(f"CREATE TABLE {scratch}.{quote(table)}"
                               f" (LIKE {quote(live)}.{quote(table)} INCLUDING ALL)")
            replay_log()
            cursor.execute("SELECT set_config('search_path', %s, true)", [search_path])
    except Exception as error:  # noqa: BLE001 - a rebuild that fails is the finding
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        where = next((note for note in getattr(error, "__notes__", ())
                      if note.startswith("projection ")), "the rebuild")
        return where, f"cannot be rebuilt from the log: {type(error).__name__}: {reason}"
    return None


def _first_row_difference(cursor, live: str, scratch: str, table: str) -> str | None:
    """Compare one table with its rebuild; describe the first differing row."""
    quote = connection.ops.quote_name
    live_table = f"{quote(live)}.{quote(table)}"
    scratch_table = f"{scratch}.{quote(table)}"
    cursor.execute(
        "SELECT a.attname FROM pg_index AS i"
        " JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)"
        " WHERE i.indrelid = %s::regclass AND i.indisprimary"
        " ORDER BY array_position(i.indkey::int2[], a.attnum)",
        [live_table],
    )
    key = [row[0] for row in cursor.fetchall()]
    if not key:  # every projection has a primary key; without one, the whole row
        cursor.execute(
            "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass"
            " AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
            [live_table],
        )
        key = [row[0] for row in cursor.fetchall()]
    key_sql = ", ".join(quote(column) for column in key)
    cursor.execute(
        f"WITH first_key AS (SELECT {key_sql} FROM ("
        f" (SELECT * FROM {live_table} EXCEPT SELECT * FROM {scratch_table})"
        f" UNION ALL (SELECT * FROM {scratch_table} EXCEPT SELECT * FROM {live_table})"
        f" ) AS differing ORDER BY {key_sql} LIMIT 1)"
        f" SELECT 'live', to_json(l) FROM {live_table} AS l JOIN first_key USING ({key_sql})"
        f" UNION ALL"
        f" SELECT 'rebuilt', to_json(r) FROM {scratch_table} AS r"
        f" JOIN first_key USING ({key_sql})"
    )
    rows: dict[str, dict[str, Any]] = {
        side: json.loads(row) if isinstance(row, str) else row for side, row in cursor.fetchall()
    }
    if not rows:
        return None
    some_row = rows.get("live") or rows["rebuilt"]
    where = ", ".join(f"{column}={some_row[column]!r}" for column in key)
    if "rebuilt" not in rows:
        return f"row {where} is in the live table but not in the rebuild"
    if "live" not in rows:
        return f"row {where} is in the rebuild but not in the live table"
    live_row, rebuilt_row = rows["live"], rows["rebuilt"]
    changed = [column for column in live_row if live_row[column] != rebuilt_row[column]]
    return f"row {where} differs: " + "; ".join(
        f"{column} live {live_row[column]!r}, rebuilt {rebuilt_row[column]!r}"
        for column in changed
    )
