from django.urls import path

from . import views

urlpatterns = [
    path("webhooks/subscriptions", views.SubscriptionsView.as_view(),
         name="webhook-subscriptions"),
    path("webhooks/subscriptions/<str:subscription_id>", views.SubscriptionDetailsView.as_view(),
         name="webhook-subscription-details"),
    path("webhooks/subscriptions/<str:subscription_id>/secrets",
         views.SecretRotationsView.as_view(), name="webhook-secret-rotations"),
]
