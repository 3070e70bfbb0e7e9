from django.apps import AppConfig


class CageConfig(AppConfig):
    name = "casino.cage"
    label = "cage"
    verbose_name = "Cage"
