"""Server-rendered SVG line charts (pure Python, no Django): no external script, no inline style.

``line_chart`` returns the markup of one <svg> element. Every text in it is
escaped here, so a caller may mark the result safe. Colours come from the
series' CSS classes (static/css/wall.css), so the page's stylesheet decides them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from scoring.engine.text import _


@dataclass(frozen=True)
class Series:
    label: str
    points: Sequence[tuple[float, float]]  # (x, y)
    css_class: str = ""


PALETTE = ("#1f5fa8", "#c0392b", "#2e8b57", "#8e44ad", "#b7791f")


def nice_step(span: float, ticks: int = 5) -> float:
    """A round tick step (1, 2 or 5 times a power of ten) giving about ``ticks`` intervals over ``span``."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def _fmt(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))


def line_chart(
    series: Sequence[Series],
    *,
    title: str,
    x_label: str = "",
    y_label: str = "",
    width: int = 640,
    height: int = 260,
    y_from_zero: bool = True,
) -> str:
    """One <svg> with a polyline per series, tick labels on both axes and a legend."""
    left, right, top, bottom = 56, 16, 28, 44
    plot_w, plot_h = width - left - right, height - top - bottom
    points = [point for item in series for point in item.points]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" font-size="12" '
        f'width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
    ]
    if not points:
        parts.append(
            f'<text class="chart-empty" x="{width / 2:g}" y="{height / 2:g}" text-anchor="middle">'
            f"{escape(_('No data yet'))}</text>"
        )
        parts.append("</svg>")
        return "".join(parts)

    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    x_min, x_max = min(xs), max(xs)
    y_min, y_max = (min(0.0, min(ys)) if y_from_zero else min(ys)), max(ys)
    if x_max == x_min:
        x_max = x_min + 1
    step = nice_step(y_max - y_min or 1.0)
    y_min = math.floor(y_min / step) * step
    y_max = max(math.ceil(y_max / step) * step, y_min + step)

    def sx(x: float) -> float:
        return left + (x - x_min) / (x_max - x_min) * plot_w

    def sy(y: float) -> float:
        return top + plot_h - (y - y_min) / (y_max - y_min) * plot_h

    # Horizontal grid lines with their values.
    value = y_min
    while value <= y_max + step / 1000:
        y = sy(value)
        parts.append(
            f'<line class="chart-grid" stroke="#ddd" x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}"/>'
        )
        parts.append(f'<text class="chart-tick" x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{_fmt(value)}</text>')
        value += step
    # X ticks: at most about ten, on whole numbers.
    x_step = max(1, math.ceil(nice_step(x_max - x_min, 8)))
    tick = math.ceil(x_min)
    while tick <= x_max:
        x = sx(tick)
        parts.append(
            f'<text class="chart-tick" x="{x:.1f}" y="{top + plot_h + 16}" text-anchor="middle">{_fmt(tick)}</text>'
        )
        tick += x_step
    parts.append(
        f'<line class="chart-axis" stroke="#666" x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" '
        f'y2="{top + plot_h}"/>'
    )
    parts.append(f'<line class="chart-axis" stroke="#666" x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}"/>')
    if x_label:
        parts.append(
            f'<text class="chart-label" x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle">'
            f"{escape(x_label)}</text>"
        )
    if y_label:
        parts.append(
            f'<text class="chart-label" x="12" y="{top + plot_h / 2:.1f}" text-anchor="middle" '
            f'transform="rotate(-90 12 {top + plot_h / 2:.1f})">{escape(y_label)}</text>'
        )
    for index, item in enumerate(series):
        coords = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in item.points)
        css = escape(item.css_class or f"series-{index + 1}")
        color = PALETTE[index % len(PALETTE)]
        parts.append(f'<g class="chart-series {css}"><title>{escape(item.label)}</title>')
        if len(item.points) > 1:
            parts.append(
                f'<polyline class="chart-line" fill="none" stroke="{color}" stroke-width="2.5" points="{coords}"/>'
            )
        if len(item.points) <= 60:
            for x, y in item.points:
                parts.append(f'<circle class="chart-dot" fill="{color}" cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="3"/>')
        parts.append("</g>")
        # Legend, top right, one entry per series.
        legend_x = left + 8 + index * 160
        parts.append(
            f'<g class="chart-legend {css}"><rect class="chart-swatch" fill="{color}" x="{legend_x}" y="8" '
            f'width="12" height="12"/>'
            f'<text x="{legend_x + 18}" y="18">{escape(item.label)}</text></g>'
        )
    parts.append("</svg>")
    return "".join(parts)
