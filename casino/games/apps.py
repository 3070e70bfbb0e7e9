from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "casino.games"
    label = "games"
    verbose_name = "Games"

    def ready(self) -> None:
        from ledger import projections as ledger_projections

        from .projections import GamesProjection

        ledger_projections.register(GamesProjection())
