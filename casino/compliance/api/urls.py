"""URL patterns of this app's REST API (mounted under /api/v1/)."""

urlpatterns: list = []
