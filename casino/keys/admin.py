"""The admin shows no API keys: they are issued, rotated and revoked with
`manage.py client_key` (the key is printed once). The library's own APIKey
model is unused, so its admin page is taken away."""

from django.contrib import admin
from rest_framework_api_key.models import APIKey

if admin.site.is_registered(APIKey):
    admin.site.unregister(APIKey)
