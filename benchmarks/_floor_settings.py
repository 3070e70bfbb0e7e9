"""Settings for the floor app (benchmarks/_floor_app.py), never the product's.

The product's database settings (`casino.settings.DATABASES`, so the same
server, connection options and `conn_max_age` as api_load's gunicorn), and
nothing else of the product: no product apps, no product URLs, no
middleware. Decision: the floor keeps only what a token-authenticated DRF
write needs (auth, contenttypes, rest_framework, authtoken), so the ratio
api_load prints is the product's cost over the least a Django/DRF write
costs on this box.
"""

import os

from casino.settings import DATABASES, DEFAULT_AUTO_FIELD, SECRET_KEY  # noqa: F401

DEBUG = False
ALLOWED_HOSTS = [host.strip() for host in
                 os.environ.get("ALLOWED_HOSTS", "127.0.0.1,localhost").split(",")
                 if host.strip()]
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "rest_framework",
    "rest_framework.authtoken",
]
MIDDLEWARE: list[str] = []
ROOT_URLCONF = "_floor_app"
WSGI_APPLICATION = "_floor_app.application"
USE_TZ = True
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "UNAUTHENTICATED_USER": None,
}
