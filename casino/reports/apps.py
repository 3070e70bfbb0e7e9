from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "casino.reports"
    label = "reports"
    verbose_name = "Reports"

    def ready(self) -> None:
        from ledger import projections as ledger_projections

        from .projections import ReportsProjection

        ledger_projections.register(ReportsProjection())

        from casino.runner import register_closed_day_lookup

        from .queries import last_closed_day

        register_closed_day_lookup(last_closed_day)
