"""casino-ledger's Django project and its casino domain apps.

The Celery app is imported here so that `@shared_task` binds to it whenever
Django starts (the layout Celery's Django guide uses).
"""

from .celery import app as celery_app

__all__ = ["celery_app"]
