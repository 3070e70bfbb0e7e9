from django.apps import AppConfig


class MachinesConfig(AppConfig):
    name = "casino.machines"
    label = "machines"
    verbose_name = "Gaming machines"

    def ready(self) -> None:
        from ledger import projections as ledger_projections

        from .projections import MachinesProjection

        ledger_projections.register(MachinesProjection())
