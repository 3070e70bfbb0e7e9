"""URL patterns of the machines API (mounted under /api/v1/)."""

from django.urls import path

from .views import (
    CashInsView,
    CashOutsView,
    MachineDetailsView,
    MachinesView,
    MetersView,
    PremisesView,
    RedemptionsView,
    RoundsView,
)

urlpatterns = [
    path("machine-premises", PremisesView.as_view(), name="machines-premises"),
    path("machines", MachinesView.as_view(), name="machines"),
    path("machines/<str:machine_id>", MachineDetailsView.as_view(), name="machines-machine"),
    path("machines/<str:machine_id>/rounds", RoundsView.as_view(), name="machines-rounds"),
    path("machines/<str:machine_id>/cash-ins", CashInsView.as_view(),
         name="machines-cash-ins"),
    path("machines/<str:machine_id>/cash-outs", CashOutsView.as_view(),
         name="machines-cash-outs"),
    path("machines/<str:machine_id>/meters", MetersView.as_view(), name="machines-meters"),
    path("vouchers/<str:voucher_id>/redemptions", RedemptionsView.as_view(),
         name="machines-redemptions"),
]
