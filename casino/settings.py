"""Django settings for casino-ledger, read from environment variables.

DATABASE_URL      PostgreSQL URL; unset: an embedded PostgreSQL (pgserver) in
                  CASINO_DATA_DIR (default: <project>/.data). Never SQLite.
CASINO_DATABASE_NAME  the database's name on that server (default: the
                  URL's, or "casino" on the embedded server).
CELERY_BROKER_URL Redis URL; unset: tasks run eagerly in-process, unless the
                  caller starts an embedded Redis (the demo, the Celery tests).
SECRET_KEY        required when DEBUG is off.
DEBUG             "1"/"true" to enable; off by default.
ALLOWED_HOSTS     comma-separated; default "127.0.0.1,localhost".
TIME_ZONE         default Europe/Helsinki (a venue's own zone comes from its
                  rulebook; this is only the project default).
"""

import os
from pathlib import Path

import dj_database_url
from celery.schedules import crontab

from casino.embedded import DATABASE_OPTIONS, embedded_postgres_settings

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("CASINO_DATA_DIR", BASE_DIR / ".data"))


def _env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


DEBUG = _env_bool("DEBUG")
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG and os.environ.get("CASINO_REQUIRE_SECRET_KEY") == "1":
        raise RuntimeError("SECRET_KEY must be set when DEBUG is off")
    # Decision: an unset key gets a fixed development value so the two README
    # commands work on a fresh machine; compose.yaml and any deployment set it.
    SECRET_KEY = "casino-ledger-development-key-not-for-production"

ALLOWED_HOSTS = [
    host.strip()
    for host in os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost").split(",")
    if host.strip()
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "ledger",
    "casino.rules",
    "casino.players",
    "casino.compliance",
    "casino.cage",
    "casino.poker",
    "casino.jackpots",
    "casino.games",
    "casino.machines",
    "casino.cashier",
    "casino.tablegames",
    "casino.tournaments",
    "casino.reports",
    "casino.officers",
    "casino.demo",
]

# Officers and auditors who are not superusers may view the ledger's and the
# event-backed apps' admin pages by their role (view only: every ModelAdmin
# refuses add, change and delete), casino/officers/backends.py.
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "casino.officers.backends.RoleViewBackend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Serves the admin's static files under gunicorn (compose) without nginx.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "casino.middleware.WriteRequestMiddleware",
]

ROOT_URLCONF = "casino.urls"
WSGI_APPLICATION = "casino.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# True when the database is the embedded default: the only server on which
# benchmarks and tools make throwaway databases unasked (casino/throwaway.py).
DATABASE_EMBEDDED = not os.environ.get("DATABASE_URL")
if DATABASE_EMBEDDED:
    DATABASES = {"default": embedded_postgres_settings(
        DATA_DIR / "postgres", name=os.environ.get("CASINO_DATABASE_NAME") or None)}
else:
    DATABASES = {"default": dj_database_url.config(conn_max_age=60)}
    DATABASES["default"].setdefault("OPTIONS", {}).update(DATABASE_OPTIONS)
    if os.environ.get("CASINO_DATABASE_NAME"):
        DATABASES["default"]["NAME"] = os.environ["CASINO_DATABASE_NAME"]
# One test database per test process, so concurrent runs on one server (two
# developers, or a benchmark beside the tests) never drop each other's.
DATABASES["default"].setdefault("TEST", {})["NAME"] = (
    f"test_{DATABASES['default']['NAME']}_{os.getpid()}"
)
if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
    raise RuntimeError("casino-ledger runs on PostgreSQL only (DATABASE_URL)")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = os.environ.get("TIME_ZONE", "Europe/Helsinki")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# The Docker image collects static files into STATIC_ROOT; elsewhere (the demo,
# tests) whitenoise serves the admin's assets straight from the apps.
STATIC_ROOT = os.environ.get("STATIC_ROOT") or None
WHITENOISE_USE_FINDERS = True

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # The role matrix (casino.roles.MATRIX) governs every operation under
    # /api/v1/, the ledger's read views included.
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated",
                                   "casino.roles.HasRole"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "casino.exception_handler.exception_handler",
    "UNAUTHENTICATED_USER": None,
}

# The catch-up feed shows each client only what its roles may read elsewhere,
# personal data hidden from all but officers and auditors (issue 16).
LEDGER_FEED_FILTER = "casino.roles.feed_filter"

SPECTACULAR_SETTINGS = {
    "TITLE": "casino-ledger API",
    "DESCRIPTION": "Event-sourced casino ledger and compliance backend.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "casino.openapi.add_common_errors",
    ],
    "ENUM_NAME_OVERRIDES": {
        "LimitKindEnum": "casino.players.models.LimitKind",
        "VerificationMethodEnum": "casino.players.models.VerificationMethod",
        "TransferMethodEnum": "casino.cage.api.serializers.TRANSFER_METHODS",
        "ChipPaymentMeansEnum": "casino.cage.api.serializers.CHIP_PAYMENT_MEANS",
    },
}

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", CELERY_BROKER_URL or None)
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TIMEZONE = TIME_ZONE
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Static entries; the jackpot roll-ups are added per pool by the scheduler
# (casino.jackpots.beat, set in casino/celery.py), which keeps these.
CELERY_BEAT_SCHEDULE = {
    # Hourly, a no-op once sealed: seals every ended gaming day after verifying
    # the chain, catching up days missed while beat was down.
    "reports.seal-ended-days": {"task": "reports.seal_ended_days",
                                "schedule": crontab(minute=30)},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
