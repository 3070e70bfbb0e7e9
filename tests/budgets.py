"""A write's statements, counted as a running server spends them (the budget tests).

A budget counts what one request costs the database: authentication, the
reads, the append, the projections and the commit. A test runs inside its
own transaction, so two things differ from a server and are put right here:

- the commit is not captured: it is added as one (`COMMIT`);
- a write across books (ledger.crossbook: a venue's book and the main one)
  opens a transaction of its own, which inside the test's transaction is a
  savepoint. Its `SAVEPOINT` stands for the `BEGIN` a server's transaction
  starts with, which is not counted on any path, and its `RELEASE SAVEPOINT`
  for the commit, counted once as `COMMIT`.

Caches a server fills once and then keeps (a venue's book, clearing accounts
known open) are filled only when a transaction commits, which a test's never
does: the warm-up runs under `warm()`, which runs the commit callbacks.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from django.db import connection
from django.test import TestCase
from django.test.utils import CaptureQueriesContext

COMMIT = 1
_SAVEPOINT = re.compile(r'^\s*SAVEPOINT\s+("[^"]+"|\S+)\s*$', re.IGNORECASE)
_RELEASE = re.compile(r'^\s*RELEASE\s+SAVEPOINT\s+("[^"]+"|\S+)\s*$', re.IGNORECASE)


@contextmanager
def warm() -> Iterator[None]:
    """Run a warm-up request as if its transaction had committed (its on-commit callbacks run)."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        yield


def statements(queries: list[dict[str, Any]]) -> int:
    """The statements a server spends on these captured queries, commit included."""
    sql = [query["sql"] for query in queries]
    outermost = next((m.group(1) for m in map(_SAVEPOINT.match, sql) if m), None)
    boundaries = 0
    if outermost is not None and any((m := _RELEASE.match(s)) and m.group(1) == outermost
                                     for s in sql):
        boundaries = 2          # that transaction's BEGIN and commit, as SAVEPOINT and RELEASE
    return len(sql) - boundaries + COMMIT


def counted(send: Callable[[], Any]) -> tuple[Any, int, str]:
    """Send one request; return its answer, its statements (`statements`) and a listing."""
    with CaptureQueriesContext(connection) as captured:
        response = send()
    listing = "\n".join(f"{n:>3} {q['sql'][:300]}"
                        for n, q in enumerate(captured.captured_queries, start=1))
    spent = statements(captured.captured_queries)
    print(spent, "\n" + listing)
    return response, spent, listing
