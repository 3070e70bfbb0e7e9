"""Inline SVG charts from series: pure, no JavaScript, no external resources."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree

import pytest

from casino.officers.charts import Series, bar_chart, line_chart
from casino.officers.formatting import major

SVG = "{http://www.w3.org/2000/svg}"


def _parse(svg: str) -> ElementTree.Element:
    return ElementTree.fromstring(svg)


def test_a_line_chart_is_valid_svg_with_one_point_per_value():
    svg = line_chart("Pool", ["15.06.", "16.06.", "17.06."],
                     [Series("poker-helsinki/bad_beat", (0, 1_500_00, 1_200_00))],
                     value_format=major, chart_id="pools")
    root = _parse(svg)
    assert root.tag == f"{SVG}svg" and root.get("id") == "pools"
    (line,) = root.iter(f"{SVG}polyline")
    assert len(line.get("points").split()) == 3
    assert len(list(root.iter(f"{SVG}circle"))) == 3
    desc = root.find(f"{SVG}desc").text
    assert desc == ("poker-helsinki/bad_beat: 15.06. 0.00, 16.06. 1,500.00,"
                    " 17.06. 1,200.00")


def test_a_higher_value_is_drawn_higher():
    """SVG y grows downwards: the larger balance has the smaller y."""
    root = _parse(line_chart("t", ["a", "b"], [Series("s", (100, 300))]))
    first, second = (float(c.get("cy")) for c in root.iter(f"{SVG}circle"))
    assert second < first


def test_grouped_bars_one_per_series_and_category_with_heights_in_proportion():
    svg = bar_chart("Revenue", ["d1", "d2"], [Series("rake", (100, 200)),
                                             Series("GGR", (400, 0))])
    bars = [b for b in _parse(svg).iter(f"{SVG}rect") if b.get("class") == "bar"]
    assert [(b.get("data-series")) for b in bars] == ["rake", "rake", "GGR", "GGR"]
    heights = [float(b.get("height")) for b in bars]
    assert heights[3] == 0
    assert heights[1] == pytest.approx(2 * heights[0], rel=0.01)
    assert heights[2] == pytest.approx(4 * heights[0], rel=0.01)


def test_negative_values_go_below_the_zero_line():
    root = _parse(bar_chart("t", ["a", "b"], [Series("s", (-100, 100))]))
    down, up = [b for b in root.iter(f"{SVG}rect") if b.get("class") == "bar"]
    assert float(down.get("y")) >= float(up.get("y")) + float(up.get("height")) - 0.1


def test_text_is_escaped_and_nothing_is_fetched():
    svg = bar_chart("<script>alert(1)</script>", ["a&b"], [Series("x<y", (1,))])
    assert "<script>" not in svg
    assert "&lt;script&gt;" in svg and "a&amp;b" in svg
    assert not re.search(r"(href|src)=", svg)
    _parse(svg)


def test_empty_and_flat_series_still_draw():
    _parse(line_chart("t", ["a"], [Series("s", (0,))]))
    _parse(bar_chart("t", [], []))


@pytest.mark.parametrize("series, message", [
    ([Series("s", (1, 2, 3))], "has 3 values for 2 categories"),
    ([Series("s", (1, 2.5))], "integers"),
], ids=["length_case", "float_case"])
def test_malformed_series_are_refused(series, message):
    with pytest.raises(ValueError, match=message):
        bar_chart("t", ["a", "b"], series)
