"""Server-rendered charts: pure functions from series to inline SVG.

No JavaScript and no external CDN: the admin may run on a cage network
without internet access, and an SVG string is easy to test. Values are
integers (minor units or counts); `value_format` turns an axis or bar value
into text (major units for money). Every chart carries a <title> and a
<desc> listing its data, so a screen reader, and a test, can read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Callable, Sequence

WIDTH = 720
HEIGHT = 260
MARGIN_LEFT = 80
MARGIN_RIGHT = 150   # room for the legend
MARGIN_TOP = 28
MARGIN_BOTTOM = 44
TICKS = 4
CATEGORIES_MAX = 62  # two months of gaming days
SERIES_MAX = 8
# The admin's own palette (its link and header blues), then distinct hues.
COLORS = ("#417690", "#79aec8", "#ba2121", "#6b8e23", "#e8a33d", "#7a5195", "#444444",
          "#1f9e89")

ValueFormat = Callable[[int], str]


@dataclass(frozen=True, slots=True)
class Series:
    """A named sequence of integer values, one per category (x position)."""

    name: str
    values: tuple[int, ...]


def _plain(value: int) -> str:
    return f"{value:,}"


def nice_step(span: int, ticks: int = TICKS, floor: int = 1) -> int:
    """A tick step of 1, 2 or 5 times a power of ten covering `span` in `ticks`.

    `floor` is the smallest step (100 for money in minor units: whole euros).
    """
    raw = max(floor, -(-max(span, 1) // ticks))
    power = floor
    while power * 10 <= raw:
        power *= 10
    for multiple in (1, 2, 5, 10):
        if power * multiple >= raw:
            return power * multiple
    return power * 10


def _scale(values: Sequence[int], floor: int = 1) -> tuple[int, int, int]:
    """Axis bounds on clean ticks: (low, high, step), zero included."""
    low = min(0, *values) if values else 0
    high = max(0, *values) if values else 0
    step = nice_step(high - low, floor=floor)
    low = -(-low // step) * step if low >= 0 else (low // step) * step
    high = -(-high // step) * step
    if high == low:
        high = low + step
    return low, high, step


def _frame(title: str, categories: Sequence[str], series: Sequence[Series],
           value_format: ValueFormat, chart_id: str, unit: str = "", step_floor: int = 1
           ) -> tuple[list[str], int, int, Callable]:
    if len(categories) > CATEGORIES_MAX:
        raise ValueError(f"at most {CATEGORIES_MAX} categories per chart")
    if len(series) > SERIES_MAX:
        raise ValueError(f"at most {SERIES_MAX} series per chart")
    for one in series:
        if len(one.values) != len(categories):
            raise ValueError(f"series {one.name!r} has {len(one.values)} values for"
                             f" {len(categories)} categories")
        if any(type(v) is not int for v in one.values):
            raise ValueError("chart values are integers (minor units or counts)")
    values = [v for one in series for v in one.values]
    low, high, step = _scale(values, step_floor)
    plot_w = WIDTH - MARGIN_LEFT - MARGIN_RIGHT
    plot_h = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM

    def y(value: int) -> float:
        return MARGIN_TOP + plot_h * (high - value) / (high - low)

    data = "; ".join(f"{one.name}: " + ", ".join(
        f"{c} {value_format(v)}" for c, v in zip(categories, one.values)) for one in series)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="{escape(chart_id)}" class="officer-chart"'
        f' viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" role="img"'
        f' aria-labelledby="{escape(chart_id)}-title {escape(chart_id)}-desc"'
        ' font-family="sans-serif" font-size="11">',
        f'<title id="{escape(chart_id)}-title">{escape(title)}</title>',
        f'<desc id="{escape(chart_id)}-desc">{escape(data or "no data")}</desc>',
        f'<text x="{MARGIN_LEFT}" y="16" font-size="13" font-weight="bold">{escape(title)}</text>',
    ]
    if unit:
        parts.append(f'<text class="axis-unit" x="{MARGIN_LEFT - 6}" y="{MARGIN_TOP - 10}"'
                     f' text-anchor="end" fill="#666">{escape(unit)}</text>')
    for value in range(low, high + 1, step):
        ty = y(value)
        parts.append(f'<line x1="{MARGIN_LEFT}" x2="{MARGIN_LEFT + plot_w}" y1="{ty:.1f}"'
                     f' y2="{ty:.1f}" stroke="#e0e0e0"/>')
        parts.append(f'<text x="{MARGIN_LEFT - 6}" y="{ty + 4:.1f}" text-anchor="end"'
                     f' fill="#666">{escape(value_format(value))}</text>')
    parts.append(f'<line x1="{MARGIN_LEFT}" x2="{MARGIN_LEFT + plot_w}" y1="{y(0):.1f}"'
                 f' y2="{y(0):.1f}" stroke="#999"/>')
    for index, one in enumerate(series):
        ly = MARGIN_TOP + 14 * index
        lx = WIDTH - MARGIN_RIGHT + 12
        parts.append(f'<rect x="{lx}" y="{ly}" width="10" height="10"'
                     f' fill="{COLORS[index % len(COLORS)]}"/>')
        parts.append(f'<text x="{lx + 14}" y="{ly + 9}">{escape(one.name)}</text>')
    return parts, plot_w, plot_h, y


def _category_labels(parts: list[str], categories: Sequence[str], x: Callable[[int], float]
                     ) -> None:
    step = max(1, len(categories) // 8)  # at most ~8 labels on the axis
    for index, category in enumerate(categories):
        if index % step == 0 or index == len(categories) - 1:
            parts.append(f'<text x="{x(index):.1f}" y="{HEIGHT - MARGIN_BOTTOM + 16}"'
                         f' text-anchor="middle" fill="#666">{escape(category)}</text>')


def line_chart(title: str, categories: Sequence[str], series: Sequence[Series], *,
               value_format: ValueFormat = _plain, chart_id: str = "chart", unit: str = "",
               step_floor: int = 1) -> str:
    """A line per series over the categories (e.g. a balance per gaming day).

    `unit` names the value axis ("EUR", "refusals"); ticks are clean steps
    of at least `step_floor` (100 for money in minor units).
    """
    parts, plot_w, _, y = _frame(title, categories, series, value_format, chart_id, unit,
                                 step_floor)

    def x(index: int) -> float:
        if len(categories) == 1:
            return MARGIN_LEFT + plot_w / 2
        return MARGIN_LEFT + plot_w * index / (len(categories) - 1)

    for index, one in enumerate(series):
        color = COLORS[index % len(COLORS)]
        points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(one.values))
        parts.append(f'<polyline class="series" data-series="{escape(one.name)}"'
                     f' fill="none" stroke="{color}" stroke-width="2" points="{points}"/>')
        for i, v in enumerate(one.values):
            parts.append(f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="2.5" fill="{color}">'
                         f'<title>{escape(one.name)} {escape(categories[i])}:'
                         f' {escape(value_format(v))}</title></circle>')
    _category_labels(parts, categories, x)
    parts.append("</svg>")
    return "".join(parts)


def bar_chart(title: str, categories: Sequence[str], series: Sequence[Series], *,
              value_format: ValueFormat = _plain, chart_id: str = "chart", unit: str = "",
              step_floor: int = 1) -> str:
    """Grouped bars: one group per category, one bar per series (see line_chart)."""
    parts, plot_w, _, y = _frame(title, categories, series, value_format, chart_id, unit,
                                 step_floor)
    group_w = plot_w / max(1, len(categories))
    bar_w = max(1.0, group_w * 0.8 / max(1, len(series)))

    def x(index: int) -> float:
        return MARGIN_LEFT + group_w * (index + 0.5)

    for s_index, one in enumerate(series):
        color = COLORS[s_index % len(COLORS)]
        for i, v in enumerate(one.values):
            left = MARGIN_LEFT + group_w * i + group_w * 0.1 + bar_w * s_index
            top, bottom = sorted((y(v), y(0)))
            parts.append(f'<rect class="bar" data-series="{escape(one.name)}"'
                         f' x="{left:.1f}" y="{top:.1f}" width="{bar_w:.1f}"'
                         f' height="{bottom - top:.1f}" fill="{color}">'
                         f'<title>{escape(one.name)} {escape(categories[i])}:'
                         f' {escape(value_format(v))}</title></rect>')
    _category_labels(parts, categories, x)
    parts.append("</svg>")
    return "".join(parts)
