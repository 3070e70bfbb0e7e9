from django.urls import path

from .views import AccountDetailsView, EventFeedView

urlpatterns = [
    path("events", EventFeedView.as_view(), name="event-feed"),
    path("accounts/<path:code>", AccountDetailsView.as_view(), name="account-details"),
]
