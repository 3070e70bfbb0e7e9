"""URL patterns of the games API (mounted under /api/v1/)."""

from django.urls import path

from .views import (
    BetsView,
    CloseView,
    OutcomeView,
    RoundDetailsView,
    RoundsView,
    SettleView,
    TableDetailsView,
    TablesView,
    VoidView,
)

urlpatterns = [
    path("games/tables", TablesView.as_view(), name="games-tables"),
    path("games/tables/<str:table_id>", TableDetailsView.as_view(), name="games-table"),
    path("games/tables/<str:table_id>/rounds", RoundsView.as_view(), name="games-rounds"),
    path("games/rounds/<str:round_id>", RoundDetailsView.as_view(), name="games-round"),
    path("games/rounds/<str:round_id>/bets", BetsView.as_view(), name="games-bets"),
    path("games/rounds/<str:round_id>/close", CloseView.as_view(), name="games-close"),
    path("games/rounds/<str:round_id>/outcome", OutcomeView.as_view(), name="games-outcome"),
    path("games/rounds/<str:round_id>/settle", SettleView.as_view(), name="games-settle"),
    path("games/rounds/<str:round_id>/void", VoidView.as_view(), name="games-void"),
]
