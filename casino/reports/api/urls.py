"""URL patterns of the reports API (mounted under /api/v1/)."""

urlpatterns: list = []
