"""Liveness and readiness (issue 18 item 5).

GET /health/live   200 while the process answers (no dependency is asked):
                   the container's healthcheck, a restart only when it hangs.
GET /health/ready  200 when every check passes, else 503; the body names each
                   check and what it found. For the load balancer:
  database    `SELECT 1` on the default connection;
  broker      a connection to CELERY_BROKER_URL (tasks run eagerly without one:
              then "eager", which passes);
  migrations  no migration left unapplied (the one-shot `migrate` has run);
  ledger      the chain was last verified (a recorded `compliance.chain_verified`
              that was OK, or a day seal, which verifies the chain first) no
              longer ago than LEDGER_VERIFY_WINDOW_SECONDS; a log with no
              event needs none. Its lag is the `ledger_verification_lag_seconds`
              metric too.

Both answer without authentication and are exempt from the SSL redirect (the
healthcheck calls plain http on localhost); they show no personal data.
"""

from __future__ import annotations

import datetime as dt
from typing import Callable

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from casino import clock


def _database() -> str:
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return "ok"


def _broker() -> str:
    url = getattr(settings, "CELERY_BROKER_URL", "")
    if not url:
        return "eager"
    from kombu import Connection

    with Connection(url, connect_timeout=3) as connection:
        connection.ensure_connection(max_retries=1, timeout=3)
    return "ok"


def _migrations() -> str:
    executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
    pending = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if pending:
        raise RuntimeError(f"{len(pending)} migration(s) not applied, first "
                           f"{pending[0][0].app_label}.{pending[0][0].name}")
    return "ok"


def last_verified_at() -> dt.datetime | None:
    """When the chain was last verified OK: a recorded verification or a day seal."""
    from casino.compliance.models import ChainVerification
    from casino.reports.models import DaySeal

    times = [
        ChainVerification.objects.filter(ok=True).order_by("-verified_at")
        .values_list("verified_at", flat=True).first(),
        DaySeal.objects.order_by("-recorded_at").values_list("recorded_at", flat=True).first(),
    ]
    times = [moment for moment in times if moment is not None]
    return max(times) if times else None


def verification_lag_seconds() -> float:
    """Seconds since the chain was last verified; 0 for an empty log.

    Never verified: the age of the log's first event (it has waited that long).
    """
    from ledger.read import Event

    verified = last_verified_at()
    if verified is None:
        first = Event.objects.order_by("position").values_list("recorded_at", flat=True).first()
        if first is None:
            return 0.0
        verified = first
    return max(0.0, (clock.now() - verified).total_seconds())


def _ledger() -> str:
    lag = verification_lag_seconds()
    window = settings.LEDGER_VERIFY_WINDOW_SECONDS
    if lag > window:
        raise RuntimeError(f"last verified {lag:.0f} s ago, window {window} s")
    return f"ok (verified {lag:.0f} s ago)"


CHECKS: dict[str, Callable[[], str]] = {
    "database": _database,
    "broker": _broker,
    "migrations": _migrations,
    "ledger": _ledger,
}


@never_cache
@require_GET
def live(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@never_cache
@require_GET
def ready(request: HttpRequest) -> JsonResponse:
    results: dict[str, dict[str, object]] = {}
    for name, check in CHECKS.items():
        try:
            results[name] = {"ok": True, "detail": check()}
        except Exception as error:  # noqa: BLE001 - a failed check is an answer
            results[name] = {"ok": False, "detail": f"{type(error).__name__}: {error}"}
    ok = all(result["ok"] for result in results.values())
    return JsonResponse({"status": "ok" if ok else "unavailable", "checks": results},
                        status=200 if ok else 503)
