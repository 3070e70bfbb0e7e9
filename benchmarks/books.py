"""Throughput of appends to one book against four books (issue 19, point 8).

Four writer threads on one server append single-event appends, each event
a small transfer with two postings (benchmarks/ledger_append.py's shape).
First all four append to ONE book, then each thread to a book of its own
(four books); the same event shape and count. The ratio four/one says how
much books buy: within one book every append waits for the book's writer
lock, held through the commit's disk flush; appends to different books take
different head rows and commit in parallel (ledger/writer.py).

Two variants, each measured one book then four:

- own transaction (the figure of the issue): every append runs in the
  thread's own `transaction.atomic()` on the thread's own connection, so it
  holds its book's lock from its first statement through its commit;
- group commit: plain `append(...)` from the four threads, handed to the
  writer thread of the database (one per database, whatever its books),
  which commits what is waiting, of every book, in one transaction. Its
  rows say how many requests and how many books shared each commit on
  average (the writer's `ledger_group_size` and `ledger_group_books`
  histograms over the phase).

Runs on a throwaway database (casino/throwaway.py), as the owner role:
opening a book is the tables' owner's. Each thread warms up (its
connection prepares the hot statements) before a shared start signal; only
what follows the signal is timed. Each book's chain is verified afterwards.

Books placed on several servers (issue 19, point 4) are measured by
`measure_servers`, given one database alias per server; `--servers 3` runs
it once `ledger.placement` exists, and only then prints its figure, on the
default server and two disposable ones started beside it
(`three_server_aliases`, placement's harness tests/placement/servers.py).

    python benchmarks/books.py [--quick] [--smoke] [--rounds N] [--servers 3]
                               [--disposable-server HOST:PORT]

Prints a table, then one line:
books: one_book_events_per_s=<n> four_books_events_per_s=<n> ratio=<r>
       group_one_book_events_per_s=<n> group_four_books_events_per_s=<n>
       group_ratio=<r> [three_servers_events_per_s=<n>]
(the first three: own transaction; each figure the median of the rounds.)
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.util
import os
import statistics
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

import django  # noqa: E402

django.setup()

from django.db import connections, transaction  # noqa: E402

from casino import throwaway  # noqa: E402

from ledger import NewEvent, Posting, append, open_account, verify_chain  # noqa: E402
from ledger.books import book_id, open_book  # noqa: E402
from ledger.writer import GROUP_BOOKS, GROUP_SIZE, stop_writer  # noqa: E402

WRITERS = 4
ACCOUNTS_PER_BOOK = 20
STREAMS_PER_WRITER = 50
EVENTS_PER_PHASE = 4_000
WARM_UP_APPENDS = 20
ROUNDS_MAX = 20
GAMING_DAY = dt.date(2026, 6, 16)  # money carries its business day
THREE_SERVERS = 3
WAIT_SAMPLE_SECONDS = 0.005
WAITS_SHOWN_MAX = 6


@dataclass(frozen=True, slots=True)
class Phase:
    """One timed run: which book each writer appends to, and how."""

    name: str
    books: tuple[str, ...]  # one book key per writer
    own_transaction: bool


def _account(book: str, index: int) -> str:
    return f"{book}/{index % ACCOUNTS_PER_BOOK}"


def _event(book: str, writer: int, serial: int) -> NewEvent:
    """One transfer between two of the book's accounts: the same shape in every phase."""
    amount = 100 + serial % 900
    return NewEvent(
        stream=f"{book}-stream/{writer}/{serial % STREAMS_PER_WRITER}",
        type="bench.transferred",
        payload={"amount_minor": amount, "writer": writer},
        postings=(Posting(_account(book, writer + serial + 1), amount, "EUR"),
                  Posting(_account(book, writer + serial), -amount, "EUR")),
        gaming_day=GAMING_DAY,
    )


def _placement():
    """Return `ledger.placement` (the directory of books to databases), or None
    while the ledger has none (issue 19 point 4)."""
    if importlib.util.find_spec("ledger.placement") is None:
        return None
    return importlib.import_module("ledger.placement")


def database_for(book: str) -> str:
    """Return the alias of the database that holds `book` ("default" without placement)."""
    placement = _placement()
    return "default" if placement is None else placement.database_for(book)


def open_books(keys: Sequence[str], *, using: str = "default") -> None:
    """Open each book in the database `using`, with its accounts.

    Through the directory when the ledger has one (`place_book`); without
    it every book is in the default database. Unguarded asset accounts: the
    benchmark measures the append path, not refusals.
    """
    placement = _placement()
    if placement is None and using != "default":
        raise RuntimeError("books outside the default database need ledger.placement")
    for key in keys:
        if placement is None:
            open_book(key)
        else:
            placement.place_book(key, using)
        for index in range(ACCOUNTS_PER_BOOK):
            open_account(code=_account(key, index), type="asset", currency="EUR", book=key)


def run_phase(phase: Phase, events_per_writer: int, *, serial_start: int,
              using: Sequence[str] | None = None) -> float:
    """Return events per second of one phase, from the start signal to the last commit.

    Writer w appends to phase.books[w] in database using[w] (the default
    database for every writer unless given), on its own connection; it
    appends WARM_UP_APPENDS events before the signal (untimed), then
    `events_per_writer` single-event appends.
    """
    writers = len(phase.books)
    using = tuple(using or ("default",) * writers)
    if len(using) != writers:
        raise ValueError("one database alias per writer")
    start = threading.Barrier(writers + 1)
    errors: list[BaseException] = []

    def append_one(book: str, writer: int, serial: int) -> None:
        event = _event(book, writer, serial)
        if phase.own_transaction:
            with transaction.atomic(using=using[writer]):
                append([event], book=book)
        else:
            append([event], book=book)

    def work(writer: int) -> None:
        book = phase.books[writer]
        book_id(book)  # resolved once, before the clock runs
        try:
            for serial in range(serial_start, serial_start + WARM_UP_APPENDS):
                append_one(book, writer, serial)
            start.wait()
            for serial in range(serial_start + WARM_UP_APPENDS,
                                serial_start + WARM_UP_APPENDS + events_per_writer):
                append_one(book, writer, serial)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
            start.abort()
        finally:
            connections[using[writer]].close()

    threads = [threading.Thread(target=work, args=(w,), name=f"bench-writer-{w}")
               for w in range(writers)]
    for thread in threads:
        thread.start()
    try:
        start.wait()
    except threading.BrokenBarrierError:
        pass
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    if errors:
        raise errors[0]
    return writers * events_per_writer / elapsed


def measure_servers(aliases: Sequence[str], events_per_writer: int) -> float:
    """Return events per second with the four writers' books spread over `aliases`.

    The three-server figure's hook (issue 19 points 4 and 8): writer w
    appends to a book of its own placed in aliases[w % len(aliases)], each
    append in its own transaction on that database, as the four-books phase
    does on one server. Every alias must name a migrated database that holds
    the ledger's tables; the writer appends to each book's database by itself.
    """
    if _placement() is None:
        raise RuntimeError("books on several servers need ledger.placement")
    keys = tuple(f"spread{writer}" for writer in range(WRITERS))
    for writer, key in enumerate(keys):
        open_books((key,), using=aliases[writer % len(aliases)])
    phase = Phase("spread", keys, own_transaction=True)
    rate = run_phase(phase, events_per_writer, serial_start=0,
                     using=[database_for(key) for key in keys])
    verify_books(keys)
    return rate


@contextmanager
def sampled_waits(using: str = "default") -> Iterator[Counter]:
    """Count what the database's client backends are doing, sampled every 5 ms.

    Yields a Counter, filled when the block ends, of labels such as
    "Lock:transactionid" (waiting for another transaction's row lock: the
    book's head), "IO:WALSync" (flushing a commit), "LWLock:WALWrite"
    (waiting for another backend's flush), "cpu" (active, not waiting),
    "client in transaction" (a transaction open, waiting for Python) and
    "client idle" (between transactions, waiting for Python).
    """
    import psycopg

    database = connections[using].settings_dict
    counts: Counter = Counter()
    stop = threading.Event()

    def sample() -> None:
        with psycopg.connect(host=database.get("HOST") or None,
                             port=database.get("PORT") or None,
                             user=database.get("USER") or None,
                             password=database.get("PASSWORD") or None,
                             dbname=database["NAME"], autocommit=True) as sampler:
            while not stop.is_set():
                for state, kind, event in sampler.execute(
                        "SELECT state, wait_event_type, wait_event FROM pg_stat_activity"
                        " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                        " AND backend_type = 'client backend'"):
                    if kind == "Client":
                        counts["client in transaction" if state.startswith("idle in")
                               else "client idle"] += 1
                    elif kind is None:
                        counts["cpu"] += 1
                    else:
                        counts[f"{kind}:{event}"] += 1
                stop.wait(WAIT_SAMPLE_SECONDS)

    sampler = threading.Thread(target=sample, name="bench-wait-sampler")
    sampler.start()
    try:
        yield counts
    finally:
        stop.set()
        sampler.join()


def _histogram_totals(histogram) -> tuple[float, float]:
    """Return (observations, sum of observed values) of a prometheus histogram."""
    samples = {sample.name: sample.value for sample in histogram.collect()[0].samples
               if sample.name.endswith(("_count", "_sum"))}
    count = next(v for name, v in samples.items() if name.endswith("_count"))
    total = next(v for name, v in samples.items() if name.endswith("_sum"))
    return count, total


def _per_commit_text(before: tuple, after: tuple) -> str:
    """Say how many requests and books the group writer committed together on average."""
    (size_count, size_sum), (books_count, books_sum) = before
    (size_count_after, size_sum_after), (books_count_after, books_sum_after) = after
    commits = size_count_after - size_count
    if not commits:
        return ""
    return (f"  per commit: {(size_sum_after - size_sum) / commits:.1f} requests,"
            f" {(books_sum_after - books_sum) / (books_count_after - books_count):.1f} books")


def _waits_text(counts: Counter) -> str:
    total = sum(counts.values()) or 1
    return ", ".join(f"{label} {count / total:.0%}"
                     for label, count in counts.most_common(WAITS_SHOWN_MAX))


def verify_books(keys: Sequence[str]) -> int:
    """Verify each book's chain where it lives; return the events they hold together."""
    events = 0
    for key in keys:
        using = database_for(key)
        # Without placement verify_chain reads the default database only.
        where = {} if using == "default" else {"using": using}
        result = verify_chain(book=book_id(key), **where)
        if not result.ok:
            raise RuntimeError(f"book {key}: chain broken: {result}")
        events += result.events
    return events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the events")
    parser.add_argument("--rounds", type=int, default=None,
                        help="measure each phase this many times, alternating; report"
                             " medians (default 3, 1 with --smoke)")
    parser.add_argument("--waits", action="store_true",
                        help="sample pg_stat_activity during each phase and print where"
                             " the writers' backends wait (costs a little CPU)")
    parser.add_argument("--servers", type=int, default=1, choices=(1, THREE_SERVERS),
                        help="also measure books on three servers (once ledger.placement"
                             " exists)")
    throwaway.add_arguments(parser)
    args = parser.parse_args()
    events_total = 50 if args.smoke else EVENTS_PER_PHASE // 10 if args.quick \
        else EVENTS_PER_PHASE
    rounds = args.rounds or (1 if args.smoke else 3)
    if not 1 <= rounds <= ROUNDS_MAX:
        parser.error(f"--rounds is 1 to {ROUNDS_MAX}")
    events_per_writer = max(1, events_total // WRITERS)

    one = ("one",) * WRITERS
    four = tuple(f"book{writer}" for writer in range(WRITERS))
    phases = [
        Phase("one book", one, own_transaction=True),
        Phase("four books", four, own_transaction=True),
        Phase("one book", one, own_transaction=False),
        Phase("four books", four, own_transaction=False),
    ]
    rates: dict[tuple[str, bool], list[float]] = {
        (phase.name, phase.own_transaction): [] for phase in phases}
    spread = None
    with throwaway.throwaway_database("books", disposable_server=args.disposable_server):
        open_books(("one", *four))
        print(f"{'mode':<16} {'books':>5} {'writers':>7} {'round':>5} {'events/s':>10}")
        serial = 0
        for round_number in range(1, rounds + 1):
            for phase in phases:
                # Only the phase's connections are open while it runs: this
                # thread's and the previous phase's writer threads' are closed
                # (the writers start again, and warm up, on first use).
                stop_writer()
                connections.close_all()
                groups_before = (_histogram_totals(GROUP_SIZE), _histogram_totals(GROUP_BOOKS))
                with sampled_waits() if args.waits else nullcontext(Counter()) as waits:
                    rate = run_phase(phase, events_per_writer, serial_start=serial)
                groups_after = (_histogram_totals(GROUP_SIZE), _histogram_totals(GROUP_BOOKS))
                rates[(phase.name, phase.own_transaction)].append(rate)
                mode = "own transaction" if phase.own_transaction else "group commit"
                print(f"{mode:<16} {len(set(phase.books)):>5} {WRITERS:>7}"
                      f" {round_number:>5} {rate:>10,.0f}"
                      + _per_commit_text(groups_before, groups_after)
                      + (f"  waits: {_waits_text(waits)}" if args.waits else ""), flush=True)
            serial += WARM_UP_APPENDS + events_per_writer
        stop_writer()
        expected = len(phases) * rounds * WRITERS * (WARM_UP_APPENDS + events_per_writer)
        verified = verify_books(("one", *four))
        if verified != expected + (1 + len(four)) * ACCOUNTS_PER_BOOK:
            raise RuntimeError(f"{verified} events in the books, expected {expected} more"
                               " than the accounts' openings")
        if args.servers == THREE_SERVERS and importlib.util.find_spec("ledger.placement"):
            with three_server_aliases() as aliases:
                spread = measure_servers(aliases, events_per_writer)

    one_rate = statistics.median(rates[("one book", True)])
    four_rate = statistics.median(rates[("four books", True)])
    group_one = statistics.median(rates[("one book", False)])
    group_four = statistics.median(rates[("four books", False)])
    line = (
        "books:"
        f" one_book_events_per_s={one_rate:.0f}"
        f" four_books_events_per_s={four_rate:.0f}"
        f" ratio={four_rate / one_rate:.2f}"
        f" group_one_book_events_per_s={group_one:.0f}"
        f" group_four_books_events_per_s={group_four:.0f}"
        f" group_ratio={group_four / group_one:.2f}"
    )
    if spread is not None:
        line += f" three_servers_events_per_s={spread:.0f}"
    print(line)


@contextmanager
def three_server_aliases() -> Iterator[list[str]]:
    """Yield one database alias on each of three servers: the default one and two
    disposable servers started beside it for the measure.

    The two are placement's three-server harness (tests/placement/servers.py):
    embedded PostgreSQL servers in folders under /tmp, each database migrated
    with the ledger's tables only, registered as aliases `server2` and
    `server3`, stopped and deleted afterwards. Never the book databases the
    settings name (CASINO_BOOK_DATABASE_URLS): they are not throwaways.
    """
    from tests.placement.servers import book_servers

    with book_servers(("server2", "server3")) as servers:
        try:
            yield ["default", *(server.alias for server in servers)]
        finally:
            stop_writer()      # its threads hold connections to the servers


if __name__ == "__main__":
    main()
