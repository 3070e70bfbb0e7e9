from django.apps import AppConfig


class TableGamesConfig(AppConfig):
    name = "casino.tablegames"
    label = "tablegames"
    verbose_name = "Table-games accounting"

    def ready(self) -> None:
        from ledger import projections as ledger_projections

        from .projections import ChipStockProjection, TableGamesProjection

        ledger_projections.register(TableGamesProjection())
        ledger_projections.register(ChipStockProjection())
