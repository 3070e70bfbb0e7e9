from django.apps import AppConfig


class PokerConfig(AppConfig):
    name = "casino.poker"
    label = "poker"
    verbose_name = "Poker"

    def ready(self) -> None:
        from ledger import projections as ledger_projections

        from .projections import PokerProjection

        ledger_projections.register(PokerProjection())
