from django.apps import AppConfig


class OfficersConfig(AppConfig):
    name = "casino.officers"
    label = "officers"
    verbose_name = "Officers"
