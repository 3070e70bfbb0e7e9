"""URL patterns of the officers API (mounted under /api/v1/)."""

urlpatterns: list = []
