"""Server-side SVG charts with pygal (it imports far quicker than matplotlib: benchmarks/RESULTS.md).

Charts are made static and deterministic: no scripts (pygal's tooltip JS is switched off and its
inline config script removed), a fixed chart id instead of a random UUID, no generation-date
comment. Text in the SVG is escaped by the XML writer.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterator

from planner.core.fmt import figure, money, percent, seconds
from planner.plan.model import Plan, WorkloadPlan

_SCRIPT = re.compile(r"<script\b[^>]*>.*?</script>", re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_RAW_TITLE = re.compile(r"<title>-?[\d.]+(?:e[-+]?\d+)?</title>")  # a guide's tooltip: the raw (log) value
_TOOLTIP_DATA = re.compile(r'<desc class="(?:value|x|y)\b[^"]*">[^<]*</desc>')  # for pygal's script, which is removed
_ids = itertools.count()

# colours chosen to stay distinct in greyscale (dark, mid, light), with dashes on threshold lines
PALETTE = ("#1f3b73", "#d9822b", "#7a7a7a", "#5aa469", "#b33c3c", "#9d7fd1")


def _style(**overrides):
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
        **overrides,
    )


def _render(chart, key: str) -> str:
    chart.uuid = f"{key}-{next(_ids)}"
    svg = chart.render(is_unicode=True)
    svg = _TOOLTIP_DATA.sub("", _RAW_TITLE.sub("", _SCRIPT.sub("", _COMMENT.sub("", svg))))
    return svg


def reset_ids() -> None:
    """Chart ids restart for every report, so the same plan renders to the same bytes."""
    global _ids
    _ids = itertools.count()


LABEL_PX = 12  # the style's label font size, for pygal's own width estimate (0.6 em a character)
BAR_ROOM = 460  # a bar chart's width beside its category labels: the bars, margins and last tick


def _text_px(chars: int, font_px: float) -> float:
    """Width of a text as pygal estimates it when it lays out margins."""
    return chars * 0.6 * font_px


def _decade(x: float) -> float:
    """The power of ten at or below x."""
    return 10.0 ** math.floor(math.log10(x))


def _clean(x: float) -> float:
    """A tick without float dust (0.30000000000000004 is 0.3), so labels and positions read exact."""
    return float(f"{x:.12g}")


def _ladder(*mantissas: float, start: float) -> Iterator[float]:
    """m x 10^k for each mantissa, ascending from the decade `start`: the values people read as round."""
    for k in itertools.count(round(math.log10(start))):
        for m in mantissas:
            yield _clean(m * 10.0**k)


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
    """Task latency against agent turns, chosen option vs cheapest standard-tier option, with thresholds.

    Both axes are logarithmic, so the y axis gets its own round ticks (pygal labels only powers of ten
    and leaves the 1 s and 2 s lines unnamed). The legend is one column, the chart growing a row per
    entry, because pygal reserves too little room for a two-column legend of odd length and clips it.
    """
    import pygal

    comp = w.compounding
    if comp is None:
        return None
    first, last = comp.turns[0], comp.turns[-1]
    series = [(f"chosen: {comp.chosen}", list(zip(comp.turns, comp.chosen_latency_s)), {})]
    if comp.standard and comp.standard_latency_s:
        series.append((f"cheapest standard: {comp.standard}", list(zip(comp.turns, comp.standard_latency_s)), {}))
    for name, value, dashes in _latency_lines(plan, w):
        line = {"stroke_style": {"dasharray": dashes, "width": 1.5}, "show_dots": False}
        budget = ", its budget" if name != "budget" and value == w.budget_s else ""
        series.append((f"{name} ({seconds(value)}){budget}", [(first, value), (last, value)], line))
    values = [y for _, points, _ in series for _, y in points if y and y > 0]
    ticks = seconds_ticks(min(values), max(values))
    chart = _base(
        pygal.XY,
        logarithmic=True,
        title=f"{w.id}: task latency by agent turns",
        x_title="agent turns per task",
        y_title="seconds (log scale)",
        dots_size=2,
        stroke=True,
        x_labels=turn_ticks(comp.turns),
        y_labels=[{"value": t, "label": seconds(t)} for t in ticks],
        # from the lowest tick; a little over the top value, as pygal skips a y label on the top edge
        range=(min(ticks[0], min(values)), max(values) * 1.02),
        value_formatter=seconds,
        show_x_guides=False,
        show_y_guides=False,
        show_minor_y_labels=True,
        legend_at_bottom_columns=1,
        width=_legend_width(title for title, _, _ in series),
        height=360 + LEGEND_ROW_PX * len(series),
    )
    for title, points, options in series:
        chart.add(title, points, **options)
    return _render(chart, "compounding")


LEGEND_ROW_PX = 18  # pygal spaces legend rows 1.5 x the legend font size
LEGEND_LEFT_PX = 130  # a bottom legend starts past the y title and labels (up to "10.0 min")


def _legend_width(titles) -> int:
    """The chart's width: the usual 720, or wider when a legend entry (an option with a long mode)
    would run past the right edge, since entries are never cut."""
    entry = LEGEND_LEFT_PX + 17 + max(_text_px(len(t), LABEL_PX) for t in titles) + 20  # box, gap, margin
    return max(720, 20 * math.ceil(entry / 20))


def _latency_lines(plan: Plan, w: WorkloadPlan) -> list[tuple[str, float, str]]:
    """The plan's latency thresholds, then the workload's own budget unless it is one of them: name,
    seconds and dash pattern of each horizontal line."""
    lines = [
        (name, value, "6, 4") for name, value in sorted(plan.thresholds.items(), key=lambda kv: kv[1] or 0) if value
    ]
    if w.budget_s and w.budget_s not in plan.thresholds.values():
        lines.append(("budget", w.budget_s, "2, 3"))
    return lines


def seconds_ticks(lo: float, hi: float, most: int = 9) -> list[float]:
    """Round durations from the tick at or below `lo` up to `hi`: a 1-2-5 ladder, or 1-3 or decades
    when that would make more than `most` ticks. Past two minutes the ladder counts minutes (2, 5,
    10 min), as planner.core.fmt.seconds writes them; every ladder holds 1 s and 10 s."""
    for mantissas in ((1, 2, 5), (1, 3), (1,)):
        ticks = _from_below(_duration_ladder(mantissas), lo, hi)
        if len(ticks) <= most:
            break
    return ticks  # a span too wide even for decades keeps them all: a decade apart they cannot touch


SECONDS_FLOOR = 0.001  # the smallest tick: fmt.seconds writes anything smaller in scientific notation


def _duration_ladder(mantissas: tuple[float, ...]) -> list[float]:
    """Round values in seconds below two minutes, then round minutes, up to a week; a second's value
    too close to the first minute one (100 s against 2 min) is dropped so the two labels cannot crowd."""
    secs = list(itertools.takewhile(lambda x: x < 120, _ladder(*mantissas, start=SECONDS_FLOOR)))
    mins = [60 * x for x in itertools.takewhile(lambda x: x <= 7 * 24 * 60, _ladder(*mantissas, start=1)) if x >= 2]
    return [x for x in secs if mins[0] / x >= 1.25] + mins


def _from_below(ladder: list[float], lo: float, hi: float) -> list[float]:
    """The ladder's values from the last at or below lo (so the axis starts on a label) up to hi."""
    start = max([x for x in ladder if x <= lo], default=ladder[0])
    return [x for x in ladder if start <= x <= hi] or [start]


def turn_ticks(turns: list[int]) -> list[int]:
    """Turn counts to label on the log x axis: 1, 2, 3, 5, 10, 20, 30... and the last, dropping a round
    value so close to the last that their labels would touch (19 and 20 on a log axis)."""
    last = turns[-1]
    ladder = [int(x) for x in itertools.takewhile(lambda x: x <= last, _ladder(1, 2, 3, 5, start=1)) if x >= turns[0]]
    return [x for x in ladder if last / x >= 1.15] + [last]


def baselines_chart(plan: Plan) -> str | None:
    """Total cost of the plan against each baseline, the plan on top; each bar's cost is in its label
    so a short bar's figure cannot sit on the axis text."""
    if not plan.baselines:
        return None
    mine = "this plan" if plan.status == "optimal" else "the smallest relaxation (no feasible plan)"
    rows = [(mine, plan.total_cost)] + [
        (b.label + (f" · misses {b.misses}" if b.misses else ""), b.total_cost) for b in plan.baselines
    ]
    labels = [f"{name} · {money(cost, plan.currency)}" for name, cost in rows]
    title = f"cost per {plan.period}: the plan against simple rules"
    return _money_bars(title, labels, [cost for _, cost in rows], plan.currency, "baselines")


VENDOR_BARS = 8  # vendors drawn as their own bar; the rest share one bar, so the chart stays short


def vendor_chart(plan: Plan) -> str | None:
    """Spend per vendor, the largest on top, each bar labelled with its money and share of spend; past
    VENDOR_BARS the smallest are summed into one bar (an option billed by one folded company and
    served by another counts for both, as in the vendor table)."""
    if not plan.vendors:
        return None
    vendors = sorted(plan.vendors, key=lambda v: (-v.spend, v.vendor))
    rows = [(v.vendor, v.spend, v.share) for v in vendors[:VENDOR_BARS]]
    rest = vendors[VENDOR_BARS:]
    if rest:
        name = f"{len(rest)} other" + ("s" if len(rest) > 1 else "")
        rows.append((name, sum(v.spend for v in rest), sum(v.share for v in rest)))
    labels = [f"{name} · {money(spend, plan.currency)} · {percent(share)}" for name, spend, share in rows]
    title = f"spend per {plan.period} by company"
    return _money_bars(
        title, labels, [spend for _, spend, _ in rows], plan.currency, "vendors", min_width=420, bar_room=240
    )


def money_ticks(top: float, most: int = 5) -> list[float]:
    """Value-axis ticks from zero past `top` on a 1-2-5 step: four to six ticks, few enough that their
    money labels never touch (pygal's own ticks crowd a wide range)."""
    step = next(s for s in _ladder(1, 2, 5, start=_decade(top / most)) if math.ceil(top / s - 1e-9) <= most)
    n = max(1, math.ceil(top / step - 1e-9))
    return [_clean(k * step) for k in range(n + 1)]


def _money_bars(
    title: str,
    labels: list[str],
    values: list[float],
    currency: str,
    key: str,
    min_width: int = 720,
    bar_room: int = BAR_ROOM,
) -> str:
    """A horizontal bar per label, top to bottom in the given order, on money ticks. The chart widens
    with the longest label, so long rule names leave the bars room rather than being cut; a chart
    for a half-width column (min_width) keeps its text at the page's size."""
    import pygal

    ticks = money_ticks(max(max(values), 0.0) or 1.0)
    longest = max(len(label) for label in labels)
    chart = _base(
        pygal.HorizontalBar,
        title=title,
        show_legend=False,
        style=_style(guide_stroke_color="#ccc", major_guide_stroke_color="#ccc"),
        value_formatter=lambda v: money(v, currency),
        range=(0, ticks[-1]),
        y_labels=[{"value": t, "label": tick_money(t, ticks[-1], currency)} for t in ticks],
        width=max(min_width, 20 * math.ceil((_text_px(longest, LABEL_PX) + bar_room) / 20)),
        height=90 + 40 * len(labels),
    )
    chart.x_labels = labels[::-1]  # pygal draws the first bar at the bottom
    chart.add("", values[::-1])
    return _render(chart, key)


# label positions of a log axis, most to fewest: a factor's 1-2-5 steps, or round durations in seconds
_FACTOR_STEPS = ((1, 2, 5), (1, 3), (1,))
_DURATIONS = [m * 10.0**e for e in range(-3, 1) for m in (1, 2, 5)] + [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200]
_DURATIONS += [1800, 3600, 7200, 18000, 36000, 86400]
MAX_X_LABELS = 8  # on a 720-pixel chart, labels of up to 8 characters never touch


def _log_ticks(lo: float, hi: float, *, seconds_axis: bool) -> list[float]:
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


def tick_money(v: float, top: float, currency: str) -> str:
    """An axis label in one style along the axis: in thousands once the axis reaches $10k ($0, $8k,
    $16k, not $8,000 beside $16k), else as fmt.money writes it."""
    if top < 1e4 or v == 0:
        return money(v, currency)
    symbol = money(0.0, currency)[:-1]
    return f"{'-' if v < 0 else ''}{symbol}{figure(abs(v) / 1e3, 3)}k"


def _money_axis(lo: float, hi: float, currency: str):
    """Money on a cost axis: as people read it ($33.1k), or written out ($33,052, $12.34) where the
    costs are too close for three digits to tell the labels apart."""
    if hi - lo >= 0.05 * hi:
        return lambda v: tick_money(v, hi, currency)
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
    hi = max(costs) or 1.0
    # from zero: a cost axis cut just under the lowest point draws a $51 step on $33k as a cliff
    config = {"range": (0.0, hi * 1.08), "value_formatter": _money_axis(0.0, hi, frontier.currency)}
    if log:
        ticks = _log_ticks(min(values), max(values), seconds_axis=one)
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


def replay_chart(w, thresholds: dict) -> str | None:
    """A workload's replayed task latencies as a curve: the share of its logged tasks done within each
    time, with the budget as a vertical line and the plan's promised share as a horizontal one, so the
    tail past the budget shows where the two cross. Time runs on a log scale (drawn as log10 on a linear
    axis, labelled in seconds: pygal's logarithmic XY would make the share axis logarithmic too)."""
    import pygal

    points = sorted(w.latency.items())
    if not points:
        return None
    curve: list[tuple[float, float]] = []
    for per_mille, latency in points:  # one point per distinct latency: the highest share it reaches
        if curve and latency == curve[-1][0]:
            curve[-1] = (latency, per_mille / 1000)
        else:
            curve.append((latency, per_mille / 1000))
    lo = max(curve[0][0], SECONDS_FLOOR)
    hi = curve[-1][0]
    budget = w.plan.budget_s
    if budget:
        lo, hi = min(lo, budget), max(hi, budget)
    hi = max(hi, lo * 1.5)
    ticks = seconds_ticks(lo, hi)
    lo = min(ticks[0], lo)
    x = lambda v: math.log10(max(v, lo))
    steps, below = [], 0.0  # the share jumps at each latency: a step up from the share below it
    for a, b in curve:
        steps += [(x(a), below), (x(a), b)]
        below = b
    series = [(f"replayed tasks ({w.tasks:,})", steps, {"show_dots": False})]
    if budget:
        series.append((f"budget ({seconds(budget)})", [(x(budget), 0.0), (x(budget), 1.0)], _DASHED))
        if w.promised is not None:
            series.append(
                (f"promised within budget ({percent(w.promised)})", [(x(lo), w.promised), (x(hi), w.promised)], _DOTTED)
            )
    chart = _base(
        pygal.XY,
        title=f"{w.id}: share of tasks done within a time",
        x_title="task latency (log scale)",
        y_title="share of tasks",
        stroke=True,
        dots_size=2,
        x_labels=[{"value": x(t), "label": seconds(t)} for t in ticks],
        value_formatter=percent,
        range=(0, 1),
        xrange=(x(lo), x(hi)),
        y_labels=[{"value": v / 10, "label": percent(v / 10)} for v in range(0, 11, 2)],
        show_x_guides=False,
        legend_at_bottom_columns=1,
        height=360 + LEGEND_ROW_PX * len(series),
    )
    for title, pts, options in series:
        chart.add(title, pts, **options)
    return _render(chart, "replay")


_DASHED = {"stroke_style": {"dasharray": "6, 4", "width": 1.5}, "show_dots": False}
_DOTTED = {"stroke_style": {"dasharray": "2, 3", "width": 1.5}, "show_dots": False}
