"""URL patterns of this app's REST API (mounted under /api/v1/)."""

from django.urls import path

from .views import (
    IdentityVerificationView,
    PlayerDetailsView,
    PlayerLimitsView,
    PlayerRegistrationView,
    SelfExclusionView,
)

urlpatterns = [
    path("players", PlayerRegistrationView.as_view(), name="player-registration"),
    path("players/<str:player_id>", PlayerDetailsView.as_view(), name="player-details"),
    path("players/<str:player_id>/verification", IdentityVerificationView.as_view(),
         name="player-verification"),
    path("players/<str:player_id>/self-exclusion", SelfExclusionView.as_view(),
         name="player-self-exclusion"),
    path("players/<str:player_id>/limits", PlayerLimitsView.as_view(), name="player-limits"),
]
