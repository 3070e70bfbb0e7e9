"""URL patterns of the cashier windows' REST API (mounted under /api/v1/)."""

from django.urls import path

from .views import ShiftClosesView, ShiftsView, TransfersView

urlpatterns = [
    path("cashier/shifts", ShiftsView.as_view(), name="cashier-shifts"),
    path("cashier/shift-closes", ShiftClosesView.as_view(), name="cashier-shift-closes"),
    path("cashier/transfers", TransfersView.as_view(), name="cashier-transfers"),
]
