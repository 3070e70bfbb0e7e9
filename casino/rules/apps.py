from django.apps import AppConfig


class RulesConfig(AppConfig):
    name = "casino.rules"
    label = "rules"
    verbose_name = "Rulebooks and venues"

    def ready(self) -> None:
        from ledger import projections as ledger_projections

        from casino import books  # noqa: F401 - registers the check casino.E019

        from . import projections
        from .cache import RulesCacheProjection
        from .events import RULEBOOK_LOADED, VENUE_CHANGED, VENUE_REGISTERED

        ledger_projections.register(projections.RulebookProjection())
        ledger_projections.register(projections.VenueProjection())
        ledger_projections.register(
            RulesCacheProjection(frozenset({RULEBOOK_LOADED, VENUE_REGISTERED, VENUE_CHANGED})))
