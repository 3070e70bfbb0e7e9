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
  transaction) but truncate none; it cannot change the migration history.

`grant_statements(runtime, owner)` is the SQL the owner runs after each
migration (`python -m casino.dbroles --runtime casino_app`, connected as the
owner); default privileges carry it to tables later migrations create.
tests/security/test_db_roles.py tries each forbidden statement as the
runtime role.

Not done here: the embedded default (pgserver) still connects as its
superuser, so the test runner can create its databases; compose runs the
two roles.
"""

from __future__ import annotations

# The append-only log: the runtime role reads and inserts, nothing else.
LOG_TABLES = ("ledger_event", "ledger_posting", "ledger_idempotency")
# Only the owner (migrate) writes the migration history.
OWNER_ONLY_TABLES = ("django_migrations",)


def _ident(name: str) -> str:
    if not name.replace("_", "").isalnum():
        raise ValueError(f"not a plain role name: {name!r}")
    return f'"{name}"'


def grant_statements(runtime: str, owner: str) -> list[str]:
    """The grants that make `runtime` the least-privilege role of the schema `owner` owns."""
    app, own = _ident(runtime), _ident(owner)
    log = ", ".join(LOG_TABLES)
    owner_only = ", ".join(OWNER_ONLY_TABLES)
    return [
        f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {app}",
        f"GRANT USAGE ON SCHEMA public TO {app}",
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {app}",
        f"REVOKE UPDATE, DELETE, TRUNCATE ON {log} FROM {app}",
        f"REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON {owner_only} FROM {app}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {app}",
        f"ALTER DEFAULT PRIVILEGES FOR ROLE {own} IN SCHEMA public"
        f" GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {app}",
        f"ALTER DEFAULT PRIVILEGES FOR ROLE {own} IN SCHEMA public"
        f" GRANT USAGE, SELECT ON SEQUENCES TO {app}",
    ]


def create_runtime_role(cursor, runtime: str, password: str | None = None) -> None:
    """Create the runtime role if missing: LOGIN, no superuser, no role or database creation."""
    if password and "'" in password:
        raise ValueError("a password with a quote")
    login = f"LOGIN PASSWORD '{password}'" if password else "NOLOGIN"
    cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [runtime])
    if cursor.fetchone() is None:
        cursor.execute(f"CREATE ROLE {_ident(runtime)} {login} NOSUPERUSER NOCREATEDB"
                       " NOCREATEROLE NOREPLICATION NOBYPASSRLS")


def grant(cursor, runtime: str, owner: str) -> None:
    for statement in grant_statements(runtime, owner):
        cursor.execute(statement)


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
