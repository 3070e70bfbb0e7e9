"""URL patterns of the tournaments API (mounted under /api/v1/)."""

urlpatterns: list = []
