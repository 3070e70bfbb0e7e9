"""A pg_auto_failover group on loopback, for the failover test (issue 19 point 7).

One monitor, a primary and a synchronous standby, each a `pg_autoctl run`
process in its own process group, in a temporary folder under /tmp that is
removed afterwards. pg_auto_failover comes from Debian's packages
`pg-auto-failover-cli` and `postgresql-15-auto-failover`
(scripts/failover_deps.sh installs them; PG_AUTOCTL_BIN and PG_BINDIR point
elsewhere). PostgreSQL and pg_autoctl refuse to run as root, so a test run
as root runs them as the system user `postgres`.

Every server listens on 127.0.0.1 only, on free ports, with its socket in
the temporary folder; trust authentication on loopback (the test's own
servers, gone when it ends). Small memory settings keep three servers
beside the suite's. The monitor's health checks are tightened so a lost
primary is noticed in seconds (decisions in the README's "Failover"):
pg_auto_failover's defaults take 20-30 s just to call a node unhealthy.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

# Decision (not in the seeds; pg_auto_failover's settings, README
# "Failover"): check each node every second with a 1 s timeout, retry once
# after 0.5 s, call a node unhealthy after 4 s without a report, and wait
# 4 s for a lost primary to demote itself before promoting the standby.
MONITOR_SETTINGS = {
    "pgautofailover.health_check_period": "1000",
    "pgautofailover.health_check_timeout": "1000",
    "pgautofailover.health_check_max_retries": "1",
    "pgautofailover.health_check_retry_delay": "500",
    "pgautofailover.node_considered_unhealthy_timeout": "4000",
    "pgautofailover.primary_demote_timeout": "4000",
}
# Small servers: pg_autoctl sizes shared_buffers to a quarter of the box.
SERVER_SETTINGS = {
    "listen_addresses": "127.0.0.1",
    "shared_buffers": "64MB",
    "effective_cache_size": "256MB",
    "maintenance_work_mem": "64MB",
    "work_mem": "4MB",
    "max_connections": "100",
}
DATABASE = "casino"
START_SECONDS_MAX = 90
STOP_SECONDS_MAX = 20


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pg_autoctl_binary() -> str:
    """Return pg_autoctl's path, or raise naming the script that installs it."""
    binary = os.environ.get("PG_AUTOCTL_BIN") or shutil.which("pg_autoctl")
    if not binary:
        raise RuntimeError("pg_autoctl not found: run scripts/failover_deps.sh (installs"
                           " Debian's pg-auto-failover-cli and postgresql-15-auto-failover)")
    return binary


def pg_bindir() -> Path:
    bindir = Path(os.environ.get("PG_BINDIR", "/usr/lib/postgresql/15/bin"))
    if not (bindir / "pg_ctl").exists():
        raise RuntimeError(f"no pg_ctl in {bindir}: set PG_BINDIR to PostgreSQL 15's binaries")
    return bindir


@dataclass
class Node:
    name: str
    port: int
    pgdata: Path
    process: subprocess.Popen | None = None


@dataclass
class Cluster:
    """The monitor, node1 (the first primary) and node2 (its synchronous standby)."""

    root: Path
    monitor: Node
    nodes: list[Node]
    log_lines: list[str] = field(default_factory=list)

    @classmethod
    def create(cls) -> "Cluster":
        root = Path(tempfile.mkdtemp(prefix="casino-failover-", dir="/tmp"))
        root.chmod(0o755)
        cluster = cls(root=root, monitor=Node("monitor", free_port(), root / "monitor"),
                      nodes=[Node(f"node{n}", free_port(), root / f"node{n}") for n in (1, 2)])
        for folder in ("config", "share", "run"):
            (root / folder).mkdir()
        if os.geteuid() == 0:
            user = pwd.getpwnam("postgres")
            for path in [root, *root.iterdir()]:
                os.chown(path, user.pw_uid, user.pw_gid)
        return cluster

    # -- processes --------------------------------------------------------

    def _env(self) -> dict[str, str]:
        return {"PATH": f"{pg_bindir()}:/usr/bin:/bin", "HOME": str(self.root),
                "XDG_CONFIG_HOME": str(self.root / "config"),
                "XDG_DATA_HOME": str(self.root / "share"),
                "XDG_RUNTIME_DIR": str(self.root / "run"),
                "PGHOST": str(self.root), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}

    def _as_server_user(self) -> dict:
        if os.geteuid() != 0:
            return {}
        user = pwd.getpwnam("postgres")
        return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []}

    def _call(self, *command: str, timeout: float = START_SECONDS_MAX) -> None:
        done = subprocess.run(command, cwd=self.root, env=self._env(), capture_output=True,
                              text=True, timeout=timeout, **self._as_server_user())
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} exited {done.returncode}:\n"
                               f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")

    def _initdb(self, node: Node) -> None:
        """Initialise a data folder with loopback-only, small-memory settings."""
        self._call(str(pg_bindir() / "initdb"), "--pgdata", str(node.pgdata), "--auth", "trust",
                   "--username", "postgres", "--encoding", "UTF8", "--no-sync")
        settings = {**SERVER_SETTINGS, "unix_socket_directories": str(self.root)}
        if node is self.monitor:
            settings.update(MONITOR_SETTINGS)
        lines = "".join(f"{name} = '{value}'\n" for name, value in settings.items())
        with (node.pgdata / "postgresql.auto.conf").open("a") as conf:
            conf.write(lines)

    def _run(self, node: Node) -> None:
        log = (self.root / f"{node.name}.log").open("ab")
        node.process = subprocess.Popen(
            [pg_autoctl_binary(), "run", "--pgdata", str(node.pgdata)], cwd=self.root,
            env=self._env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            **self._as_server_user())
        log.close()     # the child keeps its copy

    def monitor_url(self) -> str:
        return (f"postgres://autoctl_node@127.0.0.1:{self.monitor.port}/pg_auto_failover"
                "?sslmode=disable")

    def start(self) -> None:
        """Create and run the monitor, the primary, then the standby; wait until in sync."""
        autoctl = pg_autoctl_binary()
        self._initdb(self.monitor)
        self._call(autoctl, "create", "monitor", "--pgdata", str(self.monitor.pgdata),
                   "--pgport", str(self.monitor.port), "--hostname", "127.0.0.1",
                   "--auth", "trust", "--no-ssl")
        self._run(self.monitor)
        self.wait(lambda: self._query(self.monitor.port, "SELECT 1", dbname="pg_auto_failover"),
                  "the monitor")
        primary, standby = self.nodes
        self._initdb(primary)      # the standby's copy comes from it (pg_basebackup)
        for node in self.nodes:
            self._call(autoctl, "create", "postgres", "--pgdata", str(node.pgdata),
                       "--pgport", str(node.port), "--hostname", "127.0.0.1",
                       "--listen", "127.0.0.1", "--name", node.name, "--auth", "trust",
                       "--no-ssl", "--dbname", DATABASE, "--monitor", self.monitor_url())
            self._run(node)
            self.wait(lambda node=node: self.states().get(node.name, ("", ""))[0]
                      in {"single", "primary", "wait_primary", "secondary"}, node.name)
        self.wait(lambda: self.states() == {"node1": ("primary", "primary"),
                                            "node2": ("secondary", "secondary")},
                  "node1 primary and node2 its standby")

    def states(self) -> dict[str, tuple[str, str]]:
        """Each node's (reported, assigned) state as the monitor has them."""
        rows = self._query(self.monitor.port,
                           "SELECT nodename, reportedstate::text, goalstate::text"
                           " FROM pgautofailover.node", dbname="pg_auto_failover") or []
        return {name: (reported, goal) for name, reported, goal in rows}

    def kill_node(self, node: Node) -> None:
        """Kill -9 the node's pg_autoctl and its postgres (one process group): the box is gone."""
        assert node.process is not None
        os.killpg(node.process.pid, signal.SIGKILL)
        node.process.wait(timeout=STOP_SECONDS_MAX)
        # The postmaster's backends notice its death on their own; wait until
        # no process of the node is left, so nothing answers on its port.
        self.wait(lambda: not _postmaster_alive(node.pgdata), f"{node.name}'s postgres to die",
                  timeout=STOP_SECONDS_MAX)

    def stop(self) -> None:
        """Stop every node (SIGTERM, then SIGKILL) and remove the folder."""
        for node in [*reversed(self.nodes), self.monitor]:
            if node.process is not None and node.process.poll() is None:
                try:
                    os.killpg(node.process.pid, signal.SIGTERM)
                    node.process.wait(timeout=STOP_SECONDS_MAX)
                except subprocess.TimeoutExpired:
                    os.killpg(node.process.pid, signal.SIGKILL)
                    node.process.wait(timeout=STOP_SECONDS_MAX)
                except ProcessLookupError:
                    pass
        for node in [*self.nodes, self.monitor]:
            pid = _postmaster_alive(node.pgdata)
            if pid:
                os.kill(pid, signal.SIGKILL)    # a postmaster pg_autoctl left behind
        shutil.rmtree(self.root, ignore_errors=True)

    def logs(self) -> str:
        parts = []
        for name in ("monitor", "node1", "node2"):
            log = self.root / f"{name}.log"
            if log.exists():
                parts.append(f"--- {name}.log\n{log.read_text(errors='replace')[-4000:]}")
        return "\n".join(parts)

    # -- SQL --------------------------------------------------------------

    def _query(self, port: int, sql: str, *, dbname: str = DATABASE, user: str = "postgres"):
        """Rows of one statement on a node, or None when it cannot be reached."""
        try:
            with psycopg.connect(host="127.0.0.1", port=port, user=user, dbname=dbname,
                                 connect_timeout=2, autocommit=True) as conn:
                cursor = conn.execute(sql)
                return cursor.fetchall() if cursor.description else []
        except psycopg.OperationalError:
            return None

    def execute(self, node: Node, *statements: str, dbname: str = DATABASE) -> list:
        """Run statements as the superuser on a node; return the last one's rows."""
        with psycopg.connect(host="127.0.0.1", port=node.port, user="postgres", dbname=dbname,
                             autocommit=True) as conn:
            rows: list = []
            for statement in statements:
                cursor = conn.execute(statement)
                rows = cursor.fetchall() if cursor.description else []
            return rows

    def url(self, user: str) -> str:
        """The group's multi-host URL: psycopg keeps the host that accepts writes."""
        hosts = ",".join(f"127.0.0.1:{node.port}" for node in self.nodes)
        return f"postgres://{user}@{hosts}/{DATABASE}?target_session_attrs=read-write"

    def wait(self, predicate, what: str, timeout: float = START_SECONDS_MAX) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            time.sleep(0.2)
        raise RuntimeError(f"timed out waiting for {what}; states {self.states()}\n{self.logs()}")


def _postmaster_alive(pgdata: Path) -> int | None:
    """The postmaster's pid when it still runs, else None."""
    try:
        pid = int((pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return pid
    return pid
