"""Exactly one Celery beat, guaranteed by a PostgreSQL advisory lock (issue 18).

    python -m casino.ops.singlebeat celery -A casino beat --loglevel INFO

The wrapper takes a session-level advisory lock on the application database,
then starts the command (beat) as its child and holds the lock for as long as
the child runs. A second wrapper (a second beat container, a beat started by
hand) waits for the lock and starts nothing meanwhile; when the holder dies,
PostgreSQL frees the lock with its session and one waiting wrapper takes over.
If the wrapper loses its database session, it stops its beat and exits non-zero
(the container restarts and queues for the lock again), so two beats never run
together on a split network either.

SIGTERM and SIGINT are forwarded to the child. The wrapper's exit status is
the child's.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

# A fixed 64-bit key: "casino-ledger beat" (any number unique to this use).
BEAT_LOCK_KEY = 0x63617369_6e6f6274
POLL_SECONDS = float(os.environ.get("CASINO_BEAT_LOCK_POLL_SECONDS", "5"))


def _connect():
    import psycopg
    from django.conf import settings

    db = settings.DATABASES["default"]
    return psycopg.connect(
        dbname=db["NAME"], user=db.get("USER") or None, password=db.get("PASSWORD") or None,
        host=db.get("HOST") or None, port=db.get("PORT") or None, autocommit=True,
        application_name="casino-beat-lock")


def holder_pid() -> int | None:
    """The backend pid of the session holding the beat lock, or None (the healthcheck)."""
    with _connect() as connection:
        row = connection.execute(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            " AND ((classid::bigint << 32) | objid::bigint) = %s", [BEAT_LOCK_KEY]).fetchone()
    return row[0] if row else None


def main(argv: list[str]) -> int:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    django.setup()
    if argv[:1] == ["--check"]:
        # Healthy when some session holds the lock (a beat runs).
        return 0 if holder_pid() is not None else 1
    if not argv:
        print("usage: python -m casino.ops.singlebeat COMMAND [ARGS...] | --check",
              file=sys.stderr)
        return 2
    connection = _connect()
    stopping = False

    def _stop(signum, _frame):
        nonlocal stopping
        stopping = True
        if child is not None:
            child.send_signal(signum)

    child: subprocess.Popen | None = None
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    announced = False
    while not connection.execute("SELECT pg_try_advisory_lock(%s)",
                                 [BEAT_LOCK_KEY]).fetchone()[0]:
        if not announced:
            print("singlebeat: another beat holds the lock; waiting", file=sys.stderr,
                  flush=True)
            announced = True
        if stopping:
            return 0
        time.sleep(POLL_SECONDS)
    print(f"singlebeat: lock {BEAT_LOCK_KEY:#x} held; starting {' '.join(argv)}",
          file=sys.stderr, flush=True)
    child = subprocess.Popen(argv)
    while True:
        try:
            return child.wait(timeout=POLL_SECONDS)
        except subprocess.TimeoutExpired:
            pass
        try:
            connection.execute("SELECT 1")
        except Exception:  # the session, and with it the lock, is gone
            print("singlebeat: lost the database session; stopping beat", file=sys.stderr,
                  flush=True)
            child.terminate()
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
            return 75  # EX_TEMPFAIL: restart and queue for the lock again


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
