"""Prometheus metrics (prometheus_client), served at GET /metrics (issue 18 item 5).

  http_request_duration_seconds{method,route,status}  per URL pattern (route),
      never per raw path, so ids do not explode the series (middleware.py);
  api_refusals_total{code}   every 4xx answer with a coded error, per rule code
      (`limits.deposit_exceeded`, `request.idempotency_key_reused`...);
  ledger_append_seconds, ledger_group_size, ledger_writer_queue_depth
      from the group writer (ledger/writer.py);
  ledger_verification_lag_seconds  seconds since the chain was last verified
      (health.verification_lag_seconds), read at scrape time;
  webhook_backlog  webhook deliveries pending (casino.webhooks), read at scrape time.

With several gunicorn workers set PROMETHEUS_MULTIPROC_DIR (compose does):
each worker writes its samples there and a scrape sums them. The page holds
no personal data; with METRICS_TOKEN set it answers only a scraper that sends
`Authorization: Bearer <METRICS_TOKEN>` (401 otherwise), else anyone who
reaches it (keep it on the private network).
"""

from __future__ import annotations

import hmac
import os

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter
from prometheus_client import Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily

REQUEST_SECONDS = Histogram("http_request_duration_seconds", "HTTP request latency per route",
                            ["method", "route", "status"])
REFUSALS = Counter("api_refusals_total", "Requests refused with a coded error, per code",
                   ["code"])


class _VerificationLag:
    """Read at scrape time: the lag is a fact of the database, not of a process."""

    def collect(self):
        from casino.ops.health import verification_lag_seconds

        family = GaugeMetricFamily("ledger_verification_lag_seconds",
                                   "Seconds since the hash chain was last verified OK")
        try:
            family.add_metric([], verification_lag_seconds())
        except Exception:  # noqa: BLE001 - no database: no sample, the scrape still answers
            return []
        return [family]


_LAG = _VerificationLag()
REGISTRY.register(_LAG)


class _WebhookBacklog:
    """Read at scrape time: webhook deliveries pending (casino.webhooks, issue 18)."""

    def collect(self):
        from casino.webhooks.sending import backlog

        family = GaugeMetricFamily("webhook_backlog",
                                   "Webhook deliveries not yet delivered nor dead-lettered")
        try:
            family.add_metric([], backlog())
        except Exception:  # noqa: BLE001 - no database: no sample, the scrape still answers
            return []
        return [family]


_WEBHOOK_BACKLOG = _WebhookBacklog()
REGISTRY.register(_WEBHOOK_BACKLOG)


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    token = getattr(settings, "METRICS_TOKEN", "")
    if token and not hmac.compare_digest(request.headers.get("Authorization", ""),
                                         f"Bearer {token}"):
        return HttpResponse("metrics need the scraper's bearer token\n", status=401,
                            content_type="text/plain", headers={"WWW-Authenticate": "Bearer"})
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        registry.register(_LAG)
        registry.register(_WEBHOOK_BACKLOG)
    else:
        registry = REGISTRY
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
