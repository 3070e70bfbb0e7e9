"""manage.py totp_device --user NAME [--name phone]: enroll a TOTP device for a staff user.

Prints the otpauth:// URI to scan into an authenticator app (once).
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django_otp.plugins.otp_totp.models import TOTPDevice


class Command(BaseCommand):
    help = "Enroll a TOTP device (the admin's second factor) for a staff user."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--user", required=True)
        parser.add_argument("--name", default="authenticator")

    def handle(self, *args, **options) -> None:
        user = get_user_model().objects.filter(username=options["user"]).first()
        if user is None:
            raise CommandError(f"no user {options['user']!r}")
        device = TOTPDevice.objects.create(user=user, name=options["name"], confirmed=True)
        self.stdout.write(device.config_url)
