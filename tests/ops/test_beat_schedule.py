"""Every beat entry names a task the worker has, and the logging config holds only logging.

A schedule entry under the wrong settings dict (it happened: the webhooks
sweep landed in LOGGING) would never run, and nothing else would say so.
"""

from __future__ import annotations

from django.conf import settings

from casino.celery import app

# logging.config.dictConfig's keys (Python 3.11).
DICT_CONFIG_KEYS = {"version", "formatters", "filters", "handlers", "loggers", "root",
                    "incremental", "disable_existing_loggers"}


def test_every_beat_entry_names_a_registered_task():
    app.loader.import_default_modules()
    app.autodiscover_tasks(force=True)
    registered = set(app.tasks)
    missing = {name: entry["task"] for name, entry in settings.CELERY_BEAT_SCHEDULE.items()
               if entry["task"] not in registered}
    assert not missing, missing
    assert {"webhooks.sweep", "reports.seal-ended-days"} <= set(settings.CELERY_BEAT_SCHEDULE)


def test_the_logging_config_holds_only_logging_keys():
    assert set(settings.LOGGING) <= DICT_CONFIG_KEYS, set(settings.LOGGING) - DICT_CONFIG_KEYS
