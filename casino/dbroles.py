"""The least-privilege database roles (issue 16, item 6 of the issue).

Two roles, besides the cluster's superuser (which only creates them):

- the **owner** (`casino_owner` in compose) owns the database and its
  tables and runs the migrations, `rebuild_projections` and these grants;
- the **runtime** role (`casino_app`) is what the web app, the Celery
  worker and beat connect as. It is no superuser and owns nothing, so it
  cannot disable a trigger, alter or drop a table, or set
  `session_replication_role` (superuser only). It may read every table and
  insert into the log (events, postings, idempotency records), and never
  update, delete or truncate them; it may insert, update and delete
  projection rows (the inline projections are written in the append's
  transaction) but truncate none; it cannot change the migration history,
  nor write the balances and stream versions (TRIGGER_MAINTAINED_TABLES),
  which only the log's insert triggers move.

`grant_statements(runtime, owner)` is the SQL the owner runs after each
migration (`python -m casino.dbroles --runtime casino_app`, connected as the
owner); default privileges carry it to tables later migrations create.
tests/security/test_db_roles.py tries each forbidden statement as the
runtime role.

The embedded default (casino/embedded.py) provisions the same two roles on
its own server and connects as the runtime role, except migrations (the
owner) and the test run (the superuser: it creates a database per process
and tampers on purpose); compose runs the two roles.
"""

from __future__ import annotations

# The append-only log: the runtime role reads and inserts, nothing else.
LOG_TABLES = ("ledger_event", "ledger_posting", "ledger_idempotency")
# Only the owner writes the migration history (migrate) and the books'
# directory (open_book, move_book: a runtime role that could rewrite it
# could send a book's appends to another database).
OWNER_ONLY_TABLES = ("django_migrations", "ledger_placement")
# The rows the writer decides with: only the log's insert triggers write
# them (SECURITY DEFINER, as the owner; migration 0004), so the runtime role
# reads them and nothing else, and a refused UPDATE is PostgreSQL's privilege
# check, not only the trigger's.
TRIGGER_MAINTAINED_TABLES = ("ledger_account", "ledger_stream")


def _ident(name: str) -> str:
    if not name.replace("_", "").isalnum():
        raise ValueError(f"not a plain role name: {name!r}")
    return f'"{name}"'


def grant_statements(runtime: str, owner: str,
                     existing: set[str] | None = None) -> list[str]:
    """The grants that make `runtime` the least-privilege role of the schema `owner` owns.

    `existing`: the tables there are (None: all of them); the revokes on
    the log and the migration history skip tables not created yet (a new
    database, before its first migration).
    """
    app, own = _ident(runtime), _ident(owner)
    log = ", ".join(t for t in LOG_TABLES if existing is None or t in existing)
    owner_only = ", ".join(t for t in (*OWNER_ONLY_TABLES, *TRIGGER_MAINTAINED_TABLES)
                           if existing is None or t in existing)
    return [
        f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {app}",
        f"GRANT USAGE ON SCHEMA public TO {app}",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {app}",
        *([f"REVOKE UPDATE, DELETE, TRUNCATE ON {log} FROM {app}"] if log else []),
        *([f"REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON {owner_only} FROM {app}"]
          if owner_only else []),
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {app}",
        f"ALTER DEFAULT PRIVILEGES FOR ROLE {own} IN SCHEMA public"
        f" GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {app}",
        f"ALTER DEFAULT PRIVILEGES FOR ROLE {own} IN SCHEMA public"
        f" GRANT USAGE, SELECT ON SEQUENCES TO {app}",
    ]


def create_runtime_role(cursor, runtime: str, password: str | None = None, *,
                        login: bool = False) -> None:
    """Create the runtime role if missing: no superuser, no role or database creation.

    It may log in with `password`, or without one when `login` (the
    embedded server's local socket trusts its users); otherwise NOLOGIN.
    """
    if password and "'" in password:
        raise ValueError("a password with a quote")
    login = (f"LOGIN PASSWORD '{password}'" if password
             else "LOGIN" if login else "NOLOGIN")
    cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [runtime])
    if cursor.fetchone() is None:
        cursor.execute(f"CREATE ROLE {_ident(runtime)} {login} NOSUPERUSER NOCREATEDB"
                       " NOCREATEROLE NOREPLICATION NOBYPASSRLS")


def grant(cursor, runtime: str, owner: str) -> None:
    """Run the grants; also let `runtime` make temporary tables in this database
    (verify_ledger rebuilds the projections into them, ledger/verify.py)."""
    cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    existing = {row[0] for row in cursor.fetchall()}
    for statement in grant_statements(runtime, owner, existing):
        cursor.execute(statement)
    cursor.execute("SELECT current_database()")
    database = cursor.fetchone()[0]
    cursor.execute(f'GRANT CONNECT, TEMPORARY ON DATABASE "{database.replace(chr(34), "")}"'
                   f" TO {_ident(runtime)}")


def main(argv: list[str] | None = None) -> None:
    """Grant (and, with --password and CREATEROLE, create) the runtime role, as the owner."""
    import argparse
    import os

    parser = argparse.ArgumentParser(prog="python -m casino.dbroles",
                                     description=main.__doc__)
    parser.add_argument("--runtime", default=os.environ.get("CASINO_RUNTIME_ROLE", "casino_app"))
    parser.add_argument("--password", default=os.environ.get("CASINO_RUNTIME_PASSWORD"))
    arguments = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    import django

    django.setup()
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        owner = cursor.fetchone()[0]
        if arguments.password:
            create_runtime_role(cursor, arguments.runtime, arguments.password)
        grant(cursor, arguments.runtime, owner)
    print(f"dbroles: runtime={arguments.runtime} owner={owner}")


if __name__ == "__main__":
    main()
