"""URL patterns of this app's REST API (mounted under /api/v1/)."""

from django.urls import path

from .views import (
    ChipPurchasesView,
    ChipRedemptionsView,
    DepositsView,
    VenueFloatView,
    WithdrawalsView,
)

urlpatterns = [
    path("cage/deposits", DepositsView.as_view(), name="cage-deposits"),
    path("cage/withdrawals", WithdrawalsView.as_view(), name="cage-withdrawals"),
    path("cage/chip-purchases", ChipPurchasesView.as_view(), name="cage-chip-purchases"),
    path("cage/chip-redemptions", ChipRedemptionsView.as_view(), name="cage-chip-redemptions"),
    path("cage/venues/<str:venue>/float", VenueFloatView.as_view(), name="cage-venue-float"),
]
