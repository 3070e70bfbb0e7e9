"""Backup and restore (scripts/backup.sh, scripts/restore.sh; issue 18 item 7).

A database with players, money and an external seal is dumped with
pg_dump, restored into a fresh database on the same embedded server, and
`verify_ledger` passes on the restored copy: the chain, every balance,
every projection and the external seal (the original's seal file). A dump
taken before the sealed events (a stale backup) fails against that seal.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from ledger.models import Event
from tests.casino.conftest import make_player

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.django_db(transaction=True)


def _pg_bin() -> str:
    import pgserver

    return str(Path(pgserver.__file__).parent / "pginstall" / "bin")


@pytest.fixture
def server_env(tmp_path):
    db = connection.settings_dict
    env = {**os.environ, "PG_BIN": _pg_bin(), "PGUSER": db["USER"] or "",
           "PGPASSWORD": db.get("PASSWORD") or "",
           "LEDGER_SEAL_FILE": str(tmp_path / "seals.jsonl"),
           "LEDGER_SEAL_KEY_FILE": str(tmp_path / "seal.key")}
    if os.environ.get("DATABASE_URL"):
        env["DATABASE_URL"] = os.environ["DATABASE_URL"]
    else:
        env["PGHOST"] = db["HOST"]
        if db.get("PORT"):
            env["PGPORT"] = str(db["PORT"])
    return env


def _drop(name: str) -> None:
    db = connection.settings_dict
    with psycopg.connect(host=db["HOST"] or None, port=db.get("PORT") or None,
                         user=db["USER"], password=db.get("PASSWORD") or None,
                         dbname="postgres", autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_dump_restored_into_a_fresh_database_verifies(venues, server_env, tmp_path,
                                                         settings):
    from ledger.seals import anchor

    for _ in range(2):
        make_player()
    source = connection.settings_dict["NAME"]
    stale_dump = tmp_path / "stale.dump"
    stale = subprocess.run(["bash", "scripts/backup.sh", str(stale_dump)], cwd=ROOT,
                           env={**server_env, "CASINO_DATABASE_NAME": source},
                           capture_output=True, text=True, timeout=300)
    assert stale.returncode == 0, stale.stderr
    make_player()
    settings.LEDGER_SEAL_FILE = server_env["LEDGER_SEAL_FILE"]
    settings.LEDGER_SEAL_KEY_FILE = server_env["LEDGER_SEAL_KEY_FILE"]
    assert anchor() is not None
    events = Event.objects.count()
    restored = f"restored_{os.getpid()}"
    dump = tmp_path / "casino.dump"
    _drop(restored)
    try:
        backup = subprocess.run(["bash", "scripts/backup.sh", str(dump)], cwd=ROOT,
                                env={**server_env, "CASINO_DATABASE_NAME": source},
                                capture_output=True, text=True, timeout=300)
        assert backup.returncode == 0, backup.stderr
        assert dump.stat().st_size > 0
        restore = subprocess.run(["bash", "scripts/restore.sh", str(dump), restored],
                                 cwd=ROOT, env=server_env, capture_output=True, text=True,
                                 timeout=600)
        assert restore.returncode == 0, restore.stdout + restore.stderr
        assert f"verify_ledger: OK ({events} events, " in restore.stdout
        assert "sealed" in restore.stdout
        # A restore never writes over an existing database.
        again = subprocess.run(["bash", "scripts/restore.sh", str(dump), restored],
                               cwd=ROOT, env=server_env, capture_output=True, text=True,
                               timeout=300)
        assert again.returncode != 0 and "already exists" in again.stderr
        # The stale backup lacks events the seal covers: verify_ledger refuses it.
        _drop(restored)
        old = subprocess.run(["bash", "scripts/restore.sh", str(stale_dump), restored],
                             cwd=ROOT, env=server_env, capture_output=True, text=True,
                             timeout=600)
        assert old.returncode != 0
        assert "verify_ledger: OK" not in old.stdout
        assert "seal" in (old.stdout + old.stderr).lower()
    finally:
        _drop(restored)
