"""URL patterns of the jackpots API (mounted under /api/v1/)."""

from django.urls import path

from .views import (
    ApproveHitView,
    HitDetailsView,
    HitsView,
    PayHitView,
    PoolDetailsView,
    PoolsView,
    RejectHitView,
    RollupsView,
    TermsView,
)

urlpatterns = [
    path("jackpots/pools", PoolsView.as_view(), name="jackpot-pools"),
    path("jackpots/pools/<str:venue>/<str:kind>", PoolDetailsView.as_view(),
         name="jackpot-pool"),
    path("jackpots/pools/<str:venue>/<str:kind>/rollups", RollupsView.as_view(),
         name="jackpot-rollups"),
    path("jackpots/pools/<str:venue>/<str:kind>/terms", TermsView.as_view(),
         name="jackpot-terms"),
    path("jackpots/hits", HitsView.as_view(), name="jackpot-hits"),
    path("jackpots/hits/<str:hit_id>", HitDetailsView.as_view(), name="jackpot-hit"),
    path("jackpots/hits/<str:hit_id>/approve", ApproveHitView.as_view(),
         name="jackpot-hit-approve"),
    path("jackpots/hits/<str:hit_id>/reject", RejectHitView.as_view(),
         name="jackpot-hit-reject"),
    path("jackpots/hits/<str:hit_id>/pay", PayHitView.as_view(), name="jackpot-hit-pay"),
]
