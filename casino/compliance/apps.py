from django.apps import AppConfig


class ComplianceConfig(AppConfig):
    name = "casino.compliance"
    label = "compliance"
    verbose_name = "Compliance"

    def ready(self) -> None:
        from ledger import projections as ledger_projections

        from .projections import (
            ActivityProjection,
            AlertProjection,
            CaseProjection,
            CorrectionProjection,
        )

        ledger_projections.register(ActivityProjection())
        ledger_projections.register(AlertProjection())
        ledger_projections.register(CorrectionProjection())
        ledger_projections.register(CaseProjection())

        from casino.runner import register_refusal_replayer

        from .pipeline import raise_recorded_rejection

        register_refusal_replayer(raise_recorded_rejection)
