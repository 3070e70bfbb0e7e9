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
# Production (compose, any deployment): HSTS, secure cookies, SSL redirect, a
# CSP, and no start without a SECRET_KEY (issue 16). `manage.py check
# --deploy` with CASINO_PRODUCTION=1 and a SECRET_KEY gives no warning.
PRODUCTION = _env_bool("CASINO_PRODUCTION")
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if PRODUCTION or (not DEBUG and os.environ.get("CASINO_REQUIRE_SECRET_KEY") == "1"):
        raise RuntimeError("SECRET_KEY must be set in production (CASINO_PRODUCTION=1)")
    # Decision: outside production an unset key is a random one kept in the
    # data folder (created once, mode 0600), so the README's commands work on
    # a fresh machine and no key is public; compose.yaml and any deployment
    # set SECRET_KEY.
    _key_file = DATA_DIR / "secret_key"
    if not _key_file.exists():
        import secrets

        DATA_DIR.mkdir(parents=True, exist_ok=True)
        try:
            with os.fdopen(os.open(_key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600),
                           "w") as _out:
                _out.write(secrets.token_urlsafe(50))
        except FileExistsError:
            pass        # another process wrote it first
    SECRET_KEY = _key_file.read_text().strip()

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
    # Its abstract key model under casino.keys' ClientKey (its own APIKey
    # table is unused).
    "rest_framework_api_key",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "casino.keys",
    "axes",
    "django_filters",
    "drf_spectacular",
    # Swagger UI's and Redoc's assets served from /static/, never a CDN (issue 18).
    "drf_spectacular_sidecar",
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
    "casino.sitngo",
    "casino.reports",
    "casino.officers",
    "casino.demo",
    "casino.ops",
    "casino.webhooks",
    # Personal data sealed per player; erasure by destroying the key (issue 18).
    "casino.privacy",
]

# Officers and auditors who are not superusers may view the ledger's and the
# event-backed apps' admin pages by their role (view only: every ModelAdmin
# refuses add, change and delete), casino/officers/backends.py.
AUTHENTICATION_BACKENDS = [
    # Lockout after repeated failures (django-axes), before any password check.
    "casino.authentication.LockoutBackend",
    "django.contrib.auth.backends.ModelBackend",
    "casino.officers.backends.RoleViewBackend",
]

MIDDLEWARE = [
    # First: the request id (logs, events' metadata), latency per route and
    # refusals per code (casino/ops, issue 18).
    "casino.ops.middleware.RequestIdMiddleware",
    # A body over CASINO_BODY_BYTES_MAX is a 413 before anything reads it.
    "casino.middleware.BodySizeLimitMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Serves the admin's static files under gunicorn (compose) without nginx.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The admin's second factor (TOTP): sets user.is_verified(), then sends an
    # unverified staff user to /admin/two-factor/ (ADMIN_REQUIRE_TWO_FACTOR).
    "django_otp.middleware.OTPMiddleware",
    "casino.keys.middleware.AdminTwoFactorMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "casino.middleware.WriteRequestMiddleware",
    # The feed, reports' lists and admin changelists read from the replica when
    # one is configured and fresh (casino/replicas); last with a process_view.
    "casino.replicas.middleware.ReplicaReadMiddleware",
    # Answers a sign-in refused by the lockout (django-axes); last, as its docs ask.
    "axes.middleware.AxesMiddleware",
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

def _database_from_url(url: str) -> dict:
    """Return the DATABASES entry for a PostgreSQL URL, one host or several.

    A failover group is named by libpq's multi-host URL,
    `postgres://user@host1:5432,host2:5432/casino?target_session_attrs=read-write`
    (issue 19 point 7): psycopg tries the hosts in order and keeps the one
    that accepts writes. dj-database-url parses one host only, so the hosts
    are taken out, the rest parsed, and HOST and PORT given as libpq's
    comma-separated lists. With several hosts the connection is checked
    before each request reuses it (CONN_HEALTH_CHECKS): after a failover a
    kept connection to the lost primary is dropped, not answered with a 500;
    a write it interrupts is retried by casino/runner.py.
    """
    import re

    match = re.match(r"^(?P<head>[a-z0-9+]+://(?:[^@/]*@)?)(?P<hosts>[^/?#]*)(?P<tail>.*)$",
                     url, re.IGNORECASE)
    if match is None or "," not in match["hosts"]:
        return dj_database_url.parse(url, conn_max_age=60)
    hosts, ports = [], []
    for part in match["hosts"].split(","):
        host, _, port = part.rpartition(":") if not part.endswith("]") else (part, "", "")
        if not host:        # no port given: the part is the host
            host, port = part, ""
        hosts.append(host.strip("[]"))
        ports.append(port or "5432")
    entry = dj_database_url.parse(f"{match['head']}failover-group{match['tail']}",
                                  conn_max_age=60, conn_health_checks=True)
    entry["HOST"], entry["PORT"] = ",".join(hosts), ",".join(ports)
    return entry


# True when the database is the embedded default: the only server on which
# benchmarks and tools make throwaway databases unasked (casino/throwaway.py).
DATABASE_EMBEDDED = not os.environ.get("DATABASE_URL")
if DATABASE_EMBEDDED:
    DATABASES = {"default": embedded_postgres_settings(
        DATA_DIR / "postgres", name=os.environ.get("CASINO_DATABASE_NAME") or None)}
else:
    DATABASES = {"default": _database_from_url(os.environ["DATABASE_URL"])}
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

# Django's validators: similar to the user's attributes, shorter than 12
# characters, a common password (12345678) or all digits are refused.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
     "OPTIONS": {"min_length": 12}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Lockout (django-axes): 5 wrong passwords for one user from one address lock
# that pair out for 30 minutes; a success resets the count.
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", 5))
AXES_COOLOFF_TIME = float(os.environ.get("AXES_COOLOFF_HOURS", 0.5))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
# Lockouts are read and cleared with `manage.py axes_list_attempts` /
# `axes_reset_username`, not in the admin, whose every page is read-only.
AXES_ENABLE_ADMIN = False

# Two factors for every staff user of the admin (django-otp, TOTP): on in
# production, and wherever ADMIN_REQUIRE_TWO_FACTOR=1.
ADMIN_REQUIRE_TWO_FACTOR = _env_bool("ADMIN_REQUIRE_TWO_FACTOR", PRODUCTION)
OTP_TOTP_ISSUER = "casino-ledger"

# Sessions (the admin) expire: 8 hours (a shift), and with the browser.
SESSION_COOKIE_AGE = int(os.environ.get("SESSION_COOKIE_AGE", 8 * 60 * 60))
SESSION_EXPIRE_AT_BROWSER_CLOSE = True
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if PRODUCTION:
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", 365 * 24 * 60 * 60))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_SSL_REDIRECT = _env_bool("SECURE_SSL_REDIRECT", True)
    # The container healthchecks and the scraper call plain http (issue 18).
    SECURE_REDIRECT_EXEMPT = [r"^health/", r"^metrics$"]
    # Behind a TLS-terminating proxy that sets X-Forwarded-Proto.
    if _env_bool("SECURE_PROXY_SSL", False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    CSRF_COOKIE_HTTPONLY = True
# A Content Security Policy (django-csp): same-origin only, no inline
# scripts; the admin's and Swagger UI's assets are served from /static/.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
        "base-uri": ["'self'"],
        "object-src": ["'none'"],
    },
}

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
        "casino.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # The role matrix (casino.roles.MATRIX) governs every operation under
    # /api/v1/, the ledger's read views included.
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated",
                                   "casino.roles.HasRole"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # JSON of bounded depth (casino/parsers.py); forms for the browsable API.
    "DEFAULT_PARSER_CLASSES": ["casino.parsers.JSONParser",
                               "rest_framework.parsers.FormParser",
                               "rest_framework.parsers.MultiPartParser"],
    "EXCEPTION_HANDLER": "casino.exception_handler.exception_handler",
    # Per client (user or key) and per address for anonymous requests: 429
    # beyond the rate (casino.roles.ClientRateThrottle reads CASINO_API_RATE).
    "DEFAULT_THROTTLE_CLASSES": ["casino.roles.ClientRateThrottle"],
    "UNAUTHENTICATED_USER": None,
}

# Seals the database cannot forge (ledger.seals): signed Merkle tree heads
# appended to a file outside the database, one file per database name; the
# Ed25519 key is a file the database never holds. In production point both at
# storage the database host cannot write (a WORM volume, a bucket mount).
LEDGER_SEAL_FILE = os.environ.get("LEDGER_SEAL_FILE",
                                  str(DATA_DIR / "seals" / "{database}.jsonl"))
LEDGER_SEAL_KEY_FILE = os.environ.get("LEDGER_SEAL_KEY_FILE",
                                      str(DATA_DIR / "seals" / "ed25519.key"))
# The daily seal (casino.reports, beat) also anchors there: on in production.
LEDGER_SEAL_DAILY = _env_bool("LEDGER_SEAL_DAILY", PRODUCTION)
# A two-phase transfer between books (ledger.transfers) holds the money this
# long for the other book to answer; then the resolver voids it (decision:
# 5 minutes, issue 19 point 2).
LEDGER_TRANSFER_TIMEOUT_SECONDS = int(os.environ.get("LEDGER_TRANSFER_TIMEOUT_SECONDS", 300))

# The catch-up feed shows each client only what its roles may read elsewhere,
# personal data hidden from all but officers and auditors (issue 16).
LEDGER_FEED_FILTER = "casino.roles.feed_filter"

SPECTACULAR_SETTINGS = {
    "TITLE": "casino-ledger API",
    "DESCRIPTION": "Event-sourced casino ledger and compliance backend.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # The docs pages load their assets from this server (drf-spectacular-sidecar),
    # so they work offline and under the same-origin CSP (issue 18).
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
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
        "SeatMeansEnum": "casino.poker.api.serializers.SEAT_MEANS",
        "StakeMeansEnum": "casino.games.api.serializers.STAKE_MEANS",
    },
}

# Requests per client in any one second: 100 (a busy table controller sends a
# few), answered 429 beyond (decision, issue 16: the probe's 131/s from one
# client is refused). Load benchmarks that share one token set it higher.
CASINO_API_RATE = os.environ.get("CASINO_API_RATE", "100/s")
# A chain verification over the API re-reads the whole log: 6 a minute per client.
CASINO_VERIFY_RATE = os.environ.get("CASINO_VERIFY_RATE", "6/min")

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
    # Webhooks (issue 18): retries after their backoff, new subscriptions'
    # backfills and deliveries a lost kick left (casino.webhooks.tasks.sweep).
    "webhooks.sweep": {"task": "casino.webhooks.tasks.sweep", "schedule": 5.0},
    # Poker (issue 14 item 21): unresolved hands older than their rulebook's
    # unresolved_stakes.void_after days are voided, the pot to charity
    # (001:L110; casino.poker.commands.forfeits). Daily; a rerun writes nothing.
    "poker.forfeit-unresolved": {"task": "casino.poker.tasks.forfeit_unresolved",
                                 "schedule": crontab(hour=4, minute=15)},
    # Tournaments (issue 14 item 21): a compliance alert for each HexaPro game
    # not completed within hexapro.unfinished.settle_within days (001:L576;
    # casino.tournaments.unfinished). Daily; one alert per game at most.
    "tournaments.flag-unfinished-hexapro": {
        "task": "casino.tournaments.tasks.flag_unfinished_hexapro",
        "schedule": crontab(hour=4, minute=25)},
    # Ledger books (issue 19 point 2): pending transfers between books are
    # posted, or voided once refused or past their expiry (ledger.transfers).
    # Every minute; a rerun writes nothing.
    "ledger.resolve-transfers": {"task": "casino.ops.tasks.resolve_transfers",
                                 "schedule": 60.0},
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
# Structured logs (issue 18, casino/ops/logs.py): every line a JSON object
# with the request id and correlation id (LOG_FORMAT=json, compose's
# default), or key=value lines for a terminal (the default here).
from casino.ops.logs import configure as _configure_logs  # noqa: E402

LOGGING["formatters"] = _configure_logs(os.environ.get("LOG_FORMAT", "console"))
LOGGING["handlers"]["console"]["formatter"] = "structured"
# Celery's worker and beat log through the same handler (JSON), not their own.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False

# Readiness (casino/ops/health.py): the chain must have been verified no
# longer ago than this. Decision (not in the seeds): 26 hours. Every ended
# gaming day is sealed within the hour after it ends (beat's hourly
# `reports.seal-ended-days`), and a seal verifies the whole chain first, so a
# healthy system verifies at least every 24 h + 1 h; the last hour is slack.
LEDGER_VERIFY_WINDOW_SECONDS = int(os.environ.get("LEDGER_VERIFY_WINDOW_SECONDS", 26 * 3600))
# /metrics answers only `Authorization: Bearer <METRICS_TOKEN>` when set (casino/ops/metrics.py).
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")

# Bad input (issue 16): the largest request body accepted. Decision (not in
# the seeds): 4 MiB, four times a machine controller's batch of 1,000 rounds.
CASINO_BODY_BYTES_MAX = int(os.environ.get("CASINO_BODY_BYTES_MAX", 4 * 1024 * 1024))
DATA_UPLOAD_MAX_MEMORY_SIZE = CASINO_BODY_BYTES_MAX

# Read replicas (issue 19 point 6, casino/replicas). DATABASE_REPLICA_URL names
# a streaming hot standby of the primary (its database name is always the
# primary's); the event feed, the reports' lists and the admin's changelists
# then read from it while its replay lag is within CASINO_REPLICA_LAG_MAX_S,
# and from the primary otherwise. Unset: no replica, nothing changes.
if os.environ.get("DATABASE_REPLICA_URL"):
    from casino.replicas.config import replica_database  # noqa: E402

    DATABASES["replica"] = replica_database(os.environ["DATABASE_REPLICA_URL"],
                                            DATABASES["default"], parse=_database_from_url)
# Books placed on other servers (issue 19 point 4, ledger/placement.py):
# CASINO_BOOK_DATABASE_URLS="books_b=postgresql://...,books_c=postgresql://..."
# adds one alias per server; each holds the ledger's tables only, and the
# directory (ledger_placement, in `default`) says which book lives where.
LEDGER_BOOK_DATABASES: list[str] = []
for _entry in filter(None, os.environ.get("CASINO_BOOK_DATABASE_URLS", "").split(",")):
    _alias, _, _url = _entry.partition("=")
    DATABASES[_alias.strip()] = _database_from_url(_url.strip())
    DATABASES[_alias.strip()].setdefault("OPTIONS", {}).update(DATABASE_OPTIONS)
    LEDGER_BOOK_DATABASES.append(_alias.strip())
# A book per venue (issue 19 point 1, casino/books.py): "own" (default)
# gives every venue a book of its own, opened on its first write (a venue
# registered before per-venue books came to the database keeps the main
# book, where its history is); "main" writes every venue to the main book;
# CASINO_VENUE_BOOKS="small-a=east,small-b=east" lets venues share a book
# ("a=main" keeps one on the main book). The system check casino.E019
# refuses a setting it cannot use.
CASINO_VENUE_BOOKS_DEFAULT = os.environ.get("CASINO_VENUE_BOOKS_DEFAULT", "own")
CASINO_VENUE_BOOKS: dict[str, str] = {
    _venue.strip(): _book.strip()
    for _venue, _, _book in (entry.partition("=") for entry in filter(
        None, os.environ.get("CASINO_VENUE_BOOKS", "").split(",")))}
DATABASE_ROUTERS = ["ledger.placement.BookRouter", "casino.replicas.router.ReplicaRouter"]
# Decision (not in the seeds): 5 s. What reads from the replica is reports,
# lists and the feed, none of which a cage acts on: a report 5 s old is the
# same report asked for 5 s earlier, and a feed consumer's cursor never
# skips (positions are gap-free on the replica too, it only sees them
# later). Streaming on one network replays within milliseconds, so 5 s
# trips only on a standby that is really behind (replay paused, catching up
# after a restart, saturated disk), which is when the primary should answer.
CASINO_REPLICA_LAG_MAX_S = float(os.environ.get("CASINO_REPLICA_LAG_MAX_S", 5))
# Decision: the lag is measured at most once a second per process (one tiny
# query on the replica), so the bound can be overshot by up to 1 s.
CASINO_REPLICA_LAG_CACHE_S = float(os.environ.get("CASINO_REPLICA_LAG_CACHE_S", 1))
