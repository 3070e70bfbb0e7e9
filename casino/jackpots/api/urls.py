"""URL patterns of the jackpots API (mounted under /api/v1/)."""

urlpatterns: list = []
