from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "casino.tournaments"
    label = "tournaments"
    verbose_name = "Tournaments"
