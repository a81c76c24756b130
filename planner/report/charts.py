"""Server-side SVG charts with pygal (it imports far quicker than matplotlib: benchmarks/RESULTS.md).

Charts are made static and deterministic: no scripts (pygal's tooltip JS is switched off and its
inline config script removed), a fixed chart id instead of a random UUID, no generation-date
comment. Text in the SVG is escaped by the XML writer.
"""

from __future__ import annotations

import itertools
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


def frontier_chart(frontier, sweep: str) -> str | None:
    """Minimum cost against the swept budget or floor; breakpoints as their own series."""
    import pygal

    points = [p for p in getattr(frontier, sweep) if p.feasible and p.value is not None]
    if len(points) < 2:
        return None
    log = sweep == "latency"
    x_title = (
        ("latency budget, s (log)" if frontier.workload else "budget scale factor (log)")
        if log
        else ("capability floor" if frontier.workload else "floor shift, points")
    )
    chart = _base(
        pygal.XY,
        logarithmic=False,
        x_title=x_title,
        y_title=f"cost per {frontier.period}",
        title=f"minimum cost as the {'latency budget' if log else 'capability floor'} moves",
        value_formatter=lambda v: money(v, frontier.currency),
        dots_size=2,
        show_x_guides=False,
        height=380,
        xrange=None,
    )
    import math

    def x(v):
        return math.log10(v) if log else v

    chart.x_label_rotation = 0
    if log:
        chart.x_value_formatter = lambda v: f"{10**v:.3g}"
    chart.add("minimum cost", [(x(p.value), p.cost) for p in points])
    breaks = [(x(p.value), p.cost) for p in points if p.breakpoint]
    if breaks:
        chart.add("routing changes", breaks, stroke=False, dots_size=5)
    return _render(chart, f"frontier-{sweep}")
