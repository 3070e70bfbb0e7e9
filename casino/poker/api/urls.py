"""URL patterns of the poker API (mounted under /api/v1/)."""

from django.urls import path

from .views import (
    ActionsView,
    BuyInsView,
    CashOutsView,
    DecisionView,
    HandDetailsView,
    HandHistoriesView,
    HandsView,
    ShowdownView,
    TableDetailsView,
    TablesView,
    TimeChargesView,
    VoidView,
)

urlpatterns = [
    path("poker/tables", TablesView.as_view(), name="poker-tables"),
    path("poker/tables/<str:table_id>", TableDetailsView.as_view(), name="poker-table"),
    path("poker/tables/<str:table_id>/buy-ins", BuyInsView.as_view(), name="poker-buy-ins"),
    path("poker/tables/<str:table_id>/cash-outs", CashOutsView.as_view(),
         name="poker-cash-outs"),
    path("poker/tables/<str:table_id>/hands", HandsView.as_view(), name="poker-hands"),
    path("poker/tables/<str:table_id>/time-charges", TimeChargesView.as_view(),
         name="poker-time-charges"),
    path("poker/tables/<str:table_id>/hand-histories", HandHistoriesView.as_view(),
         name="poker-hand-histories"),
    path("poker/hands/<str:hand_id>", HandDetailsView.as_view(), name="poker-hand"),
    path("poker/hands/<str:hand_id>/actions", ActionsView.as_view(), name="poker-actions"),
    path("poker/hands/<str:hand_id>/showdown", ShowdownView.as_view(), name="poker-showdown"),
    path("poker/hands/<str:hand_id>/void", VoidView.as_view(), name="poker-void"),
    path("poker/hands/<str:hand_id>/decision", DecisionView.as_view(),
         name="poker-decision"),
]
