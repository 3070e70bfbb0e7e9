"""Throwaway databases for benchmarks and tools: the one place that drops one.

A benchmark measures on a database of its own, never on the configured one:
the configured database may hold a casino's whole event log. Every
benchmark and tool that needs a scratch database gets it here, and this
module guards three things:

- It runs only against the embedded default server (no `DATABASE_URL`), or
  against a server the caller names as disposable, `HOST:PORT` exactly as
  configured (`--disposable-server`, or `CASINO_DISPOSABLE_SERVER`). A URL
  that points at a production server is refused before anything is created.
- It creates the database under a name of its own,
  `throwaway_<purpose>_<pid>_<random>`, and switches this process's
  connections to it by name.
- It drops only a database that this same process created, by that name,
  never the configured one and never one whose name is not a throwaway's.
  Django's `destroy_test_db` drops whatever the settings name at the time of
  the call, which is how a benchmark once dropped the configured database.
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.db import connections

DISPOSABLE_SERVER_ENV = "CASINO_DISPOSABLE_SERVER"
NAME_PATTERN = re.compile(r"^throwaway_[a-z0-9]{1,24}_[0-9]{1,10}_[0-9a-f]{8}$")
PURPOSE_PATTERN = re.compile(r"^[a-z0-9]{1,24}$")

# Databases this process created; the only ones it may drop.
_created: set[str] = set()


class ThrowawayRefused(RuntimeError):
    """A throwaway database was refused: the server or the name is not safe."""


def configured_database() -> dict[str, Any]:
    """Return the configured default database's settings (as Django holds them)."""
    return connections["default"].settings_dict


def server_identity(database: dict[str, Any] | None = None) -> str:
    """Return `HOST:PORT` of a database's server (a socket folder for the host)."""
    database = database or configured_database()
    return f"{database.get('HOST') or 'localhost'}:{database.get('PORT') or 5432}"


def check_server(disposable_server: str | None = None) -> None:
    """Refuse a server that is neither the embedded default nor named disposable.

    Raises ThrowawayRefused with what to do instead.
    """
    if getattr(settings, "DATABASE_EMBEDDED", False):
        return
    named = disposable_server or os.environ.get(DISPOSABLE_SERVER_ENV)
    identity = server_identity()
    if named is None:
        raise ThrowawayRefused(
            f"refusing to make a throwaway database on {identity}: DATABASE_URL names a"
            " server that is not the embedded default. If that server holds nothing of"
            f" value, name it: --disposable-server {identity}")
    if named != identity:
        raise ThrowawayRefused(
            f"refusing: --disposable-server names {named}, but DATABASE_URL points at"
            f" {identity}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the throwaway options every benchmark takes: --smoke, --disposable-server."""
    parser.add_argument(
        "--smoke", action="store_true",
        help="a second's worth of work on a few rows: proves the benchmark runs and"
             " leaves the configured database alone (the test suite runs every"
             " benchmark this way)")
    parser.add_argument(
        "--disposable-server", metavar="HOST:PORT", default=None,
        help="allow a DATABASE_URL server that is not the embedded default; name it"
             " exactly as configured. The benchmark creates and drops a database of its"
             " own there; the configured database is never touched")


def _maintenance_connection():
    """Open an autocommit connection to the configured server's `postgres` database."""
    import psycopg

    database = configured_database()
    return psycopg.connect(
        host=database.get("HOST") or None,
        port=database.get("PORT") or None,
        user=database.get("USER") or None,
        password=database.get("PASSWORD") or None,
        dbname="postgres",
        autocommit=True,
    )


def create_throwaway_database(purpose: str, *, disposable_server: str | None = None) -> str:
    """Create an empty database under a throwaway name; return the name.

    The configured connection is not switched (see `throwaway_database`).
    """
    if not PURPOSE_PATTERN.match(purpose):
        raise ThrowawayRefused(f"purpose must be 1-24 lower-case letters or digits: {purpose!r}")
    check_server(disposable_server)
    name = f"throwaway_{purpose}_{os.getpid()}_{secrets.token_hex(4)}"
    with _maintenance_connection() as maintenance:
        maintenance.execute(f'CREATE DATABASE "{name}"')
    _created.add(name)
    return name


def drop_throwaway_database(name: str) -> None:
    """Drop a throwaway database this process created, and nothing else.

    Refuses (ThrowawayRefused, nothing dropped) the configured database, a
    name that is not a throwaway's, and a throwaway this process did not
    create. Connections still open to it are ended (`WITH (FORCE)`).
    """
    configured = settings.DATABASES["default"]["NAME"]
    if name == configured or name == _configured_name_at_start:
        raise ThrowawayRefused(f"refusing to drop {name!r}: it is the configured database")
    if not NAME_PATTERN.match(name):
        raise ThrowawayRefused(f"refusing to drop {name!r}: not a throwaway database's name")
    if name not in _created:
        raise ThrowawayRefused(
            f"refusing to drop {name!r}: this process did not create it")
    with _maintenance_connection() as maintenance:
        maintenance.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _created.discard(name)


def database_url(name: str) -> str:
    """Return a DATABASE_URL for database `name` on the configured server (for subprocesses)."""
    from urllib.parse import quote

    database = configured_database()
    host = database.get("HOST") or "localhost"
    user = quote(database.get("USER") or "", safe="")
    password = database.get("PASSWORD") or ""
    if host.startswith("/"):
        return f"postgresql://{user}@/{name}?host={quote(host, safe='/')}"
    credentials = f"{user}:{quote(password, safe='')}" if password else user
    return f"postgresql://{credentials}@{host}:{database.get('PORT') or 5432}/{name}"


@contextmanager
def throwaway_database(purpose: str, *, disposable_server: str | None = None,
                       migrate: bool = True) -> Iterator[str]:
    """Run the body on a fresh, migrated throwaway database; drop it afterwards.

    Every connection of this process is closed and the default connection
    points at the throwaway by name for the body; afterwards it points back
    at the configured database, and only the throwaway is dropped.
    """
    from django.core.management import call_command

    from ledger import stop_writer

    database = configured_database()
    configured = database["NAME"]
    name = create_throwaway_database(purpose, disposable_server=disposable_server)
    try:
        stop_writer()
        connections.close_all()
        database["NAME"] = name
        if migrate:
            call_command("migrate", verbosity=0, interactive=False)
        yield name
    finally:
        stop_writer()
        connections.close_all()
        database["NAME"] = configured
        drop_throwaway_database(name)


_configured_name_at_start = settings.DATABASES["default"]["NAME"]
