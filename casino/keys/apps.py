from django.apps import AppConfig


class KeysConfig(AppConfig):
    name = "casino.keys"
    label = "keys"
    verbose_name = "API keys"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_save
        from rest_framework.authtoken.models import Token

        from .models import hash_legacy_token

        post_save.connect(hash_legacy_token, sender=Token,
                          dispatch_uid="keys.hash_legacy_token")
