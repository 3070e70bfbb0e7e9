from django.apps import AppConfig


class JackpotsConfig(AppConfig):
    name = "casino.jackpots"
    label = "jackpots"
    verbose_name = "Jackpots"
