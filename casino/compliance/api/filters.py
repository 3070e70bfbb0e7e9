"""FilterSets of the compliance lists (issue 18 item 1): the query
parameters each list takes, declared once so the schema documents them."""

from __future__ import annotations

import django_filters

from ..models import Alert, AlertKind, Case, CaseState, Correction, CorrectionState


class AlertFilter(django_filters.FilterSet):
    kind = django_filters.ChoiceFilter(choices=AlertKind.choices, help_text="The alert's kind.")
    player_id = django_filters.CharFilter(help_text="Alerts about this player.")
    venue = django_filters.CharFilter(help_text="Alerts raised at this venue.")

    class Meta:
        model = Alert
        fields = ["kind", "player_id", "venue"]


class CorrectionFilter(django_filters.FilterSet):
    state = django_filters.ChoiceFilter(choices=CorrectionState.choices,
                                        help_text="proposed, approved or rejected.")
    account = django_filters.CharFilter(help_text="Corrections of this account.")

    class Meta:
        model = Correction
        fields = ["state", "account"]


class CaseFilter(django_filters.FilterSet):
    state = django_filters.ChoiceFilter(choices=CaseState.choices, help_text="The case's state.")
    player_id = django_filters.CharFilter(help_text="Cases about this player.")
    alert_id = django_filters.CharFilter(help_text="The case opened from this alert.")

    class Meta:
        model = Case
        fields = ["state", "player_id", "alert_id"]
