"""benchmarks/books.py at smoke size: its figure line and its figures (issue 19, point 8).

test_smoke.py already proves that every benchmark leaves the configured
database alone; this reads what books.py prints. The configured database of
the subprocess is an empty throwaway of this test process: the benchmark
measures on a throwaway of its own beside it.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from casino import throwaway
from ledger import placement, verify_chain
from ledger.books import book_id

ROOT = Path(__file__).resolve().parents[2]
FIGURE_LINE = re.compile(
    r"^books: one_book_events_per_s=(?P<one>\d+) four_books_events_per_s=(?P<four>\d+)"
    r" ratio=(?P<ratio>\d+\.\d\d)"
    r" group_one_book_events_per_s=(?P<group_one>\d+)"
    r" group_four_books_events_per_s=(?P<group_four>\d+)"
    r" group_ratio=(?P<group_ratio>\d+\.\d\d)$")


def _smoke(*arguments: str) -> subprocess.CompletedProcess:
    """Run books.py --smoke with an empty throwaway as its configured database."""
    name = throwaway.create_throwaway_database("booksconfigured")
    try:
        env = {**os.environ, "CASINO_DATABASE_NAME": name, "PYTHONPATH": str(ROOT)}
        if not settings.DATABASE_EMBEDDED:
            env[throwaway.DISPOSABLE_SERVER_ENV] = throwaway.server_identity()
        return subprocess.run([sys.executable, "benchmarks/books.py", "--smoke", *arguments],
                              cwd=ROOT, env=env, text=True, capture_output=True, timeout=300)
    finally:
        throwaway.drop_throwaway_database(name)


@pytest.mark.slow
def test_books_smoke_prints_both_figures_and_their_ratio() -> None:
    """At smoke size the one line names one book's and four books' rates, both
    above zero, and the ratio of the two; no three-server figure unless asked;
    with --waits each phase's row says where the backends waited."""
    done = _smoke("--waits")

    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    lines = done.stdout.strip().splitlines()
    figures = FIGURE_LINE.match(lines[-1])
    assert figures is not None, lines[-1]
    one, four = int(figures["one"]), int(figures["four"])
    assert one > 0
    assert four > 0
    # The figures are rounded to whole events per second, the ratio to 0.01.
    ratio = float(figures["ratio"])
    assert (four - 0.5) / (one + 0.5) - 0.005 <= ratio <= (four + 0.5) / (one - 0.5) + 0.005
    assert int(figures["group_one"]) > 0
    assert int(figures["group_four"]) > 0
    assert "three_servers_events_per_s" not in done.stdout
    # The table above the line: four phases (own transaction and group
    # commit, one book and four) in the one smoke round.
    table = [line for line in lines if line.startswith(("own transaction", "group commit"))]
    rows = [line.split() for line in table]
    # "own transaction 1 4 1 <rate> ..." and "group commit 4 4 1 <rate> ...": books, writers.
    assert [(row[2], row[3]) for row in rows] == [("1", "4"), ("4", "4")] * 2
    assert all(re.search(r"  waits: .+ \d+%", line) for line in table), table


def _books_module():
    """benchmarks/books.py as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location("books_benchmark",
                                                  ROOT / "benchmarks" / "books.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # its dataclasses look themselves up there
    spec.loader.exec_module(sys.modules[spec.name])
    return sys.modules[spec.name]


@pytest.mark.django_db(transaction=True)
def test_measure_servers_places_each_writers_book_and_appends_there() -> None:
    """The three-server hook, on one server: each writer's book is placed
    through the directory in its alias, and its appends land there, chain
    intact. (A second alias cannot be opened inside a pytest-django test:
    its connections are refused; the three servers are placement's harness.)"""
    books = _books_module()

    rate = books.measure_servers(["default"], 5)

    assert rate > 0
    keys = [f"spread{writer}" for writer in range(books.WRITERS)]
    assert {key: placement.placements().get(key) for key in keys} == dict.fromkeys(
        keys, "default")
    assert len({book_id(key) for key in keys}) == books.WRITERS
    for key in keys:
        result = verify_chain(book=book_id(key), using=placement.database_for(key))
        assert result.ok
        # Each book: its accounts' openings, the warm-up, the timed appends.
        assert result.events == books.ACCOUNTS_PER_BOOK + books.WARM_UP_APPENDS + 5
