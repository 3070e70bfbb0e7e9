import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ClientKey",
            fields=[
                ("id", models.CharField(editable=False, max_length=150, primary_key=True,
                                        serialize=False, unique=True)),
                ("prefix", models.CharField(editable=False, max_length=8, unique=True)),
                ("hashed_key", models.CharField(editable=False, max_length=150)),
                ("created", models.DateTimeField(auto_now_add=True, db_index=True)),
                ("name", models.CharField(default=None, help_text="A free-form name for the API key. Need not be unique. 50 characters max.", max_length=50)),
                ("revoked", models.BooleanField(blank=True, default=False, help_text="If the API key is revoked, clients cannot use it anymore. (This cannot be undone.)")),
                ("expiry_date", models.DateTimeField(blank=True, help_text="Once API key expires, clients cannot use it anymore.", null=True, verbose_name="Expires")),
                ("venues", models.JSONField(blank=True, default=list, help_text="Venue codes this key may act for; empty: every venue.")),
                ("last_used_at", models.DateTimeField(blank=True, null=True)),
                ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                           related_name="client_keys",
                                           to=settings.AUTH_USER_MODEL)),
            ],
            options={
                "verbose_name": "client API key",
                "verbose_name_plural": "client API keys",
                "ordering": ("-created",),
                "abstract": False,
            },
        ),
    ]
