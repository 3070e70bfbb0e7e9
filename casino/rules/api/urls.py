"""URL patterns of this app's REST API (mounted under /api/v1/)."""

from django.urls import path

from .views import (
    RulebookVersionDetailsView,
    RulebookVersionsView,
    VenueChangesView,
    VenueDetailsView,
    VenuesView,
)

urlpatterns = [
    path("rulebooks", RulebookVersionsView.as_view(), name="rulebook-versions"),
    path("rulebooks/<str:rulebook_id>/<int:version>", RulebookVersionDetailsView.as_view(),
         name="rulebook-version-details"),
    path("venues", VenuesView.as_view(), name="venues"),
    path("venues/<str:code>", VenueDetailsView.as_view(), name="venue-details"),
    path("venues/<str:code>/changes", VenueChangesView.as_view(), name="venue-changes"),
]
