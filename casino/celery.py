"""The Celery application: configured from Django settings (CELERY_*).

Defaults set here (a CELERY_* setting overrides them):

- beat_scheduler: `casino.jackpots.beat:JackpotScheduler`, which adds one
  roll-up entry per jackpot pool, due at the end of its venue's gaming day
  in the venue's zone (casino/jackpots/beat.py). Run exactly one beat.
- broker_transport_options.visibility_timeout: with late acknowledgement
  (CELERY_TASK_ACKS_LATE), a task whose worker died is delivered again after
  this many seconds (env CELERY_VISIBILITY_TIMEOUT_SECONDS, default 3600).
  Every task is idempotent, so a redelivery posts nothing twice. A short
  timeout (the integration tests use 4 s) also makes the sweep that looks
  for such tasks run every second instead of every 100 s (kombu's
  unacked_restore_interval x unacked_restore_throttle).
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

app = Celery("casino")
app.config_from_object("django.conf:settings", namespace="CELERY")
VISIBILITY_TIMEOUT_SECONDS = int(os.environ.get("CELERY_VISIBILITY_TIMEOUT_SECONDS", "3600"))
app.add_defaults({
    "beat_scheduler": "casino.jackpots.beat:JackpotScheduler",
    "broker_transport_options": {
        "visibility_timeout": VISIBILITY_TIMEOUT_SECONDS,
        **({"unacked_restore_interval": 1, "unacked_restore_throttle": 1}
           if VISIBILITY_TIMEOUT_SECONDS < 60 else {}),
    },
})
app.autodiscover_tasks()
