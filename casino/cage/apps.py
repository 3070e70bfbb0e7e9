from django.apps import AppConfig


class CageConfig(AppConfig):
    name = "casino.cage"
    label = "cage"
    verbose_name = "Cage"

    def ready(self) -> None:
        from ledger import projections as ledger_projections

        from .projections import CageDayProjection

        ledger_projections.register(CageDayProjection())
