from django.apps import AppConfig


class SitngoConfig(AppConfig):
    name = "casino.sitngo"
    label = "sitngo"
    verbose_name = "Sit'n'go jackpots"

    def ready(self) -> None:
        from ledger import projections as ledger_projections

        from .projections import SitngoProjection

        ledger_projections.register(SitngoProjection())
