"""Every benchmark runs, and none touches the configured database.

Each file in `benchmarks/` runs in its smoke mode (`--smoke`: a second's
worth on a few rows) as a subprocess whose configured database is a
sentinel holding a ledger: the shipped rulebooks and a deposit. Afterwards
the sentinel must be intact: the same head position and hash, and
`verify_ledger` OK. A new benchmark is covered without listing it here; one
without `--smoke` fails.

The sentinel itself is a throwaway of this test process
(casino/throwaway.py), so the only database the test drops is its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.conf import settings

from casino import throwaway

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = sorted(path.name for path in (ROOT / "benchmarks").glob("*.py")
                    if not path.name.startswith("_"))
SENTINEL_SETUP = """
import datetime as dt, zoneinfo
from casino.rules.commands import load_shipped_rulebooks, register_venue
from casino.players.commands import register_player, verify_identity
from casino.cage.commands import deposit
load_shipped_rulebooks()
register_venue(code="casino-helsinki", name="Casino Helsinki", rulebook_id="ray-casino")
at = dt.datetime(2026, 6, 16, 12, tzinfo=zoneinfo.ZoneInfo("Europe/Helsinki"))
player = register_player(given_name="Sentinel", family_name="Ledger",
                         date_of_birth=dt.date(1980, 1, 1), nationality="FI",
                         document_type="passport", document_number="S0001", actor="sentinel",
                         at=at)
verify_identity(player_id=player.id, method="bank_id", actor="sentinel", at=at)
deposit(player_id=player.id, venue="casino-helsinki", amount_minor=12_345,
        currency="EUR", method="cash", actor="sentinel", idempotency_key="sentinel-deposit",
        at=at)
"""


def _environment(name: str) -> dict[str, str]:
    """A subprocess environment whose configured database is `name`."""
    env = {**os.environ, "CASINO_DATABASE_NAME": name, "PYTHONPATH": str(ROOT)}
    if not settings.DATABASE_EMBEDDED:
        # The suite itself runs on a server named by DATABASE_URL; the
        # benchmarks need that server named as disposable to run at all.
        env[throwaway.DISPOSABLE_SERVER_ENV] = throwaway.server_identity()
    return env


def _run(arguments: list[str], env: dict[str, str], timeout: float = 600
         ) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *arguments], cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=timeout)


def _head(name: str) -> tuple[tuple[tuple[int, int, str], ...], int]:
    """Return the sentinel's books' heads (id, position, hash) and its event count."""
    database = throwaway.configured_database()
    with psycopg.connect(host=database.get("HOST") or None, port=database.get("PORT") or None,
                         user=database.get("USER") or None,
                         password=database.get("PASSWORD") or None, dbname=name) as sentinel:
        heads = tuple(sentinel.execute(
            "SELECT id, position, hash FROM ledger_head ORDER BY id").fetchall())
        (count,) = sentinel.execute("SELECT count(*) FROM ledger_event").fetchone()
    return heads, count


def _databases() -> set[str]:
    """Return the throwaway databases on the server (other test runs may come and go)."""
    database = throwaway.configured_database()
    with psycopg.connect(host=database.get("HOST") or None, port=database.get("PORT") or None,
                         user=database.get("USER") or None,
                         password=database.get("PASSWORD") or None, dbname="postgres") as server:
        return {row[0] for row in server.execute(
            "SELECT datname FROM pg_database WHERE datname LIKE 'throwaway%%'")}


@pytest.fixture(scope="module")
def sentinel():
    """A configured database holding a small, verified ledger; dropped afterwards."""
    name = throwaway.create_throwaway_database("sentinel")
    try:
        env = _environment(name)
        for arguments in (["manage.py", "migrate", "-v0"],
                          ["manage.py", "shell", "-c", SENTINEL_SETUP]):
            done = _run(arguments, env)
            assert done.returncode == 0, done.stderr
        yield name, env, _head(name)
    finally:
        throwaway.drop_throwaway_database(name)


def test_benchmarks_are_found() -> None:
    """The smoke run covers every benchmark file (at least the six of the first wave
    and issue 13's api_floor and naive_writer)."""
    assert {"api_load.py", "evaluator.py", "jackpot_rollup.py", "journal_export.py",
            "ledger_append.py", "poker_hands.py", "api_floor.py",
            "naive_writer.py"} <= set(BENCHMARKS)


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", BENCHMARKS)
def test_benchmark_smoke_leaves_the_configured_database_intact(sentinel, benchmark) -> None:
    """A benchmark in smoke mode prints its figure line and leaves the sentinel as it was."""
    name, env, before = sentinel
    heads, events = before
    # Rulebooks, venue, player, deposit (the cage's part on the venue's book); each
    # book's positions gap-free (book b's start after (b-1)*2^40).
    assert events > 8 and sum(position - (book - 1) * 2**40
                              for book, position, _ in heads) == events
    databases_before = _databases()

    done = _run([f"benchmarks/{benchmark}", "--smoke"], env)

    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    figure_line = done.stdout.strip().splitlines()[-1]
    assert figure_line.startswith(f"{benchmark.removesuffix('.py')}: "), figure_line
    assert _head(name) == before
    assert _databases() == databases_before  # its throwaway is gone, nothing else
    verified = _run(["manage.py", "verify_ledger"], env)
    assert verified.returncode == 0, verified.stderr
    assert f"verify_ledger: OK ({events} events)" in verified.stdout


@pytest.mark.slow
def test_benchmark_refuses_a_server_not_named_disposable(sentinel) -> None:
    """With DATABASE_URL at a server nobody named disposable, a benchmark creates
    nothing and says how to name it."""
    name, env, before = sentinel
    env = {**env, "DATABASE_URL": throwaway.database_url(name)}
    env.pop("CASINO_DATABASE_NAME")
    env.pop(throwaway.DISPOSABLE_SERVER_ENV, None)
    databases_before = _databases()

    done = _run(["benchmarks/ledger_append.py", "--smoke"], env, timeout=120)

    assert done.returncode != 0
    assert "--disposable-server" in done.stderr
    assert "refusing to make a throwaway database" in done.stderr
    assert _databases() == databases_before
    assert _head(name) == before

    wrong = _run(["benchmarks/ledger_append.py", "--smoke", "--disposable-server",
                  "db.example:5432"], env, timeout=120)
    assert wrong.returncode != 0
    assert "refusing: --disposable-server names db.example:5432" in wrong.stderr
    assert _databases() == databases_before


def test_drop_refuses_the_configured_database() -> None:
    """The configured database is never dropped, whatever the caller asks."""
    configured = settings.DATABASES["default"]["NAME"]
    with pytest.raises(throwaway.ThrowawayRefused, match="configured database"):
        throwaway.drop_throwaway_database(configured)


def test_drop_refuses_a_database_this_process_did_not_create() -> None:
    """A throwaway's name is not enough: only this process's own are dropped."""
    stranger = f"throwaway_other_{os.getpid() + 1}_0123abcd"
    with pytest.raises(throwaway.ThrowawayRefused, match="did not create it"):
        throwaway.drop_throwaway_database(stranger)
    with pytest.raises(throwaway.ThrowawayRefused, match="not a throwaway"):
        throwaway.drop_throwaway_database("casino_production")
