from django.apps import AppConfig
from django.db.models.signals import post_migrate


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = "Ledger"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import guards, projections

        projections.register(projections.StreamProjection())
        projections.register(projections.AccountProjection())
        # Once per migrate, after every app's migrations (sender: this app).
        post_migrate.connect(guards.install_after_migrate, sender=self,
                             dispatch_uid="ledger.guards")
