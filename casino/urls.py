"""URL configuration: the admin, the versioned REST API and its schema."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

urlpatterns = [
    path("admin/", admin.site.urls),
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
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="swagger-ui"),
]

handler404 = "casino.views.not_found"
