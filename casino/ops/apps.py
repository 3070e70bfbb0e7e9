from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "casino.ops"
    label = "ops"
    verbose_name = "Operations"
