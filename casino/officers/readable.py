"""Every admin page readable by an officer: money, payloads, times, players.

The apps register plain read-only ModelAdmins whose columns are model
fields: `amount_minor` (an integer in cents), `details` (a JSON map),
`raised_at` (a UTC timestamp), `player_id` (an opaque id). `install(site)`
runs once the admin has discovered every admin.py and replaces each
registered admin of a casino or ledger model by a subclass that shows,
on the change list and the change page alike:

- every `*_minor` integer as money in major units with its currency,
  `EUR 1,234.50` (the currency of the row, of the row it points to, or of
  its venue);
- every JSON field as labelled lines (formatting.flatten), never a blob;
  an event's payload through its type's formatter;
- every timestamp in the venue's zone, with the zone named
  (`2026-06-16 14:00 EEST Europe/Helsinki`);
- every `player_id` as the player's name and id, linked to the timeline;
- every ledger position (`*position`) as a link to that event.

Design choice: one place rewrites the admins (this top-layer app may
import every app) rather than each app formatting its own columns, so a
column added tomorrow is readable the day it is added, and the crawl test
(tests/casino/officers/test_readable_admin.py) proves it for every page.
The subclasses keep every behaviour of the app's admin (its actions, its
views, its permissions, another engineer's wiring); only the display of
fields changes.
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from typing import Any, Callable, Iterable
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib import admin
from django.db import models
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html, format_html_join

from .formatting import flatten, major, number_in_book

OWN_MODULES = ("casino.", "ledger.")
SUMMARY_LINES_MAX = 4
SUMMARY_CHARS_MAX = 160


def money(amount_minor: int | None, currency: str = "") -> str:
    """Minor units as `EUR 1,234.50` (currency first); None as a dash."""
    if amount_minor is None:
        return "-"
    return f"{currency} {major(int(amount_minor))}".strip()


# --- what a row belongs to ----------------------------------------------------

@lru_cache(maxsize=256)
def _venue(code: str) -> tuple[str, str] | None:
    from casino.rules.models import Venue

    row = Venue.objects.filter(code=code).values_list("currency", "time_zone").first()
    return tuple(row) if row else None


def venue_facts(code: str) -> tuple[str, str] | None:
    """(currency, time zone) of a venue; a venue not found yet is not cached."""
    facts = _venue(code)
    if facts is None:
        _venue.cache_clear()
    return facts


def _related(obj) -> Iterable[Any]:
    for field in obj._meta.concrete_fields:
        if isinstance(field, models.ForeignKey):
            related = getattr(obj, field.name, None)
            if related is not None:
                yield related


def _venue_code(obj) -> str:
    for candidate in (obj, *_related(obj)):
        venue = getattr(candidate, "venue", None)
        if isinstance(venue, str) and venue:
            return venue
        code = getattr(venue, "code", None)
        if isinstance(code, str):
            return code
    return ""


def currency_of(obj) -> str:
    """The currency of a row: its own, a related row's, or its venue's."""
    for candidate in (obj, *_related(obj)):
        currency = getattr(candidate, "currency", None)
        if isinstance(currency, str) and currency:
            return currency
    facts = venue_facts(_venue_code(obj)) if _venue_code(obj) else None
    if facts:
        return facts[0]
    return _only_currency()


@lru_cache(maxsize=1)
def _only_currency_cached() -> str:
    from casino.rules.models import Venue

    currencies = set(Venue.objects.values_list("currency", flat=True))
    return currencies.pop() if len(currencies) == 1 else ""


def _only_currency() -> str:
    value = _only_currency_cached()
    if not value:
        _only_currency_cached.cache_clear()
    return value


def zone_of(obj) -> ZoneInfo:
    code = _venue_code(obj)
    facts = venue_facts(code) if code else None
    return ZoneInfo(facts[1] if facts else settings.TIME_ZONE)


def local_time(value: dt.datetime | None, zone: ZoneInfo) -> str:
    """`2026-06-16 14:00:05 EEST (Europe/Helsinki)`."""
    if value is None:
        return "-"
    local = value.astimezone(zone)
    return f"{local:%Y-%m-%d %H:%M:%S} {local.tzname()} ({zone.key})"


# --- displays -----------------------------------------------------------------

def label_of(field: models.Field) -> str:
    words = [w for w in field.name.split("_") if w != "minor"]
    return " ".join(words) or field.name


def is_money_name(name: str) -> bool:
    return "minor" in name.split("_")


def money_display(field: models.Field) -> Callable:
    def show(self, obj):
        return money(getattr(obj, field.attname), currency_of(obj))
    label = label_of(field)
    names = {other.name for other in field.model._meta.concrete_fields}
    if label.replace(" ", "_") in names:
        label = f"{label} total"       # `bank_minor` beside the count `bank`
    return admin.display(description=label, ordering=field.name)(show)


def money_attribute_display(name: str) -> Callable:
    """A computed amount (a model property such as `cash_net_minor`)."""
    def show(self, obj):
        value = getattr(obj, name)
        return money(value() if callable(value) else value, currency_of(obj))
    words = [w for w in name.split("_") if w != "minor"]
    return admin.display(description=" ".join(words))(show)


def figure_value_display(self, obj):
    """A rulebook figure: an amount in minor units as money, else as it is."""
    if obj.unit == "minor" and isinstance(obj.value, int):
        return money(obj.value, currency_of(obj) or _only_currency())
    if isinstance(obj.value, (dict, list)):
        return fields_table(lines_of(obj.value, ""))
    return str(obj.value)


def figure_unit_display(self, obj):
    return "money" if obj.unit == "minor" else obj.unit


def lines_of(value: Any, currency: str, *, amounts: bool = False
             ) -> list[tuple[str, str]]:
    """Labelled lines of a JSON value; with `amounts`, every integer is money."""
    if amounts and isinstance(value, dict) and all(
            isinstance(v, int) or v is None for v in value.values()):
        return [(str(k), money(v, currency)) for k, v in value.items()]
    if isinstance(value, dict):
        return [(line.label, line.value) for line in flatten(value, currency)]
    if isinstance(value, list):
        if all(isinstance(item, dict) for item in value):
            return [(f"{index}", "; ".join(f"{line.label} {line.value}"
                                           for line in flatten(item, currency)))
                    for index, item in enumerate(value, start=1)]
        return [("", ", ".join(str(item) for item in value) or "none")]
    return [("", "none" if value is None else str(value))]


def fields_table(pairs: list[tuple[str, str]]):
    if not pairs:
        return "none"
    rows = format_html_join("", '<tr><th scope="row">{}</th><td>{}</td></tr>', pairs)
    return format_html('<table class="readable-fields">{}</table>', rows)


COUNT_FIELDS = frozenset({"bank", "count", "inventory", "chips", "expected_count",
                          "count_differences"})
PLAYER_MAP_FIELDS = frozenset({"players"})      # seat -> player id (jackpot hits)


def player_names(value: Any) -> list[tuple[str, str]]:
    """Seat -> player id, as seat -> "Given Family (id)"."""
    from casino.players.models import Player

    if not isinstance(value, dict):
        return lines_of(value, "")
    ids = {str(v) for v in value.values() if v}
    names = {pid: f"{given} {family}" for pid, given, family in Player.objects.filter(
        id__in=ids).values_list("id", "given_name", "family_name")}
    return [(f"seat {seat}", f"{names.get(str(pid), 'unknown player')} ({pid})")
            for seat, pid in value.items()]


def denominations(value: Any, currency: str) -> list[tuple[str, str]]:
    """A count by denomination: `EUR 50.00` -> `20 pieces, EUR 1,000.00`."""
    if not isinstance(value, dict):
        return lines_of(value, currency)
    counted = sorted(((int(d), n) for d, n in value.items()
                      if str(d).isdigit() and isinstance(n, int)), reverse=True)
    pairs = [(money(d, currency), f"{n} pieces, {money(d * n, currency)}")
             for d, n in counted]
    total = sum(int(d) * n for d, n in value.items() if str(d).isdigit() and isinstance(n, int))
    return pairs + [("total", money(total, currency))]


def json_display(field: models.Field, *, summary: bool) -> Callable:
    def show(self, obj):
        value = getattr(obj, field.attname)
        if field.name in COUNT_FIELDS:
            pairs = denominations(value, currency_of(obj))
        elif field.name in PLAYER_MAP_FIELDS:
            pairs = player_names(value)
        else:
            pairs = lines_of(value, currency_of(obj), amounts=is_money_name(field.name))
        if not summary:
            return fields_table(pairs)
        text = "; ".join(f"{k}: {v}" if k else v for k, v in pairs[:SUMMARY_LINES_MAX])
        if len(pairs) > SUMMARY_LINES_MAX:
            text += f" (+{len(pairs) - SUMMARY_LINES_MAX} more)"
        return text[:SUMMARY_CHARS_MAX] or "none"
    return admin.display(description=label_of(field))(show)


def choice_display(field: models.Field) -> Callable:
    """A choice's label, or the value itself when newer than the choices (an
    alert kind another app raises, say), never the admin's empty dash."""
    labels = dict(field.flatchoices)

    def show(self, obj):
        value = getattr(obj, field.attname)
        return str(labels.get(value, value)) if value not in (None, "") else "-"
    return admin.display(description=field.verbose_name, ordering=field.name)(show)


def time_display(field: models.Field) -> Callable:
    def show(self, obj):
        return local_time(getattr(obj, field.attname), zone_of(obj))
    return admin.display(description=field.verbose_name, ordering=field.name)(show)


def player_display(field: models.Field) -> Callable:
    def show(self, obj):
        from casino.players.models import Player

        player_id = getattr(obj, field.attname)
        if not player_id:
            return "-"
        player = Player.objects.filter(id=player_id).values_list(
            "given_name", "family_name").first()
        name = f"{player[0]} {player[1]}" if player else "unknown player"
        url = reverse("admin:officers_player_timeline", args=[player_id])
        return format_html('<a href="{}">{} ({})</a>', url, name, player_id)
    return admin.display(description="player", ordering=field.name)(show)


def position_display(field: models.Field) -> Callable:
    def show(self, obj):
        position = getattr(obj, field.attname)
        if position is None:
            return "-"
        try:
            url = reverse("admin:ledger_event_change", args=[position])
        except NoReverseMatch:
            return number_in_book(position)
        return format_html('<a href="{}">event {}</a>', url, number_in_book(position))
    return admin.display(description=field.verbose_name, ordering=field.name)(show)


def event_payload_display(summary: bool) -> Callable:
    """An event's payload through its type's formatter (officers.formatting)."""
    def show(self, obj):
        from .formatting import EventView, render

        rendered = render(EventView(position=obj.position, type=obj.type, stream=obj.stream,
                                    payload=obj.payload, metadata=obj.metadata,
                                    occurred_at=obj.occurred_at, gaming_day=obj.gaming_day))
        if summary:
            return rendered.title
        pairs = [("what happened", rendered.title)]
        pairs += [(line.label, line.value) for line in rendered.lines]
        if rendered.rule:
            pairs.append(("rule", f"{rendered.rule} ({rendered.cite})"
                                  if rendered.cite else rendered.rule))
        if rendered.actor:
            pairs.append(("by", rendered.actor))
        return fields_table(pairs)
    return admin.display(description="what happened" if summary else "payload")(show)


def metadata_display(field: models.Field) -> Callable:
    def show(self, obj):
        return fields_table(lines_of(getattr(obj, field.attname), ""))
    return admin.display(description=field.verbose_name)(show)


# --- the rewrite ----------------------------------------------------------------

def readable_name(field: models.Field) -> str:
    return f"readable_{field.name}"


def display_for(model, field: models.Field, *, summary: bool) -> Callable | None:
    """The display of one model field, or None to show it as it is."""
    if model._meta.label == "ledger.Event" and field.name == "payload":
        return event_payload_display(summary)
    if isinstance(field, models.JSONField):
        return json_display(field, summary=summary)
    if model._meta.label == "rules.Figure" and field.name in ("value", "unit"):
        return admin.display(description=field.name)(
            figure_value_display if field.name == "value" else figure_unit_display)
    if is_money_name(field.name) and isinstance(field, models.IntegerField):
        return money_display(field)
    if isinstance(field, models.DateTimeField):
        return time_display(field)
    if field.name == "player_id" or field.name.endswith("_player_id"):
        return player_display(field)
    if (field.name.endswith("position") and isinstance(field, models.IntegerField)
            and not field.primary_key):
        return position_display(field)
    if field.choices and isinstance(field, models.CharField) and not field.primary_key:
        return choice_display(field)
    return None


def _field(model, name) -> models.Field | None:
    if not isinstance(name, str):
        return None
    try:
        return model._meta.get_field(name)
    except Exception:  # noqa: BLE001 (FieldDoesNotExist, or a callable's name)
        return None


class ReadableMixin:
    """Replace the fields of the change list and change page by readable displays."""

    def _swap(self, names, *, summary: bool) -> list:
        swapped = []
        for name in names:
            readable = f"readable_{name}" + ("_summary" if summary else "")
            swapped.append(readable if isinstance(name, str) and hasattr(self, readable)
                           else name)
        return swapped

    def get_list_display(self, request):
        return self._swap(super().get_list_display(request), summary=True)

    def get_list_display_links(self, request, list_display):
        links = super().get_list_display_links(request, list_display)
        if links:
            return self._swap(links, summary=True)
        return links

    def get_fieldsets(self, request, obj=None):
        seen: set[str] = set()
        fieldsets = []
        for title, options in super().get_fieldsets(request, obj):
            fields = []
            for item in options["fields"]:
                names = (self._swap(item, summary=False) if isinstance(item, (list, tuple))
                         else self._swap([item], summary=False))
                names = [name for name in names if name not in seen]
                seen.update(names)
                if len(names) > 1:
                    fields.append(tuple(names))
                elif names:
                    fields.append(names[0])
            fieldsets.append((title, {**options, "fields": fields}))
        return fieldsets

    def get_readonly_fields(self, request, obj=None):
        own = list(super().get_readonly_fields(request, obj))
        return own + [name for name in dir(type(self)) if name.startswith("readable_")
                      and not name.endswith("_summary")]


def readable_class(base: type, model) -> type:
    """A subclass of `base` with a readable display for each field of `model`."""
    attributes: dict[str, Any] = {}
    for field in model._meta.concrete_fields:
        change = display_for(model, field, summary=False)
        if change is None:
            continue
        if model._meta.label == "ledger.Event" and field.name == "metadata":
            change = metadata_display(field)
        attributes[readable_name(field)] = change
        attributes[readable_name(field) + "_summary"] = display_for(model, field,
                                                                    summary=True)
    for name in getattr(base, "list_display", ()):
        if (isinstance(name, str) and is_money_name(name) and _field(model, name) is None
                and hasattr(model, name)):
            attributes[f"readable_{name}_summary"] = money_attribute_display(name)
    inlines = [readable_class(inline, inline.model) for inline in getattr(base, "inlines", [])]
    if inlines != list(getattr(base, "inlines", [])):
        attributes["inlines"] = inlines
    if not attributes:
        return base
    return type(f"Readable{base.__name__}", (ReadableMixin, base), attributes)


def is_own(model) -> bool:
    return model.__module__.startswith(OWN_MODULES)


def install(site) -> None:
    """Replace each own model's admin on `site` by its readable subclass."""
    for model, model_admin in list(site._registry.items()):
        if not is_own(model) or isinstance(model_admin, ReadableMixin):
            continue
        cls = readable_class(type(model_admin), model)
        if cls is not type(model_admin):
            site._registry[model] = cls(model, site)
