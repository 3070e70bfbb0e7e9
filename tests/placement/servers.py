"""Extra embedded PostgreSQL servers holding books (issue 19, point 4).

Each server is a `pgserver` instance (the package the project's own
embedded database comes from) in a folder of its own under /tmp: initdb,
trust on its Unix socket only (no TCP listener), the superuser `postgres`;
as root, pgserver runs it as its system user `pgserver`. A server holds one
database (`books`) with the ledger's tables only, registered as a Django
alias at runtime and migrated with `migrate ledger --database=<alias>`
(BookRouter keeps every other app out of it, as it does for the aliases of
CASINO_BOOK_DATABASE_URLS).

Plain functions, so that a benchmark can start servers the same way:
`start_server(folder)`, `register_alias(alias, server)`, `migrate_ledger(alias)`,
`unregister_alias(alias)`, `stop_server(server)`; or `book_servers(aliases)`,
a context manager doing all of it.
"""

from __future__ import annotations

import shutil
import tempfile
import warnings
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

import psycopg
from django.conf import settings
from django.core.management import call_command
from django.db import connections

from casino.embedded import DATABASE_OPTIONS

DATABASE = "books"
SUPERUSER = "postgres"


@dataclass
class BookServer:
    """One started server: its alias, its folder and the pgserver handle."""

    alias: str
    folder: Path
    handle: object

    @property
    def socket_dir(self) -> str:
        return str(self.handle.get_postmaster_info().socket_dir)

    def connect(self, database: str = DATABASE) -> psycopg.Connection:
        """A superuser connection of its own (autocommit), outside Django."""
        return psycopg.connect(host=self.socket_dir, user=SUPERUSER, dbname=database,
                               autocommit=True)

    def database_settings(self) -> dict:
        """The DATABASES entry for the server's `books` database, as the superuser."""
        return {"ENGINE": "django.db.backends.postgresql", "NAME": DATABASE,
                "USER": SUPERUSER, "HOST": self.socket_dir, "PORT": "",
                "OPTIONS": dict(DATABASE_OPTIONS), "TEST": {"NAME": DATABASE}}


def start_server(alias: str) -> BookServer:
    """Start a server in a new folder under /tmp (a socket path must be short)
    and create its `books` database."""
    import pgserver

    folder = Path(tempfile.mkdtemp(prefix=f"casino-{alias}-", dir="/tmp"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")    # platformdirs, without XDG_RUNTIME_DIR
            handle = pgserver.get_server(folder / "pg", cleanup_mode="delete")
        server = BookServer(alias, folder, handle)
        with server.connect("postgres") as admin:
            admin.execute(f'CREATE DATABASE "{DATABASE}"')
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return server


def register_alias(server: BookServer) -> None:
    """Add the server's alias to Django's connections and to LEDGER_BOOK_DATABASES."""
    configured = connections.configure_settings(
        {"default": dict(connections["default"].settings_dict),
         server.alias: server.database_settings()})[server.alias]
    connections.settings[server.alias] = configured
    settings.DATABASES[server.alias] = configured
    book_databases = list(getattr(settings, "LEDGER_BOOK_DATABASES", ()))
    if server.alias not in book_databases:
        settings.LEDGER_BOOK_DATABASES = [*book_databases, server.alias]


def migrate_ledger(alias: str) -> None:
    """Create the ledger's tables, triggers and functions in the alias's database."""
    call_command("migrate", "ledger", database=alias, verbosity=0, interactive=False)


def unregister_alias(alias: str) -> None:
    """Close the alias's connection in this thread and remove it everywhere."""
    if alias in connections.settings:
        connections[alias].close()
        del connections[alias]
        del connections.settings[alias]
    settings.DATABASES.pop(alias, None)
    settings.LEDGER_BOOK_DATABASES = [
        each for each in getattr(settings, "LEDGER_BOOK_DATABASES", ()) if each != alias]


def stop_server(server: BookServer) -> None:
    """Stop the server and delete its folder."""
    try:
        server.handle.cleanup()
    finally:
        shutil.rmtree(server.folder, ignore_errors=True)


@contextmanager
def book_servers(aliases: Sequence[str]) -> Iterator[list[BookServer]]:
    """Start one server per alias, register and migrate each; undo it all after.

    Stop the ledger's writer threads (`ledger.stop_writer()`) before leaving:
    they hold connections to these servers.
    """
    started: list[BookServer] = []
    try:
        for alias in aliases:
            started.append(start_server(alias))
            register_alias(started[-1])
            migrate_ledger(alias)
        yield started
    finally:
        for server in reversed(started):
            unregister_alias(server.alias)
            stop_server(server)
