"""URL patterns of the reports API (mounted under /api/v1/)."""

from django.urls import path

from .views import DayClosesView, DayCloseView, DaySealsView, JournalExportsView, JournalView

urlpatterns = [
    path("reports/journal", JournalView.as_view(), name="reports-journal"),
    path("reports/exports", JournalExportsView.as_view(), name="reports-exports"),
    path("reports/closes", DayClosesView.as_view(), name="reports-closes"),
    path("reports/closes/<str:venue>/<str:day>", DayCloseView.as_view(),
         name="reports-close"),
    path("reports/seals", DaySealsView.as_view(), name="reports-seals"),
]
