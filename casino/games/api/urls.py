"""URL patterns of the games API (mounted under /api/v1/)."""

urlpatterns: list = []
