"""URL patterns of this app's REST API (mounted under /api/v1/)."""

from django.urls import path

from .case_views import (
    AlertDismissalsView,
    CaseDetailsView,
    CaseEventsView,
    CaseNotesView,
    CasesView,
    CaseStateView,
    ChainVerificationsView,
)
from .views import (
    AlertDetailsView,
    AlertsView,
    CorrectionApprovalView,
    CorrectionDetailsView,
    CorrectionRejectionView,
    CorrectionsView,
    StakeCheckView,
)

urlpatterns = [
    path("checks/stake", StakeCheckView.as_view(), name="stake-check"),
    path("alerts", AlertsView.as_view(), name="alerts"),
    # Alert ids hold a slash ("alert/<position>"), so the id is a path.
    path("alerts/<path:alert_id>", AlertDetailsView.as_view(), name="alert-details"),
    path("corrections", CorrectionsView.as_view(), name="corrections"),
    path("corrections/<str:correction_id>", CorrectionDetailsView.as_view(),
         name="correction-details"),
    path("corrections/<str:correction_id>/approve", CorrectionApprovalView.as_view(),
         name="correction-approval"),
    path("corrections/<str:correction_id>/reject", CorrectionRejectionView.as_view(),
         name="correction-rejection"),
    path("compliance/cases", CasesView.as_view(), name="cases"),
    path("compliance/cases/<str:case_id>", CaseDetailsView.as_view(), name="case-details"),
    path("compliance/cases/<str:case_id>/notes", CaseNotesView.as_view(), name="case-notes"),
    path("compliance/cases/<str:case_id>/state", CaseStateView.as_view(), name="case-state"),
    path("compliance/cases/<str:case_id>/events", CaseEventsView.as_view(),
         name="case-events"),
    path("compliance/alert-dismissals", AlertDismissalsView.as_view(),
         name="alert-dismissals"),
    path("compliance/chain-verifications", ChainVerificationsView.as_view(),
         name="chain-verifications"),
]
