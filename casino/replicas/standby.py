"""A streaming-replication hot standby of a PostgreSQL server, for tests and dev.

`start_standby` takes a base backup of a running primary with
`pg_basebackup` (the WAL it needs streamed along), writes `standby.signal`
and `primary_conninfo`, and starts the copy with `pg_ctl` on its own Unix
socket directory, `hot_standby = on`: a read-only server that replays the
primary's WAL as it is written. The binaries are the ones the `pgserver`
package ships, so the standby runs wherever the embedded server does
(casino/embedded.py, whose default behaviour this module leaves alone).

The standby replicates the whole cluster: every database on the primary,
the test databases (`test_casino_<pid>`) included, so a replica alias
points at the same database name as `default`.

A physical replication slot (`casino_standby_<pid>_<port>`, created by
the base backup) keeps the primary's WAL until the standby has it: a busy
primary (a shared test server) otherwise recycles the segments the
standby needs between the backup's end and its start, and the standby
never catches up. `Standby.stop` drops the slot; a standby whose process
died without stopping leaves an inactive slot, which the next
`start_standby` drops (its pid no longer runs), so no slot holds WAL
for ever. A throw-away standby is synced to disk by nobody
(`--no-sync`); this helper is for tests and a developer's machine, not
for production, where the standby is the failover's (issue 19 point 7).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

# Seconds pg_ctl waits for the standby to accept connections, and for a base
# backup to finish: a few seconds for the embedded cluster (about 1 GB with
# its leftover test databases) on this box; a minute leaves room for a
# loaded machine (decision, not in the seeds).
START_TIMEOUT_S = 120
BACKUP_TIMEOUT_S = 600
# Seconds to wait, after the standby stopped, for the primary to release its slot.
SLOT_RELEASE_WAIT_S = 10


def postgres_bin_dir() -> Path:
    """Return the folder of the PostgreSQL binaries the pgserver package ships."""
    import pgserver

    return Path(pgserver.__file__).parent / "pginstall" / "bin"


def _system_user() -> str | None:
    """Return the system user the server runs as when this process is root.

    PostgreSQL refuses to run as root; pgserver then runs its servers as
    the `pgserver` system user (created when missing), and so does this.
    """
    if os.name != "posix" or os.geteuid() != 0:
        return None
    from pgserver.utils import ensure_user_exists

    ensure_user_exists("pgserver")
    return "pgserver"


def _own(path: Path, system_user: str | None) -> None:
    """Give `path` to the server's system user, its parents traversable."""
    if system_user is None:
        return
    import pwd

    from pgserver.utils import ensure_prefix_permissions

    entry = pwd.getpwnam(system_user)
    ensure_prefix_permissions(path)
    os.chown(path, entry.pw_uid, entry.pw_gid)


def _quote(value: str) -> str:
    """Quote a value for postgresql.conf (single quotes doubled)."""
    return "'" + value.replace("'", "''") + "'"


def _conninfo_value(value: str) -> str:
    """Quote a value for a libpq key=value connection string."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


SLOT_PREFIX = "casino_standby_"


def _runs(pid: int) -> bool:
    """Return whether a process with this id runs on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _primary_conninfo(host: str, port: int | str | None, user: str) -> str:
    conninfo = f"host={_conninfo_value(host)} user={_conninfo_value(user)}"
    if port:
        conninfo += f" port={port}"
    return conninfo


def drop_abandoned_slots(*, primary_host: str, primary_port: int | str | None = None,
                         user: str = "postgres") -> list[str]:
    """Drop this helper's inactive slots whose standby's process no longer runs.

    Returns the names dropped. A slot is this helper's by its prefix; its
    creator's pid is the next part of its name.
    """
    import psycopg

    dropped = []
    with psycopg.connect(_primary_conninfo(primary_host, primary_port, user) + " dbname=postgres",
                         autocommit=True) as connection:
        rows = connection.execute(
            "SELECT slot_name FROM pg_replication_slots"
            " WHERE NOT active AND slot_name LIKE %s", [SLOT_PREFIX + "%"]).fetchall()
        for (name,) in rows:
            pid = name.removeprefix(SLOT_PREFIX).split("_", 1)[0]
            if pid.isdigit() and _runs(int(pid)):
                continue
            connection.execute(
                "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                " WHERE slot_name = %s AND NOT active", [name])
            dropped.append(name)
    return dropped


@dataclass(frozen=True)
class Standby:
    """A running hot standby: its data folder, socket folder and port."""

    data_dir: Path
    socket_dir: Path
    port: int
    user: str
    application_name: str
    slot_name: str
    primary_conninfo: str

    def database_settings(self, primary: dict[str, object]) -> dict[str, object]:
        """Return a DATABASES entry for this standby, copied from the primary's.

        Same database name, user and options; this standby's socket. The
        entry is a test mirror of `default` (pytest-django and Django's test
        runner neither create nor flush it: it is the same database).
        """
        entry = {key: value for key, value in primary.items() if key != "TEST"}
        entry.update({"HOST": str(self.socket_dir), "PORT": str(self.port),
                      "USER": self.user, "CONN_MAX_AGE": 0,
                      "TEST": {"MIRROR": "default"}})
        return entry

    def conninfo(self, dbname: str = "postgres") -> str:
        """Return a libpq connection string to `dbname` on the standby."""
        return (f"host={_conninfo_value(str(self.socket_dir))} port={self.port}"
                f" user={_conninfo_value(self.user)} dbname={_conninfo_value(dbname)}")

    def _drop_slot(self) -> None:
        """Drop the standby's slot once the primary has seen it disconnect."""
        import time

        import psycopg

        deadline = time.monotonic() + SLOT_RELEASE_WAIT_S
        with psycopg.connect(self.primary_conninfo + " dbname=postgres",
                             autocommit=True) as connection:
            while True:
                row = connection.execute(
                    "SELECT active FROM pg_replication_slots WHERE slot_name = %s",
                    [self.slot_name]).fetchone()
                if row is None:
                    return
                if not row[0]:
                    connection.execute(
                        "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                        " WHERE slot_name = %s AND NOT active", [self.slot_name])
                    return
                if time.monotonic() > deadline:
                    return      # left to drop_abandoned_slots once this process ends
                time.sleep(0.1)

    def stop(self, *, remove: bool = True) -> None:
        """Stop the standby (fast shutdown) and, by default, delete its folder."""
        pg_ctl = postgres_bin_dir() / "pg_ctl"
        if (self.data_dir / "postmaster.pid").exists():
            subprocess.run([str(pg_ctl), "-D", str(self.data_dir), "-m", "fast", "-w",
                            "-t", str(START_TIMEOUT_S), "stop"],
                           check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           user=_system_user())
        self._drop_slot()
        if remove:
            shutil.rmtree(self.data_dir, ignore_errors=True)
            if self.socket_dir != self.data_dir:
                shutil.rmtree(self.socket_dir, ignore_errors=True)


def start_standby(*, primary_host: str, primary_port: int | str | None = None,
                  user: str = "postgres", data_dir: Path, socket_dir: Path | None = None,
                  port: int = 5432, application_name: str = "casino_standby") -> Standby:
    """Take a base backup of the primary and start it as a hot standby.

    `primary_host` is a host name or, for the embedded server, its socket
    folder; `user` must have the REPLICATION attribute (the embedded
    server's `postgres` superuser has). `data_dir` must not exist or be
    empty. The standby listens on no TCP address, only on
    `<socket_dir>/.s.PGSQL.<port>` (socket_dir defaults to data_dir).
    Raises subprocess.CalledProcessError (with pg_basebackup's or pg_ctl's
    output) when the backup or the start fails.
    """
    bin_dir = postgres_bin_dir()
    system_user = _system_user()
    socket_dir = socket_dir or data_dir
    data_dir.mkdir(parents=True, exist_ok=True)
    data_dir.chmod(0o700)
    socket_dir.mkdir(parents=True, exist_ok=True)
    _own(data_dir, system_user)
    _own(socket_dir, system_user)
    drop_abandoned_slots(primary_host=primary_host, primary_port=primary_port, user=user)
    slot_name = f"{SLOT_PREFIX}{os.getpid()}_{port}"
    source = ["-h", primary_host, "-U", user]
    if primary_port:
        source += ["-p", str(primary_port)]
    primary_conninfo = _primary_conninfo(primary_host, primary_port, user)
    standby = Standby(data_dir=data_dir, socket_dir=socket_dir, port=port, user=user,
                      application_name=application_name, slot_name=slot_name,
                      primary_conninfo=primary_conninfo)
    try:
        subprocess.run([str(bin_dir / "pg_basebackup"), *source, "-D", str(data_dir),
                        "-X", "stream", "--create-slot", "--slot", slot_name,
                        "--checkpoint=fast", "--no-sync", "--no-password"],
                       check=True, capture_output=True, text=True, timeout=BACKUP_TIMEOUT_S,
                       user=system_user)
        settings = {
            "primary_conninfo": _quote(
                f"{primary_conninfo} application_name={_conninfo_value(application_name)}"),
            "primary_slot_name": _quote(slot_name),
            "hot_standby": "on",
            # Replies at least every second, so the primary's pg_stat_replication
            # shows the standby's replay position without waiting 10 s.
            "wal_receiver_status_interval": "1",
            "hot_standby_feedback": "off",
            "port": str(port),
            "listen_addresses": "''",
            "unix_socket_directories": _quote(str(socket_dir)),
            "logging_collector": "off",
        }
        # postgresql.auto.conf is read last, so these win over the primary's copy.
        lines = "".join(f"{name} = {value}\n" for name, value in settings.items())
        with open(data_dir / "postgresql.auto.conf", "a", encoding="utf-8") as conf:
            conf.write("\n# casino.replicas.standby\n" + lines)
        (data_dir / "standby.signal").touch()
        if system_user is not None:
            import pwd

            entry = pwd.getpwnam(system_user)
            for path in (data_dir / "postgresql.auto.conf", data_dir / "standby.signal"):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        subprocess.run([str(bin_dir / "pg_ctl"), "-D", str(data_dir), "-l",
                        str(data_dir / "standby.log"), "-w", "-t", str(START_TIMEOUT_S), "start"],
                       check=True, capture_output=True, text=True, timeout=START_TIMEOUT_S + 30,
                       user=system_user)
    except BaseException:
        standby.stop(remove=False)      # and drop the slot, if it was made
        raise
    return standby
