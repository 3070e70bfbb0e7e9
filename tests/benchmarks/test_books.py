"""benchmarks/books.py at smoke size: its figure line and its figures (issue 19, point 8).

test_smoke.py already proves that every benchmark leaves the configured
database alone; this reads what books.py prints. The configured database of
the subprocess is an empty throwaway of this test process: the benchmark
measures on a throwaway of its own beside it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from casino import throwaway

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
    above zero, and the ratio of the two; no three-server figure unless asked."""
    done = _smoke()

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
    rows = [line.split() for line in lines if line.startswith(("own transaction",
                                                              "group commit"))]
    assert [(row[-4], row[-3]) for row in rows] == [("1", "4"), ("4", "4")] * 2
