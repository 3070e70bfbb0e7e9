"""The admin shows no API keys: they are issued, rotated and revoked with
`manage.py client_key` (the key is printed once). The library's own APIKey
model is unused, so its admin page is taken away."""

from django.contrib import admin
from rest_framework_api_key.models import APIKey

if admin.site.is_registered(APIKey):
    admin.site.unregister(APIKey)

# TOTP devices are enrolled with `manage.py totp_device`; their admin pages
# (which could change a device) are taken away too.
from django_otp.plugins.otp_totp.models import TOTPDevice  # noqa: E402

if admin.site.is_registered(TOTPDevice):
    admin.site.unregister(TOTPDevice)
