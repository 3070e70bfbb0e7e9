"""Celery entry points of the webhooks: subscription ids in, sending inside."""

from __future__ import annotations

from celery import shared_task

from . import sending


@shared_task(name="casino.webhooks.tasks.deliver")
def deliver(subscription_id: int) -> dict:
    """Send a subscription's due deliveries (idempotent; one sender at a time)."""
    result = sending.deliver_due(int(subscription_id))
    return {"sent": result.sent, "failed": result.failed, "busy": result.busy}


@shared_task(name="casino.webhooks.tasks.sweep")
def sweep() -> list[int]:
    """Queue `deliver` for every subscription with something due (beat, every few seconds).

    Retries after a backoff, a kick lost with its process, and new
    subscriptions' backfills are all sent from here.
    """
    due = sending.due_subscriptions()
    for subscription_id in due:
        deliver.delay(subscription_id)
    return due
