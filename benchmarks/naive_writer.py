"""The naive writer: what a serial, check-free hash-chained append costs here.

The yardstick `ledger_append.py` is held to (issue 13: batch of 100 at least
1.0x naive, single-event commits with 4 writers at least 1.6x naive). On a
throwaway database of its own (casino/throwaway.py) it creates tables like
the ledger's (events: position, stream, type, payload jsonb, prev_hash,
hash; postings; a one-row head) and appends with plain psycopg, each commit:

    SELECT position, hash FROM naive_head WHERE id = 1 FOR UPDATE
    INSERT the events (executemany), INSERT their postings (executemany)
    UPDATE naive_head; COMMIT

with each event's sha256 chained to the previous one in Python. No
idempotency, no stream versions, no balances, no checks, no projections:
the least a correct serial chain costs. Events are ledger_append's shape
(two postings each). Batch of 100 runs with one writer; single-event
commits with 4 writer threads, each on its own connection, all serialized
by the head's row lock.

    python benchmarks/naive_writer.py [--smoke] [--disposable-server HOST:PORT]

`ledger_append.py` imports `measure` and runs it in the same invocation.
Prints one line:
naive_writer: batch100_events_per_s=<n> single4_events_per_s=<n>
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

import django  # noqa: E402

django.setup()

import psycopg  # noqa: E402
from psycopg.types.json import Jsonb  # noqa: E402

from casino import throwaway  # noqa: E402

ACCOUNTS = 20
GENESIS_HASH = "0" * 64
BATCH100_EVENTS = 30_000
SINGLE4_EVENTS = 6_000
SCHEMA_SQL = """
CREATE TABLE naive_event (
    position bigint PRIMARY KEY,
    stream varchar(200) NOT NULL,
    type varchar(100) NOT NULL,
    payload jsonb NOT NULL,
    prev_hash char(64) NOT NULL,
    hash char(64) NOT NULL
);
CREATE TABLE naive_posting (
    position bigint NOT NULL REFERENCES naive_event (position),
    index smallint NOT NULL,
    account varchar(200) NOT NULL,
    amount_minor bigint NOT NULL,
    currency char(3) NOT NULL,
    PRIMARY KEY (position, index)
);
CREATE TABLE naive_head (id smallint PRIMARY KEY, position bigint NOT NULL,
                         hash char(64) NOT NULL);
INSERT INTO naive_head VALUES (1, 0, '""" + GENESIS_HASH + """');
"""


@dataclass(frozen=True)
class Event:
    stream: str
    type: str
    payload: dict
    postings: tuple[tuple[str, int, str], ...]


@dataclass(frozen=True)
class Rates:
    batch100_events_per_s: float
    single4_events_per_s: float


def _events(writer: int, batch: int, serial: int) -> list[Event]:
    """Return one commit's events, shaped as ledger_append's."""
    events = []
    for offset in range(batch):
        n = serial * batch + offset
        amount = 100 + n % 900
        events.append(Event(
            stream=f"bench-stream/{writer}/{n % 50}", type="bench.transferred",
            payload={"amount_minor": amount, "writer": writer},
            postings=((f"bench/{(writer + n + 1) % ACCOUNTS}", amount, "EUR"),
                      (f"bench/{(writer + n) % ACCOUNTS}", -amount, "EUR"))))
    return events


def _connect() -> psycopg.Connection:
    """Open a connection to the throwaway database the settings name now."""
    database = throwaway.configured_database()
    return psycopg.connect(host=database.get("HOST") or None,
                           port=database.get("PORT") or None,
                           user=database.get("USER") or None,
                           password=database.get("PASSWORD") or None,
                           dbname=database["NAME"], prepare_threshold=5)


def _commit(conn: psycopg.Connection, events: list[Event]) -> None:
    """Append one commit's events: head lock, chain, inserts, head update."""
    with conn.transaction(), conn.cursor() as cursor:
        position, digest = cursor.execute(
            "SELECT position, hash FROM naive_head WHERE id = 1 FOR UPDATE").fetchone()
        event_rows = []
        posting_rows = []
        for event in events:
            position += 1
            payload = json.dumps(event.payload, sort_keys=True, separators=(",", ":"))
            prev_hash = digest
            digest = hashlib.sha256(
                f"{prev_hash}|{position}|{event.stream}|{event.type}|{payload}".encode()
            ).hexdigest()
            event_rows.append((position, event.stream, event.type, Jsonb(event.payload),
                               prev_hash, digest))
            posting_rows.extend((position, index, account, amount, currency)
                                for index, (account, amount, currency)
                                in enumerate(event.postings))
        cursor.executemany(
            "INSERT INTO naive_event (position, stream, type, payload, prev_hash, hash)"
            " VALUES (%s, %s, %s, %s, %s, %s)", event_rows)
        cursor.executemany(
            "INSERT INTO naive_posting (position, index, account, amount_minor, currency)"
            " VALUES (%s, %s, %s, %s, %s)", posting_rows)
        cursor.execute("UPDATE naive_head SET position = %s, hash = %s WHERE id = 1",
                       (position, digest))


def _run(writers: int, batch: int, events_total: int) -> float:
    """Return events per second for `writers` threads committing `batch` at a time."""
    commits_per_writer = max(1, events_total // (writers * batch))
    start = threading.Barrier(writers + 1)
    errors: list[BaseException] = []

    def work(writer: int) -> None:
        try:
            prepared = [_events(writer, batch, serial)
                        for serial in range(commits_per_writer)]
            with _connect() as conn:
                start.wait()
                for events in prepared:
                    _commit(conn, events)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
            start.abort()

    threads = [threading.Thread(target=work, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    if errors:
        raise errors[0]
    return writers * commits_per_writer * batch / elapsed


def _check_chain() -> int:
    """Return the event count after checking positions and the chain's links."""
    with _connect() as conn:
        (count, broken) = conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE prev_hash <> lag_hash) FROM ("
            " SELECT prev_hash, lag(hash, 1, %s) OVER (ORDER BY position) AS lag_hash"
            " FROM naive_event) AS chain", (GENESIS_HASH,)).fetchone()
        (head,) = conn.execute("SELECT position FROM naive_head").fetchone()
    if broken or head != count:
        raise RuntimeError(f"naive chain broken: {broken} links, head {head} of {count}")
    return count


def measure(*, scale: float = 1.0, disposable_server: str | None = None) -> Rates:
    """Measure the naive writer on a throwaway database of its own; return its rates.

    `scale` multiplies the event counts (ledger_append's --quick and --smoke).
    """
    with throwaway.throwaway_database("naivewriter", disposable_server=disposable_server,
                                      migrate=False):
        with _connect() as conn:
            conn.execute(SCHEMA_SQL)
            conn.commit()
        batch100 = _run(1, 100, int(BATCH100_EVENTS * scale))
        single4 = _run(4, 1, int(SINGLE4_EVENTS * scale))
        _check_chain()
    return Rates(batch100_events_per_s=batch100, single4_events_per_s=single4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    throwaway.add_arguments(parser)
    args = parser.parse_args()
    rates = measure(scale=0.001 if args.smoke else 1.0,
                    disposable_server=args.disposable_server)
    print(f"naive_writer: batch100_events_per_s={rates.batch100_events_per_s:.0f}"
          f" single4_events_per_s={rates.single4_events_per_s:.0f}")


if __name__ == "__main__":
    main()
