"""URL configuration: the admin, the versioned REST API and its schema."""

from django.contrib import admin
from django.urls import include, path

from casino.ops import health as ops_health, metrics as ops_metrics
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView
from drf_spectacular.views import SpectacularSwaggerSplitView

from casino.keys.views import two_factor

urlpatterns = [
    # Before the admin's own URLs: the admin's second factor (casino.keys).
    path("admin/two-factor/", two_factor, name="admin-two-factor"),
    path("admin/", admin.site.urls),
    # Operations (casino/ops, issue 18): liveness, readiness, Prometheus.
    path("health/live", ops_health.live, name="health-live"),
    path("health/ready", ops_health.ready, name="health-ready"),
    path("metrics", ops_metrics.metrics, name="metrics"),
    path("api/v1/", include("ledger.api.urls")),
    path("api/v1/", include("casino.rules.api.urls")),
    path("api/v1/", include("casino.players.api.urls")),
    path("api/v1/", include("casino.compliance.api.urls")),
    path("api/v1/", include("casino.cage.api.urls")),
    path("api/v1/", include("casino.poker.api.urls")),
    path("api/v1/", include("casino.jackpots.api.urls")),
    path("api/v1/", include("casino.games.api.urls")),
    path("api/v1/", include("casino.machines.api.urls")),
    path("api/v1/", include("casino.tournaments.api.urls")),
    path("api/v1/", include("casino.sitngo.api.urls")),
    path("api/v1/", include("casino.reports.api.urls")),
    path("api/v1/", include("casino.cashier.api.urls")),
    path("api/v1/", include("casino.tablegames.api.urls")),
    path("api/v1/", include("casino.webhooks.api.urls")),
    path("api/v1/", include("casino.privacy.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start script as a file of its own, so
    # the page runs under the CSP's script-src 'self' (no inline script), and
    # every asset comes from /static/ (drf-spectacular-sidecar): no CDN (issue 18).
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
    path("api/redoc/", SpectacularRedocView.as_view(url_name="schema",
                                                    template_name="ops/redoc.html"),
         name="redoc"),
]

handler404 = "casino.views.not_found"
