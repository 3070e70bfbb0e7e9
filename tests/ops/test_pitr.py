"""Point-in-time restore: a base backup and archived WAL, restored to a moment (issue 18 item 7).

A PostgreSQL server of its own (the embedded package's binaries, a data
folder under the test's tmp dir) runs with WAL archiving
(scripts/wal_archive.sh). The casino schema is migrated into it, a base
backup taken (scripts/base_backup.sh), then one player is registered, the
server's clock read (the target), and another player registered.
scripts/pitr_restore.sh restores the backup to the target in a new data
folder on a new port, promotes it and runs `manage.py verify_ledger` there:
the first registration is there, the second is not, and the ledger verifies.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest

from tests.integration.conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
PYTHON = Path(sys.executable)
pytestmark = [pytest.mark.slow]

REGISTER = """
import datetime as dt
from casino.players.commands import register_player
p = register_player(given_name="{name}", family_name="Pitr", date_of_birth=dt.date(1980, 1, 2),
                    nationality="FI", document_type="passport", document_number="{document}",
                    actor="cage")
print(p.id)
"""


# PostgreSQL refuses to run as root; as pgserver does, the server side then
# runs as the unprivileged system user `pgserver` (pgserver made it).
SERVER_USER = "pgserver" if os.geteuid() == 0 else None


def _pg_bin() -> Path:
    import pgserver

    return Path(pgserver.__file__).parent / "pginstall" / "bin"


class Server:
    def __init__(self, data: Path, sockets: str, port: int) -> None:
        self.data, self.sockets, self.port = data, sockets, port

    def url(self, database: str) -> str:
        return f"postgres://postgres@{quote(self.sockets, safe='')}:{self.port}/{database}"

    def connect(self, database: str = "postgres") -> psycopg.Connection:
        return psycopg.connect(host=self.sockets, port=self.port, user="postgres",
                               dbname=database, autocommit=True)

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            subprocess.run([str(_pg_bin() / "pg_ctl"), "--pgdata", str(self.data), "--wait",
                            "-m", "fast", "stop"], capture_output=True, user=SERVER_USER)


def _run(args, env, timeout=600, server_side: bool = False) -> str:
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout, user=SERVER_USER if server_side else None)
    assert done.returncode == 0, f"{args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


@pytest.fixture
def workdir():
    """A folder the server's user owns (sockets need a short path: under /tmp)."""
    folder = Path(tempfile.mkdtemp(prefix="pitr-", dir="/tmp"))
    if SERVER_USER:
        shutil.chown(folder, SERVER_USER, SERVER_USER)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def archived_server(workdir):
    bin_ = _pg_bin()
    sockets = str(workdir)
    data, archive = workdir / "data", workdir / "wal"
    _run(["mkdir", str(archive)], os.environ, server_side=True)
    _run([str(bin_ / "initdb"), "--pgdata", str(data), "--username", "postgres",
          "--auth", "trust", "--encoding", "UTF8"], os.environ, server_side=True)
    with (data / "postgresql.conf").open("a") as conf:     # root may write it
        conf.write(f"\nwal_level = replica\narchive_mode = on\nmax_wal_senders = 4\n"
                   f"archive_command = '{ROOT}/scripts/wal_archive.sh %p %f {archive}'\n"
                   f"listen_addresses = ''\nunix_socket_directories = '{sockets}'\n")
    server = Server(data, sockets, free_port())
    _run([str(bin_ / "pg_ctl"), "--pgdata", str(data), "--wait", "--log",
          str(workdir / "server.log"), "-o", f"-p {server.port}", "start"], os.environ,
         server_side=True)
    servers = [server]
    yield server, archive, servers
    for each in servers:
        each.stop()


def test_a_base_backup_and_its_wal_restore_to_a_moment_between_two_writes(
        archived_server, workdir):
    server, archive, servers = archived_server
    with server.connect() as admin:
        admin.execute("CREATE DATABASE casino")
    env = {**os.environ, "DATABASE_URL": server.url("casino"), "PG_BIN": str(_pg_bin()),
           "PGUSER": "postgres", "DJANGO_SETTINGS_MODULE": "casino.settings",
           "PYTHON": sys.executable,
           "LEDGER_SEAL_FILE": str(workdir / "seals.jsonl"),
           "LEDGER_SEAL_KEY_FILE": str(workdir / "seal.key")}
    env.pop("PGHOST", None)
    env.pop("PGPORT", None)
    _run([str(PYTHON), "manage.py", "migrate", "--no-input"], env)
    base = workdir / "base"
    backup_env = {**env, "DATABASE_URL": server.url("postgres")}
    assert "verified" in _run(["scripts/base_backup.sh", str(base)], backup_env,
                              server_side=True)

    first = _run([str(PYTHON), "manage.py", "shell", "-c",
                  REGISTER.format(name="Before", document="PB100001")], env).split()[-1]
    time.sleep(1.5)
    with server.connect("casino") as db:
        target = db.execute("SELECT now()::text").fetchone()[0]
    time.sleep(1.5)
    second = _run([str(PYTHON), "manage.py", "shell", "-c",
                   REGISTER.format(name="After", document="PA200002")], env).split()[-1]
    with server.connect("casino") as db:
        positions = db.execute("SELECT stream, position FROM ledger_event"
                               " WHERE stream IN (%s, %s)",
                               [f"player/{first}", f"player/{second}"]).fetchall()
        assert len(positions) == 2, (first, second)
        segment = db.execute("SELECT pg_walfile_name(pg_switch_wal())").fetchone()[0]
    deadline = time.monotonic() + 60
    while not (archive / segment).exists():
        assert time.monotonic() < deadline, f"segment {segment} never archived"
        time.sleep(0.2)
    server.stop()

    restored = Server(workdir / "restored", str(workdir), free_port())
    servers.append(restored)
    out = _run(["scripts/pitr_restore.sh", str(base), str(archive), target,
                str(restored.data)],
               {**env, "PITR_PORT": str(restored.port), "PITR_SOCKET_DIR": restored.sockets,
                "PITR_DATABASE": "casino", "PITR_SERVER_USER": SERVER_USER or ""})
    assert "recovered and promoted" in out
    assert "OK" in out, out
    with restored.connect("casino") as db:
        streams = {row[0] for row in db.execute("SELECT stream FROM ledger_event")}
        assert f"player/{first}" in streams           # committed before the target
        assert f"player/{second}" not in streams      # after it: not replayed
        players = {row[0] for row in db.execute("SELECT id FROM players_player")}
        assert first in players and second not in players
    # The restore refuses to write over an existing folder.
    again = subprocess.run(["scripts/pitr_restore.sh", str(base), str(archive), target,
                            str(restored.data)], cwd=ROOT, env=env, capture_output=True,
                           text=True)
    assert again.returncode == 2
