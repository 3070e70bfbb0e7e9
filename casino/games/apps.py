from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "casino.games"
    label = "games"
    verbose_name = "Games"
