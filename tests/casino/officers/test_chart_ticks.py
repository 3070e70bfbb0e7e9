"""Charts with clean ticks, axis units and a date range (issue 17 item 1)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from casino.officers import charts
from casino.roles import Role

from .conftest import signed_in, staff, traffic  # noqa: F401 (fixture)


@pytest.mark.parametrize(("span", "floor", "step"), [
    (7, 1, 2),                  # _case counts 0..7 -> 0, 2, 4, 6, 8
    (123_456, 100, 50_000),     # _case EUR 1,234.56 -> EUR 500 steps
    (1, 100, 100),              # _case cents -> whole euros
    (2_000_000, 100, 500_000),  # _case EUR 20,000 -> EUR 5,000 steps
])
def test_nice_steps(span, floor, step):
    assert charts.nice_step(span, floor=floor) == step


def _ticks(svg: str) -> list[str]:
    return re.findall(r'text-anchor="end" fill="#666">([^<]+)</text>', svg)


def test_ticks_are_clean_and_the_axis_has_its_unit():
    svg = charts.bar_chart("Rake", ["15.06.", "16.06."],
                           [charts.Series("rake", (12_345, 98_765))],
                           value_format=lambda v: f"{v // 100:,}", unit="EUR",
                           step_floor=100, chart_id="c")
    assert 'class="axis-unit"' in svg and ">EUR</text>" in svg
    assert _ticks(svg)[1:] == ["0", "500", "1,000"]


def test_an_accountant_picks_a_date_range_and_sees_june_in_november(traffic):  # noqa: F811
    staff("anna", Role.ACCOUNTANT)
    page = signed_in("anna").get(reverse("admin:officers_charts"),
                                 {"first": "2026-06-10", "last": "2026-06-20"})
    assert page.status_code == 200
    html = page.content.decode()
    assert "11 gaming days, 2026-06-10 to 2026-06-20" in html
    assert "20.06." in html and "EUR" in html
    assert reverse("admin:officers_desk") not in html     # no link the role cannot open
