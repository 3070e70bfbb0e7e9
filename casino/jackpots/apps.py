from django.apps import AppConfig


class JackpotsConfig(AppConfig):
    name = "casino.jackpots"
    label = "jackpots"
    verbose_name = "Jackpots"

    def ready(self) -> None:
        from casino.games import signals as games_signals
        from casino.poker import signals as poker_signals
        from ledger import projections as ledger_projections

        from .projections import JackpotProjection
        from .receivers import (
            check_settled_hand,
            record_progressive,
            refuse_drop_without_terms,
        )

        ledger_projections.register(JackpotProjection())
        poker_signals.hand_settled.connect(check_settled_hand,
                                           dispatch_uid="jackpots.check_settled_hand")
        poker_signals.jackpot_drop_terms.connect(
            refuse_drop_without_terms, dispatch_uid="jackpots.refuse_drop_without_terms")
        games_signals.progressive_hit.connect(record_progressive,
                                              dispatch_uid="jackpots.record_progressive")
