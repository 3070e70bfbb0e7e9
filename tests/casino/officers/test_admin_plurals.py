"""Issue 17, item 4: the admin names its pages in plain English plurals.

Django's default plural appends "s", which gave "Cash activitys" and
"Player activitys". The scan walks every model the admin shows.
"""

from __future__ import annotations

import re

from django.contrib import admin

# Django's default plural is the name plus "s": wrong after a consonant and
# "y" (activity -> activities) and after s, x, z, ch, sh (premises, box).
CONSONANT_Y = re.compile(r"[^aeiou]y$")
SIBILANT = re.compile(r"(s|x|z|ch|sh)$")


def bad_plural(singular: str, plural: str) -> bool:
    singular, plural = singular.lower(), plural.lower()
    return plural == singular + "s" and bool(
        CONSONANT_Y.search(singular) or SIBILANT.search(singular))


def _shown() -> list[tuple[str, str, str]]:
    return [(f"{model._meta.app_label}.{model._meta.object_name}",
             str(model._meta.verbose_name), str(model._meta.verbose_name_plural))
            for model in admin.site._registry]


def test_the_activity_pages_have_their_plurals():
    names = {label: plural for label, _, plural in _shown()}
    assert names["compliance.CashActivity"] == "cash activities"
    assert names["compliance.PlayerActivity"] == "player activities"


def test_no_admin_page_has_a_bad_plural():
    bad = [(label, plural) for label, singular, plural in _shown()
           if bad_plural(singular, plural)]
    assert bad == []


def test_the_scan_catches_the_default_plural():
    assert bad_plural("cash activity", "cash activitys")
    assert bad_plural("premises", "premisess")
    assert bad_plural("drop box", "drop boxs")
    assert not bad_plural("day close", "day closes")
    assert not bad_plural("journal export", "journal exports")
    assert not bad_plural("cash activity", "cash activities")
