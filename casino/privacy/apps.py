from django.apps import AppConfig


class PrivacyConfig(AppConfig):
    name = "casino.privacy"
    label = "privacy"
    verbose_name = "Personal data"

    def ready(self) -> None:
        from ledger import projections as ledger_projections

        from .projections import ErasureProjection

        ledger_projections.register(ErasureProjection())
