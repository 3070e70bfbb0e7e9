from django.apps import AppConfig


class CashierConfig(AppConfig):
    name = "casino.cashier"
    label = "cashier"
    verbose_name = "Cashier windows and shifts"

    def ready(self) -> None:
        from ledger import projections as ledger_projections

        from .projections import CashierProjection

        ledger_projections.register(CashierProjection())
