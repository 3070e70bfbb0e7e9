"""FilterSets of the jackpot lists (issue 18 item 1): the query parameters
each list takes, declared once so the schema documents them."""

from __future__ import annotations

import django_filters

from ..models import HitState, JackpotHit, JackpotPool, PoolStatus


class PoolFilter(django_filters.FilterSet):
    venue = django_filters.CharFilter(help_text="Pools of this venue.")
    kind = django_filters.CharFilter(help_text="Pools of this kind, e.g. `bad_beat`.")
    status = django_filters.ChoiceFilter(choices=PoolStatus.choices,
                                         help_text="The pool's status.")

    class Meta:
        model = JackpotPool
        fields = ["venue", "kind", "status"]


class HitFilter(django_filters.FilterSet):
    state = django_filters.ChoiceFilter(choices=HitState.choices,
                                        help_text="`hit` for those awaiting approval.")
    pool = django_filters.CharFilter(field_name="pool_id",
                                     help_text="Hits of this pool, `<venue>/<kind>`.")

    class Meta:
        model = JackpotHit
        fields = ["state", "pool"]
