from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "casino.webhooks"
    label = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        from ledger import projections as ledger_projections

        from .projections import OutboxProjection

        ledger_projections.register(OutboxProjection())
