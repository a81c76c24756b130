"""The report's charts read in a browser: labels of one axis never touch, legends fit the drawing,
the latency axis names 1 s and 10 s, no label is in scientific notation, and the same plan draws
the same bytes. Boxes are estimated as pygal estimates them: 0.6 em a character."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from conftest import ROOT
from typer.testing import CliRunner

from planner.cli.app import app
from planner.outputs.report import charts
from planner.plan.model import VendorSpend, read_plan

SVG = "{http://www.w3.org/2000/svg}"
SCIENTIFIC = re.compile(r"\d[eE][+-]?\d")
PLANS = ("real-support", "support")


@pytest.fixture(scope="module")
def plans(tmp_path_factory):
    """The shipped real-support and support portfolios, solved by the CLI and read back."""
    out = tmp_path_factory.mktemp("charts")
    loaded = {}
    for name in PLANS:
        result = CliRunner().invoke(app, ["solve", str(ROOT / "workloads" / f"{name}.yaml"), "--out", str(out)])
        assert result.exit_code == 0, result.output
        loaded[name] = read_plan(out / f"{name}.plan.json")
    return loaded


def drawn(plan) -> dict[str, str]:
    """Every chart the plan report draws, by name."""
    charts.reset_ids()
    out = {"baselines": charts.baselines_chart(plan), "vendors": charts.vendor_chart(plan)}
    for w in plan.workloads:
        if w.compounding:
            out[f"compounding {w.id}"] = charts.compounding_chart(plan, w)
    return {name: svg for name, svg in out.items() if svg}


# ----------------------------------------------------------------------------- reading the SVG


class Label:
    """A text of the chart with its box in the SVG's coordinates and the group it belongs to."""

    def __init__(self, text: str, x: float, y: float, anchor: str, size: float, group: str):
        self.text, self.group = text, group
        width = len(text) * 0.6 * size
        self.left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
        self.right = self.left + width
        self.top, self.bottom = y - 0.8 * size, y + 0.2 * size  # a baseline at y

    def overlaps(self, other: Label) -> bool:
        across = min(self.right, other.right) > max(self.left, other.left)
        down = min(self.bottom, other.bottom) > max(self.top, other.top)
        return across and down


def _font_sizes(root) -> dict[str, float]:
    """Font sizes of axis labels, legend entries and titles, from the chart's own style sheet."""
    css = "".join(s.text or "" for s in root.iter(f"{SVG}style"))

    def size(selector: str) -> float:
        m = re.search(re.escape(selector) + r"\{[^}]*?font-size:([\d.]+)px", css)
        assert m, f"no font size for {selector}"
        return float(m.group(1))

    return {"axis": size(".axis text"), "legend": size(".legends .legend text"), "title": size(".title")}


def _translate(node) -> tuple[float, float]:
    m = re.match(r"translate\(\s*([-\d.]+)[ ,]+([-\d.]+)\s*\)", node.get("transform", ""))
    return (float(m.group(1)), float(m.group(2))) if m else (0.0, 0.0)


def labels(svg: str) -> tuple[list[Label], float, float]:
    """The chart's unrotated texts as boxes (axis labels grouped by axis), and its viewBox size."""
    root = ET.fromstring(svg)
    sizes = _font_sizes(root)
    _, _, width, height = map(float, root.get("viewBox").split())
    found: list[Label] = []

    def walk(node, dx: float, dy: float, classes: tuple[str, ...]):
        tx, ty = _translate(node)
        dx, dy = dx + tx, dy + ty
        classes = classes + (node.get("class") or "",)
        for child in node:
            if child.tag == f"{SVG}text" and child.text and "transform" not in child.attrib:
                found.append(_label(child, dx, dy, classes + (child.get("class") or "",), sizes))
            else:
                walk(child, dx, dy, classes)

    walk(root, 0.0, 0.0, ())
    return found, width, height


def _label(node, dx: float, dy: float, classes: tuple[str, ...], sizes: dict[str, float]) -> Label:
    """A text's box: anchor and font size follow pygal's style sheet for the group it is in."""
    words = set(" ".join(classes).split())
    if "axis" in words:
        group = "axis x" if "x" in words else "axis y"
        anchor, size = ("middle" if group == "axis x" else "end"), sizes["axis"]
    elif "legends" in words:
        group, anchor, size = "legend", "start", sizes["legend"]
    elif "title" in words:
        group, anchor, size = "title", "middle", sizes["title"]
    else:
        group, anchor, size = "other", "start", sizes["axis"]
    anchor = node.get("text-anchor", anchor)
    return Label(node.text, dx + float(node.get("x", 0)), dy + float(node.get("y", 0)), anchor, size, group)


def axis(svg: str, group: str) -> list[Label]:
    return [label for label in labels(svg)[0] if label.group == group]


def _all_charts(plans):
    return [(p, name, svg) for p in PLANS for name, svg in drawn(plans[p]).items()]


# ----------------------------------------------------------------------------- the charts


def test_every_chart_is_drawn(plans):
    """Both portfolios have baselines, vendors and multi-turn workloads: each gets its chart."""
    for p in PLANS:
        names = drawn(plans[p])
        assert {"baselines", "vendors"} <= set(names)
        assert any(n.startswith("compounding ") for n in names)


def test_labels_of_one_axis_never_overlap(plans):
    for p, name, svg in _all_charts(plans):
        for group in ("axis x", "axis y", "legend"):
            boxes = axis(svg, group)
            for i, a in enumerate(boxes):
                for b in boxes[i + 1 :]:
                    assert not a.overlaps(b), f"{p} {name}: {group} labels {a.text!r} and {b.text!r} overlap"


def test_every_text_is_inside_the_drawing(plans):
    """Legend entries (whole, never cut with an ellipsis) and axis labels lie within the viewBox."""
    for p, name, svg in _all_charts(plans):
        found, width, height = labels(svg)
        assert any(label.group == "legend" for label in found) or not name.startswith("compounding")
        for label in found:
            where = f"{p} {name}: {label.text!r}"
            assert 0 <= label.left and label.right <= width, where
            assert 0 <= label.top and label.bottom <= height, where
            assert "…" not in label.text, where


def test_no_label_in_scientific_notation(plans):
    for p, name, svg in _all_charts(plans):
        root = ET.fromstring(svg)
        texts = [t.text or "" for tag in ("text", "title") for t in root.iter(f"{SVG}{tag}")]
        assert not [t for t in texts if SCIENTIFIC.search(t)], f"{p} {name}"


def test_charts_are_deterministic(plans):
    for p in PLANS:
        assert drawn(plans[p]) == drawn(plans[p])


def _plotted_seconds(plan, w) -> list[float]:
    c = w.compounding
    lines = [v for v in plan.thresholds.values() if v] + ([w.budget_s] if w.budget_s else [])
    return c.chosen_latency_s + (c.standard_latency_s or []) + lines


def test_latency_axis_names_one_and_ten_seconds(plans):
    for p in PLANS:
        plan = plans[p]
        for w in (w for w in plan.workloads if w.compounding):
            ys = [label.text for label in axis(charts.compounding_chart(plan, w), "axis y")]
            values = _plotted_seconds(plan, w)
            for tick, text in ((1.0, "1.0 s"), (10.0, "10 s")):
                if min(values) <= tick <= max(values):
                    assert text in ys, f"{p} {w.id}: {ys}"


def test_latency_lines_carry_their_value_in_the_legend(plans):
    for p in PLANS:
        plan = plans[p]
        for w in (w for w in plan.workloads if w.compounding):
            legend = {label.text for label in axis(charts.compounding_chart(plan, w), "legend")}
            for name, value in plan.thresholds.items():
                if value:  # a threshold that is the workload's budget says so
                    text = f"{name} ({charts.seconds(value)})" + (", its budget" if value == w.budget_s else "")
                    assert text in legend, f"{p} {w.id}: {legend}"
            assert f"chosen: {w.compounding.chosen}" in legend


def _categories(svg: str) -> list[str]:
    """The bar chart's category labels, top to bottom."""
    return [label.text for label in sorted(axis(svg, "axis y"), key=lambda label: label.top)]


def test_baselines_put_the_plan_on_top_with_its_cost(plans):
    plan = plans["real-support"]
    rows = _categories(charts.baselines_chart(plan))
    assert rows[0] == f"this plan · {charts.money(plan.total_cost)}"
    assert len(rows) == len(plan.baselines) + 1
    for row, b in zip(rows[1:], plan.baselines):
        assert row.startswith(b.label) and row.endswith(charts.money(b.total_cost))


def test_money_axis_has_few_round_ticks(plans):
    for p in PLANS:
        for chart in (charts.baselines_chart(plans[p]), charts.vendor_chart(plans[p])):
            ticks = [label.text for label in sorted(axis(chart, "axis x"), key=lambda label: label.left)]
            assert 3 <= len(ticks) <= 6 and ticks[0] == "$0", ticks


@pytest.mark.parametrize("top", [0.004, 0.9, 1.0, 7.5, 4916, 12_300, 33_100, 99_999, 2.5e6])
def test_money_ticks_step_one_two_five(top):
    ticks = charts.money_ticks(top)
    step = ticks[1]
    mantissa = step / charts._decade(step)
    assert 4 <= len(ticks) <= 6 and ticks[0] == 0 and ticks[-1] >= top > ticks[-2]
    assert any(abs(mantissa - m) < 1e-9 for m in (1, 2, 5))
    assert all(abs(b - a - step) < 1e-9 * step for a, b in zip(ticks, ticks[1:]))


@pytest.mark.parametrize("lo,hi", [(0.35, 60), (0.9, 700), (1.0, 240), (0.05, 12), (0.5, 2400)])
def test_seconds_ticks_hold_one_and_ten_seconds(lo, hi):
    ticks = charts.seconds_ticks(lo, hi)
    assert 1.0 in ticks and 10.0 in ticks
    assert ticks[0] <= lo and ticks[-1] <= hi and len(ticks) <= 9
    assert len({charts.seconds(t) for t in ticks}) == len(ticks)


def test_vendor_chart_sorts_by_spend_and_folds_the_tail(plans):
    plan = plans["real-support"]
    rows = _categories(charts.vendor_chart(plan))
    top = max(plan.vendors, key=lambda v: v.spend)
    assert rows[0] == f"{top.vendor} · {charts.money(top.spend)} · {charts.percent(top.share)}"
    many = [VendorSpend(vendor=f"v{k:02d}", spend=100.0 * (k + 1), share=(k + 1) / 66) for k in range(11)]
    rows = _categories(charts.vendor_chart(plan.model_copy(update={"vendors": many})))
    assert [r.split(" · ")[0] for r in rows] == [f"v{k:02d}" for k in range(10, 2, -1)] + ["3 others"]
    assert rows[-1] == f"3 others · {charts.money(600.0)} · {charts.percent(6 / 66)}"


def test_long_legend_entries_widen_the_chart_whole(plans):
    """An option named at length (a long model, host and mode) widens the chart rather than being cut."""
    plan = plans["real-support"]
    w = next(w for w in plan.workloads if w.compounding)
    long = "meta-llama/llama-3.1-405b-instruct-turbo@openrouter-eu-west (reasoning-high-effort)"
    w = w.model_copy(update={"compounding": w.compounding.model_copy(update={"standard": long})})
    svg = charts.compounding_chart(plan, w)
    found, width, _ = labels(svg)
    entry = next(label for label in found if label.text == f"cheapest standard: {long}")
    assert width > 720 and entry.right <= width
