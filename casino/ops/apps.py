from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "casino.ops"
    label = "ops"
    verbose_name = "Operations"

    def ready(self) -> None:
        from . import task_ids

        task_ids.connect()
