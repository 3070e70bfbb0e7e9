"""URL patterns of the sit'n'go jackpot API (mounted under /api/v1/)."""

from django.urls import path

from .views import SeriesDetailsView, SeriesView, TournamentsView

urlpatterns = [
    path("sitngo/series", SeriesView.as_view(), name="sitngo-series"),
    path("sitngo/series/<str:series_id>", SeriesDetailsView.as_view(),
         name="sitngo-series-details"),
    path("sitngo/series/<str:series_id>/tournaments", TournamentsView.as_view(),
         name="sitngo-tournaments"),
]
