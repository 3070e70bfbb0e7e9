from django.apps import AppConfig


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = "Ledger"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import projections

        projections.register(projections.StreamProjection())
        projections.register(projections.AccountProjection())
