from django.urls import path

from . import views

urlpatterns = [
    path("players/<str:player_id>/erasures", views.ErasuresView.as_view(),
         name="player-erasures"),
    path("players/<str:player_id>/erasures/approve", views.ErasureApprovalView.as_view(),
         name="player-erasure-approval"),
]
