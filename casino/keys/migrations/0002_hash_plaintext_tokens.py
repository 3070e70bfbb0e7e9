"""Existing plaintext tokens become hashed keys that accept the same key; the
plaintext rows are deleted (casino.keys.models.legacy_key)."""

import datetime as dt

from django.db import migrations
from django.utils import timezone


def hash_tokens(apps, schema_editor):
    from rest_framework_api_key.crypto import KeyGenerator

    Token = apps.get_model("authtoken", "Token")
    ClientKey = apps.get_model("keys", "ClientKey")
    generator = KeyGenerator()
    for token in Token.objects.all():
        hashed = generator.hash(token.key)
        prefix = token.key[:8]
        ClientKey.objects.create(id=f"{prefix}.{hashed}", prefix=prefix, hashed_key=hashed,
                                 user_id=token.user_id, name=f"migrated token {prefix}",
                                 expiry_date=timezone.now() + dt.timedelta(days=180))
    Token.objects.all().delete()


class Migration(migrations.Migration):

    dependencies = [
        ("keys", "0001_initial"),
        ("authtoken", "0004_alter_tokenproxy_options"),
    ]

    operations = [migrations.RunPython(hash_tokens, migrations.RunPython.noop)]
