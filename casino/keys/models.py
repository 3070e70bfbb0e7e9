"""ClientKey: a machine's API key (see the package's docstring)."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models
from django.utils import timezone
from rest_framework_api_key.models import AbstractAPIKey, APIKeyManager

# A key without an expiry given lives this long (decision, issue 16: a
# terminal's key is rotated at least twice a year).
DEFAULT_LIFETIME = dt.timedelta(days=180)
LEGACY_PREFIX_LENGTH = 8


class ClientKeyManager(APIKeyManager):
    def issue(self, *, user, name: str, venues=(), lifetime: dt.timedelta = DEFAULT_LIFETIME
              ) -> tuple["ClientKey", str]:
        """A new key for `user`'s machine; the key itself is returned once, never stored."""
        return self.create_key(user=user, name=name[:50], venues=sorted(set(venues)),
                               expiry_date=timezone.now() + lifetime)

    def rotate(self, old: "ClientKey", lifetime: dt.timedelta = DEFAULT_LIFETIME
               ) -> tuple["ClientKey", str]:
        """A new key with the old one's user, name and venues; the old one is revoked."""
        new, key = self.issue(user=old.user, name=old.name, venues=old.venues,
                              lifetime=lifetime)
        type(old).objects.filter(pk=old.pk).update(revoked=True)
        return new, key


class ClientKey(AbstractAPIKey):
    objects = ClientKeyManager()

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="client_keys")
    venues = models.JSONField(default=list, blank=True,
                              help_text="Venue codes this key may act for; empty: every venue.")
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta(AbstractAPIKey.Meta):
        verbose_name = "client API key"
        verbose_name_plural = "client API keys"

    def serves(self, venue: str) -> bool:
        return not self.venues or venue in self.venues


def legacy_key(user, key: str, name: str = "migrated token") -> ClientKey:
    """Hash a plaintext token's key into a ClientKey that accepts the same key."""
    generator = ClientKey.objects.key_generator
    hashed = generator.hash(key)
    prefix = key[:LEGACY_PREFIX_LENGTH]
    return ClientKey.objects.create(id=f"{prefix}.{hashed}", prefix=prefix, hashed_key=hashed,
                                    user=user, name=name,
                                    expiry_date=timezone.now() + DEFAULT_LIFETIME)


def hash_legacy_token(sender, instance, created: bool, **kwargs) -> None:
    """A rest_framework Token saved in plaintext becomes a hashed key; the row goes."""
    legacy_key(instance.user, instance.key, name=f"token of {instance.user}"[:50])
    sender.objects.filter(pk=instance.pk).delete()
