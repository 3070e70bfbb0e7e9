"""Structured logs (structlog): one JSON object a line (issue 18 item 6).

`logging_config()` returns the formatter settings casino/settings.py puts on
its console handler: every record, Django's, Celery's and the app's own
structlog events alike, goes through structlog's ProcessorFormatter and
carries the request's `request_id` and `correlation_id` (bound by
casino.ops.middleware), a UTC ISO timestamp, the level and the logger.
LOG_FORMAT=json (compose's default) renders JSON; anything else, readable
key=value lines for a terminal.
"""

from __future__ import annotations

import structlog

SHARED = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
]


def configure(log_format: str) -> dict:
    """Configure structlog and return the `formatters` entry for LOGGING."""
    structlog.configure(
        processors=[*SHARED, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )
    renderer = (structlog.processors.JSONRenderer() if log_format == "json"
                else structlog.dev.ConsoleRenderer(colors=False))
    return {
        "structured": {
            "()": structlog.stdlib.ProcessorFormatter,
            "foreign_pre_chain": SHARED,
            "processors": [structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                           structlog.processors.format_exc_info, renderer],
        },
    }
