from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "casino.tournaments"
    label = "tournaments"
    verbose_name = "Tournaments"

    def ready(self) -> None:
        from ledger import projections as ledger_projections

        from .projections import TournamentProjection

        ledger_projections.register(TournamentProjection())
