"""URL patterns of table-games accounting's REST API (mounted under /api/v1/)."""

from django.urls import path

from .views import ClosesView, CreditsView, FillsView, OpeningsView, SoftCountsView

urlpatterns = [
    path("tablegames/<str:table>/openings", OpeningsView.as_view(), name="tablegames-open"),
    path("tablegames/<str:table>/fills", FillsView.as_view(), name="tablegames-fills"),
    path("tablegames/<str:table>/credits", CreditsView.as_view(), name="tablegames-credits"),
    path("tablegames/<str:table>/closes", ClosesView.as_view(), name="tablegames-closes"),
    path("tablegames/<str:table>/soft-counts", SoftCountsView.as_view(),
         name="tablegames-soft-counts"),
]
