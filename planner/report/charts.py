"""Server-side SVG charts with pygal (it imports far quicker than matplotlib: benchmarks/RESULTS.md).

Charts are made static and deterministic: no scripts (pygal's tooltip JS is switched off and its
inline config script removed), a fixed chart id instead of a random UUID, no generation-date
comment. Text in the SVG is escaped by the XML writer.
"""

from __future__ import annotations

import itertools
import math
import re

from ..fmt import money, seconds
from ..plan import Plan, WorkloadPlan

_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_ids = itertools.count()

# colours chosen to stay distinct in greyscale (dark, mid, light), with dashes on threshold lines
PALETTE = ("#1f3b73", "#d9822b", "#7a7a7a", "#5aa469", "#b33c3c", "#9d7fd1")


def _style():
    from pygal.style import Style

    return Style(
        background="white",
        plot_background="white",
        foreground="#222",
        foreground_strong="#111",
        foreground_subtle="#bbb",
        colors=PALETTE,
        font_family="system-ui, sans-serif",
        label_font_size=12,
        major_label_font_size=12,
        legend_font_size=12,
        title_font_size=14,
        value_font_size=11,
    )


def _render(chart, key: str) -> str:
    chart.uuid = f"{key}-{next(_ids)}"
    svg = chart.render(is_unicode=True)
    svg = _SCRIPT.sub("", _COMMENT.sub("", svg))
    return svg


def reset_ids() -> None:
    """Chart ids restart for every report, so the same plan renders to the same bytes."""
    global _ids
    _ids = itertools.count()


def _base(kind, **config):
    settings = dict(
        js=[],
        disable_xml_declaration=True,
        style=_style(),
        explicit_size=False,
        width=720,
        height=320,
        legend_at_bottom=True,
        legend_at_bottom_columns=2,
        print_values=False,
        show_minor_x_labels=True,
        truncate_legend=-1,
        truncate_label=-1,
    )
    settings.update(config)
    return kind(**settings)


def compounding_chart(plan: Plan, w: WorkloadPlan) -> str | None:
    """Task latency against agent turns, chosen option vs cheapest standard-tier option, with thresholds."""
    import pygal

    comp = w.compounding
    if comp is None:
        return None
    chart = _base(
        pygal.XY,
        logarithmic=True,
        title=f"{w.id}: task latency by agent turns",
        x_title="agent turns per task",
        y_title="seconds (log scale)",
        dots_size=2,
        stroke=True,
        x_labels=comp.turns[:: max(1, len(comp.turns) // 12)],
        show_x_guides=False,
        show_y_guides=False,
        show_minor_y_labels=False,
        height=400,
    )
    chart.add(f"chosen: {comp.chosen}", list(zip(comp.turns, comp.chosen_latency_s)))
    if comp.standard and comp.standard_latency_s:
        chart.add(f"cheapest standard: {comp.standard}", list(zip(comp.turns, comp.standard_latency_s)))
    first, last = comp.turns[0], comp.turns[-1]
    for name, value in sorted(plan.thresholds.items(), key=lambda kv: kv[1] or 0):
        if value:
            chart.add(
                f"{name} ({seconds(value)})",
                [(first, value), (last, value)],
                stroke_style={"dasharray": "6, 4", "width": 1.5},
                show_dots=False,
            )
    if w.budget_s and w.budget_s not in plan.thresholds.values():
        chart.add(
            f"budget ({seconds(w.budget_s)})",
            [(first, w.budget_s), (last, w.budget_s)],
            stroke_style={"dasharray": "2, 3", "width": 1.5},
            show_dots=False,
        )
    return _render(chart, "compounding")


def baselines_chart(plan: Plan) -> str | None:
    """Total cost of the plan against each baseline."""
    import pygal

    if not plan.baselines:
        return None
    chart = _base(
        pygal.HorizontalBar,
        title=f"cost per {plan.period}: the plan against simple rules",
        value_formatter=lambda v: money(v, plan.currency),
        print_values=True,
        show_legend=False,
        height=60 + 45 * (len(plan.baselines) + 1),
    )
    chart.x_labels = ["this plan"] + [b.label + (f" (misses {b.misses})" if b.misses else "") for b in plan.baselines]
    chart.add("cost", [plan.total_cost] + [b.total_cost for b in plan.baselines])
    return _render(chart, "baselines")


def vendor_chart(plan: Plan) -> str | None:
    """Share of spend per vendor."""
    import pygal

    if not plan.vendors:
        return None
    chart = _base(
        pygal.HorizontalBar,
        title="share of spend by vendor",
        show_legend=False,
        print_values=True,
        value_formatter=lambda v: f"{v:.0%}",
        range=(0, 1),
        height=60 + 40 * len(plan.vendors),
    )
    chart.x_labels = [v.vendor for v in plan.vendors]
    chart.add("share", [v.share for v in plan.vendors])
    return _render(chart, "vendors")


# label positions of a log axis, most to fewest: a factor's 1-2-5 steps, or round durations in seconds
_FACTOR_STEPS = ((1, 2, 5), (1, 3), (1,))
_DURATIONS = [m * 10.0**e for e in range(-3, 1) for m in (1, 2, 5)] + [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200]
_DURATIONS += [1800, 3600, 7200, 18000, 36000, 86400]
MAX_X_LABELS = 8  # on a 720-pixel chart, labels of up to 8 characters never touch


def _log_ticks(lo: float, hi: float, seconds_axis: bool) -> list[float]:
    """Round values between lo and hi (inclusive, to a rounding error) for a log axis: at most
    MAX_X_LABELS of them, at least the two ends when no round value falls between."""

    def inside(v: float) -> bool:
        return lo * (1 - 1e-9) <= v <= hi * (1 + 1e-9)

    ticks: list[float] = []
    if seconds_axis:
        ticks = sorted(v for v in set(_DURATIONS) if inside(v))
        while len(ticks) > MAX_X_LABELS:
            ticks = ticks[::2]
    else:
        decades = range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
        for steps in _FACTOR_STEPS:
            ticks = [m * 10.0**e for e in decades for m in steps if inside(m * 10.0**e)]
            if len(ticks) <= MAX_X_LABELS:
                break
    return ticks if len(ticks) >= 2 else sorted({lo, hi})


def _money_axis(lo: float, hi: float, currency: str):
    """Money on a cost axis: as people read it ($33.1k), or written out ($33,052, $12.34) where the
    costs are too close for three digits to tell the labels apart."""
    if hi - lo >= 0.05 * hi:
        return lambda v: money(v, currency)
    symbol = money(0.0, currency)[:-1]  # "$", "€", "CHF "
    step = (hi - lo) / 5  # about the axis's step between labels
    places = 0 if step >= 1 or step <= 0 else min(2, -math.floor(math.log10(step)))
    return lambda v: f"{'-' if v < 0 else ''}{symbol}{abs(v):,.{places}f}"


def frontier_chart(frontier, sweep: str) -> str | None:
    """Minimum cost against the swept budget or floor, breakpoints as their own series, and today's
    plan as a marked point of its own ("today: $33.1k"). A latency axis is logarithmic, labelled at
    round values (x0.5, x1, x2 or seconds)."""
    import pygal

    log = sweep == "latency"
    points = [p for p in getattr(frontier, sweep) if p.feasible and p.value is not None and (p.value > 0 or not log)]
    if len(points) < 2:
        return None
    today = frontier.today(sweep)
    drawn = today is not None and today.feasible and today.value is not None and (today.value > 0 or not log)
    one = frontier.workload is not None
    x_title = (
        ("latency budget (log scale)" if one else "budget scale factor (log scale)")
        if log
        else ("capability floor" if one else "floor shift, points")
    )

    def x(v):
        return math.log10(v) if log else v

    values = [p.value for p in points] + ([today.value] if drawn else [])
    breaks = [(x(p.value), p.cost) for p in points if p.breakpoint]
    colors = [PALETTE[0]] + ([PALETTE[1]] if breaks else []) + ([PALETTE[4]] if drawn else [])
    style = _style()
    style.colors = tuple(colors)  # today's point in red, whichever series come before it
    costs = [p.cost for p in points] + ([today.cost] if drawn else [])
    lo, hi = min(costs), max(costs)
    pad = 0.08 * (hi - lo) or 0.05 * hi or 1.0  # room above and below, so no point sits on the frame
    config = {"range": (max(0.0, lo - pad), hi + pad), "value_formatter": _money_axis(lo, hi, frontier.currency)}
    if log:
        ticks = _log_ticks(min(values), max(values), one)
        config["x_labels"] = [{"value": x(v), "label": seconds(v) if one else f"x{v:g}"} for v in ticks]
    elif not one:
        config["x_value_formatter"] = lambda v: f"{v:+g}" if v else "0"
    chart = _base(
        pygal.XY,
        logarithmic=False,
        x_title=x_title,
        y_title=f"cost per {frontier.period}",
        title=f"minimum cost as the {'latency budget' if log else 'capability floor'} moves",
        style=style,
        legend_at_bottom_columns=len(colors),  # one row (pygal counts rows as series // columns)
        dots_size=2,
        show_x_guides=False,
        height=380,
        x_label_rotation=0,
        print_labels=True,  # only today's point carries a label
        **config,
    )
    chart.add("minimum cost", [(x(p.value), p.cost) for p in points])
    if breaks:
        chart.add("routing changes", breaks, stroke=False, dots_size=5)
    if drawn:
        chart.add(
            f"today: {money(today.cost, frontier.currency)}",
            [{"value": (x(today.value), today.cost), "label": "today"}],
            stroke=False,
            dots_size=7,
        )
    return _render(chart, f"frontier-{sweep}")
