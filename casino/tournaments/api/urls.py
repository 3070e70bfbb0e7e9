"""URL patterns of the tournaments API (mounted under /api/v1/)."""

from django.urls import path

from .views import ACTIONS, AnnounceView, TournamentDetailsView

urlpatterns = [
    path("tournaments", AnnounceView.as_view(), name="tournaments-announce"),
    path("tournaments/<str:tournament_id>", TournamentDetailsView.as_view(),
         name="tournaments-details"),
    *[path(f"tournaments/<str:tournament_id>/{name}", view.as_view(),
           name=f"tournaments-{name}") for name, view in ACTIONS.items()],
]
