from django.apps import AppConfig


class PlayersConfig(AppConfig):
    name = "casino.players"
    label = "players"
    verbose_name = "Players"

    def ready(self) -> None:
        from ledger import projections as ledger_projections

        from .projections import PlayerProjection

        ledger_projections.register(PlayerProjection())
