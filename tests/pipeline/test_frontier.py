"""Cost frontiers (planner.pipeline.frontier): the minimum cost as a latency budget or a capability floor sweeps,
with and without sweep-safe pruning, and `planner frontier`."""

import csv
import dataclasses
import io
import json
import re

import pytest
from conftest import ROOT, make_inputs, two_vendors
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import EXPLORE, examples, portfolios, sampled_portfolios, with_fallback
from typer.testing import CliRunner

from planner.cli.app import app
from planner.core.errors import InputError
from planner.model.load import load_inputs, validate
from planner.model.schema import RelativeFloor, WorkloadSet, floor_value
from planner.outputs.report import render_frontier_report
from planner.pipeline.frontier import Frontier, FrontierPoint, frontier
from planner.pipeline.solve import solve_inputs

runner = CliRunner()
SUPPORT = ROOT / "workloads" / "support.yaml"
REAL = ROOT / "workloads" / "real-support.yaml"


def test_frontier_single_workload_breakpoints():
    f = frontier(two_vendors(), "agent", points=12)
    costs = [p.cost for p in f.latency if p.feasible]
    assert costs == sorted(costs, reverse=True)  # looser budgets never cost more
    assert f.latency[-1].label == "no budget" and f.latency[-1].chosen == "b-cheap"
    assert f.latency[0].chosen == "a-fast"
    assert any(p.breakpoint for p in f.latency)
    caps = [p.cost for p in f.capability if p.feasible]
    assert caps == sorted(caps)  # higher floors never cost less


def test_a_frontier_is_the_same_without_pruning():
    inputs = two_vendors()
    for target in ("agent", None):
        pruned, full = frontier(inputs, target, points=8), frontier(inputs, target, points=8, prune=False)
        assert pruned.latency == full.latency and pruned.capability == full.capability
        assert pruned.to_csv() == full.to_csv()


def test_frontier_of_an_unknown_workload_is_an_input_error():
    with pytest.raises(InputError, match="no workload 'nope'; expected one of: chat, agent"):
        frontier(two_vendors(), "nope")


def test_frontier_cli_writes_html_and_csv(tmp_path):
    result = runner.invoke(
        app, ["frontier", str(SUPPORT), "--workload", "ticket-triage", "--points", "8", "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    rows = (tmp_path / "support.ticket-triage.frontier.csv").read_text().splitlines()
    assert rows[0].startswith("sweep,workload,value") and len(rows) == 1 + (8 + 1) * 2  # and today's
    portfolio = runner.invoke(app, ["frontier", str(SUPPORT), "--points", "6", "--out", str(tmp_path)])
    assert portfolio.exit_code == 0, portfolio.output
    assert (tmp_path / "support.frontier.html").exists()
    assert runner.invoke(app, ["frontier", str(SUPPORT), "--workload", "nope"]).exit_code == 2


@settings(
    max_examples=examples(60), derandomize=not EXPLORE, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(portfolios(), st.booleans())
def test_frontier_pruning_keeps_every_point(portfolio, one_workload):
    """Sweep-safe pruning: every frontier point has the same optimum with and without it."""
    ws, cat = portfolio
    inputs = make_inputs(ws, with_fallback(cat))
    target = ws["workloads"][0]["id"] if one_workload else None
    pruned = frontier(inputs, target, points=8)
    full = frontier(inputs, target, points=8, prune=False)
    for a, b in zip(pruned.latency + pruned.capability, full.latency + full.capability):
        assert a.feasible == b.feasible, (a, b)
        if a.feasible:
            assert a.cost == pytest.approx(b.cost, rel=1e-6, abs=1e-6), (a, b)


@settings(
    max_examples=examples(40), derandomize=not EXPLORE, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(sampled_portfolios(), st.booleans())
def test_with_sample_tasks_every_frontier_point_is_the_plan_of_its_inputs(portfolio, one_workload):
    """With sample tasks and percentiles: pruning keeps every point, and each portfolio point costs what
    the scaled inputs' plan costs (the shares of sample tasks within the scaled budgets move with it)."""
    ws, cat, samples = portfolio
    inputs = make_inputs(ws, with_fallback(cat), samples)
    target = ws["workloads"][0]["id"] if one_workload else None
    pruned = frontier(inputs, target, points=5)
    full = frontier(inputs, target, points=5, prune=False)
    for a, b in zip(pruned.latency + pruned.capability, full.latency + full.capability):
        assert a.feasible == b.feasible, (a, b)
        if a.feasible:
            assert a.cost == pytest.approx(b.cost, rel=1e-6, abs=1e-6), (a, b)
    if one_workload:
        return
    for p in pruned.latency:
        scaled = _scaled(inputs, no_budgets=True) if p.value is None else _scaled(inputs, factor=p.value)
        plan = solve_inputs(scaled, "highs", review=False, resilience=False)
        assert p.feasible == (plan.status == "optimal"), (p.label, plan.status)
        if p.feasible:
            assert p.cost == pytest.approx(plan.total_cost, rel=1e-6, abs=1e-9), p.label


def _scaled(inputs, factor=None, shift=None, no_budgets=False):
    """The inputs with every budget scaled (or none) or every floor shifted, as a separate solve sees them."""
    data = inputs.workloads.model_dump(mode="json")
    thresholds = inputs.workloads.all_thresholds
    for wl in data["workloads"]:
        lat = wl["latency"]
        budget = lat.get("budget_s") or (thresholds.get(lat["threshold"]) if lat.get("threshold") else None)
        if no_budgets and budget:  # (a workload without a budget, background, keeps its class: it may batch)
            wl["latency"] = {"streaming": lat["streaming"]}
        elif factor is not None and budget:
            wl["latency"] = {**lat, "threshold": None, "budget_s": budget * factor}
        cap = wl["capability"]
        for key in ("min", "mean_min"):  # a floor stated as a model's score, as a number
            if isinstance(cap.get(key), dict):
                cap[key] = floor_value(RelativeFloor(**cap[key]), cap.get("metric", "overall"), inputs.catalog)
        if shift is not None:
            cap["min"] = None if cap.get("min") is None else cap["min"] + shift
            cap["mean_min"] = None if cap.get("mean_min") is None else cap["mean_min"] + shift
            if max(cap["min"] or 0, cap["mean_min"] or 0) > 100:
                return None  # above every score: no plan
    ws = validate(WorkloadSet, data, "w.yaml")
    return dataclasses.replace(inputs, workloads=ws)


@pytest.mark.parametrize("name", ["support", "coding-agent"])
def test_every_portfolio_frontier_point_costs_what_a_separate_solve_costs(name):
    """The portfolio sweeps keep every rule: shares within budget and mean floors move with the budgets
    and floors, so each point (the x1 and +0 points included) is the plan of the scaled inputs."""
    inputs = load_inputs(ROOT / "workloads" / f"{name}.yaml")
    result = frontier(inputs, None, points=8)  # (budgets x0.1 to x10 in 7 steps: x1 among them)
    checked = 0
    for p in result.latency + result.capability:
        if p.sweep == "latency":
            scaled = _scaled(inputs, no_budgets=True) if p.value is None else _scaled(inputs, factor=p.value)
        else:
            scaled = _scaled(inputs, shift=p.value)
        if scaled is None:
            assert not p.feasible, p.label
            continue
        plan = solve_inputs(scaled, "highs", review=False, resilience=False)
        assert p.feasible == (plan.status == "optimal"), (p.label, plan.status)
        if p.feasible:
            assert p.cost == pytest.approx(plan.total_cost, rel=1e-6), p.label
            checked += 1
    assert checked >= 6
    one = [p for p in result.latency if p.value is not None and abs(p.value - 1) < 1e-9]
    assert one and one[0].cost == pytest.approx(solve_inputs(inputs, "highs").total_cost, rel=1e-6)


@settings(
    max_examples=examples(40), derandomize=not EXPLORE, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(portfolios())
def test_every_random_portfolio_frontier_point_is_the_plan_of_its_scaled_inputs(portfolio):
    """Random portfolios (shares within budget, mean floors, capacities, vendor caps): each portfolio
    frontier point, solved by sifting with its moving rows, costs what the scaled inputs' plan costs."""
    ws, cat = portfolio
    inputs = make_inputs(ws, with_fallback(cat))
    result = frontier(inputs, None, points=4)
    for p in result.latency + result.capability:
        if p.sweep == "latency":
            scaled = _scaled(inputs, no_budgets=True) if p.value is None else _scaled(inputs, factor=p.value)
        else:
            scaled = _scaled(inputs, shift=p.value)
        if scaled is None:
            assert not p.feasible
            continue
        plan = solve_inputs(scaled, "highs", review=False, resilience=False)
        assert p.feasible == (plan.status == "optimal"), (p.label, plan.status)
        if p.feasible:
            assert p.cost == pytest.approx(plan.total_cost, rel=1e-6, abs=1e-9), p.label


_solved: dict = {}


def _solve_total(path, tmp_path) -> float:
    """`planner solve`'s total cost for the file (once per file)."""
    if path not in _solved:
        result = runner.invoke(app, ["solve", str(path), "--format", "json", "--out", str(tmp_path / "solve")])
        assert result.exit_code == 0, result.output
        _solved[path] = json.loads(result.stdout)["total_cost"]
    return _solved[path]


@pytest.mark.parametrize("path", [REAL, SUPPORT], ids=["real-support", "support"])
@pytest.mark.parametrize("workload", [None, "ticket-triage"])
def test_today_costs_what_solve_costs(path, workload, tmp_path):
    """Each sweep has today's point, the plan of the unchanged files: its cost is `planner solve`'s to
    the cent, in the Frontier and in the CSV (7 points: x1 is not on the portfolio's grid)."""
    total = _solve_total(path, tmp_path)
    args = ["frontier", str(path), "--points", "7", "--out", str(tmp_path)]
    result = runner.invoke(app, args + (["--workload", workload] if workload else []))
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(next(tmp_path.glob("*.frontier.csv")).open()))
    today = [r for r in rows if r["today"] == "True"]
    assert [r["sweep"] for r in today] == ["latency", "capability"]
    assert all(r["feasible"] == "True" and r["cost"] == f"{total:.2f}" for r in today), today
    f = frontier(load_inputs(path), workload, points=7)
    for sweep in ("latency", "capability"):
        p = f.today(sweep)
        assert p.today and p.feasible and f"{p.cost:.2f}" == f"{total:.2f}"
        assert not any(q.today for q in getattr(f, sweep))  # the curve is the swept points alone
        values = [q.value for q in f.rows(sweep) if q.value is not None]
        assert values == sorted(values) and f.rows(sweep).count(p) == 1
    if workload:  # ticket-triage: 90% of its tasks within 10 s, floor its own
        assert f.today_latency.value == 10 and f.today_latency.label == "10 s, 90% within"
        assert f.today_latency.chosen and ";" not in f.today_latency.chosen
    else:
        assert (f.today_latency.label, f.today_latency.value) == ("x1", 1.0)
        assert (f.today_capability.label, f.today_capability.value) == ("+0 points", 0.0)


def test_today_on_the_grid_is_one_row_in_tables_and_two_in_the_csv():
    """x1 and +0 are always on the portfolio grids, so the swept point is today's plan: the tables
    show it once, as today's; the CSV keeps the swept row (the curve) and today's row."""
    f = frontier(load_inputs(REAL), None, points=8)
    same = f.on_curve("latency")
    assert same is not None and same.value == pytest.approx(1.0)
    table = f.table("latency")
    assert len(table) == len(f.latency) and sum(p.today for p in table) == 1
    assert [p.value for p in f.rows("latency")].count(same.value) == 2
    zero = f.on_curve("capability")  # +0 is added to the even grid from -20 to 20
    assert zero is not None and zero.value == 0.0
    assert len(f.table("capability")) == len(f.capability) and sum(p.today for p in f.table("capability")) == 1


def _digits(cell: str) -> int:
    return len(cell.lstrip("+-").replace(".", "").lstrip("0").rstrip("0")) if cell else 0


@pytest.mark.parametrize(
    "args",
    [[str(REAL)], [str(REAL), "--workload", "ticket-triage"], [str(SUPPORT), "--workload", "voice-agent"]],
    ids=["portfolio", "ticket-triage", "voice-agent"],
)
def test_frontier_csv_is_plain_numbers(args, tmp_path):
    """Money to the cent, every other figure to six significant digits at most, never in e-notation;
    the columns of v1.1 first, then `today`."""
    result = runner.invoke(app, ["frontier", *args, "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    text = next(tmp_path.glob("*.frontier.csv")).read_text()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == ["sweep", "workload", "value", "label", "feasible", "cost", "chosen", "breakpoint", "today"]
    for r in rows:
        assert re.fullmatch(r"-?\d+(\.\d+)?|", r["value"]) and _digits(r["value"]) <= 6, r
        assert re.fullmatch(r"\d+\.\d\d|", r["cost"]), r
        assert (r["cost"] == "") == (r["feasible"] == "False")
        assert not re.search(r"\de[+-]?\d", r["label"]), r


def test_frontier_csv_writes_tiny_and_huge_figures_out():
    f = Frontier("n", "w", "USD", "month")
    f.latency = [FrontierPoint("latency", 1e-6, "tiny", True, 1234567.891, "a")]
    f.capability = [FrontierPoint("capability", 1234567.891, "huge", True, 3e-7, "a")]
    rows = list(csv.DictReader(io.StringIO(f.to_csv())))
    assert [(r["value"], r["cost"]) for r in rows] == [("0.000001", "1234567.89"), ("1234570", "0.00")]


def test_today_without_a_plan_says_infeasible(tmp_path):
    """Today's rules with no plan (a 1 ms budget): today's point is infeasible, with no cost and no
    routing, in the Frontier, the CSV and the terminal; the sweep still shows the looser budgets."""
    inputs = two_vendors()
    data = inputs.workloads.model_dump(mode="json")
    data["workloads"][0]["latency"] = {"budget_s": 0.001}
    inputs = dataclasses.replace(inputs, workloads=validate(WorkloadSet, data, "w.yaml"))
    for target in ("chat", None):
        f = frontier(inputs, target, points=6)
        for sweep in ("latency", "capability"):
            p = f.today(sweep)
            assert p.today and not p.feasible and p.cost is None and p.chosen == "-"
        assert any(p.feasible for p in f.latency)
        today_rows = [r for r in csv.DictReader(io.StringIO(f.to_csv())) if r["today"] == "True"]
        assert [(r["feasible"], r["cost"], r["chosen"]) for r in today_rows] == [("False", "", "")] * 2
    assert f.today_latency.label == "x1"


def _table_rows(output: str) -> dict[str, str]:
    """The terminal table's rows by their first cell."""
    return {line.split("│")[1].strip(): line for line in output.splitlines() if line.startswith("│")}


@pytest.mark.parametrize("points", ["30", "31"])  # x1 on the grid, and not
def test_terminal_table_shows_where_plans_start_and_today(points, tmp_path, monkeypatch):
    """At 100 columns: the last budget without a plan, the first with one, today's (bold, priced
    against itself by no one) and each breakpoint, priced against today's plan; no line over 100."""
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["frontier", str(REAL), "--points", points, "--out", "o"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert lines[0].strip() == "real-support: cost of speed (all budgets scaled)"  # on one line
    rows = _table_rows(result.stdout)
    assert "$32.5k" in rows["x1 (today)"]
    labels = list(rows)
    today = labels.index("x1 (today)")
    assert "infeasible" in rows[labels[0]] and labels[0].startswith("x0.")  # where plans start
    assert all("infeasible" not in rows[k] for k in labels[1:])
    if points == "31":  # the grid's first feasible point (x0.924), then today's
        assert today == 2 and labels[1].startswith("x0.9") and rows[labels[1]].count("$32.5k") == 1
        assert "$0" in rows[labels[1]]
    else:  # x1 is on the grid: the grid's x1 and today's are one row, after the first feasible point (x0.848)
        assert today == 2 and labels[1] == "x0.848" and rows[labels[1]].count("$32.5k") == 1
        assert not any(k.startswith("x1 ") and k != "x1 (today)" for k in labels)
        assert "-$2,464" in rows["x1.39"] and "routing changes" in rows["x1.39"]
    assert labels[-1] == "no budgets"


def test_terminal_table_for_one_workload_shows_its_own_rules(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = ["frontier", str(REAL), "--workload", "ticket-triage", "--out", "o"]
    result = runner.invoke(app, args, env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    assert max(len(line) for line in result.stdout.splitlines()) <= 100
    rows = _table_rows(result.stdout)
    labels = list(rows)
    assert labels[:2] == ["7.886 s", "10 s, 90% within (today)"]  # the first feasible point, then today's
    assert "$32.5k" in rows[labels[1]] and "glm-4.7@cerebras" in rows[labels[1]]
    assert "+$2,423" in rows["7.886 s"] and labels[-1] == "no budget"


def test_frontier_report_marks_today(tmp_path):
    """Both charts draw today's plan as its own series and label a log axis at round values; the
    tables mark today's row; the notes say where plans stop."""
    html = render_frontier_report(frontier(load_inputs(REAL), None, points=8))
    svgs = re.findall(r"<svg.*?</svg>", html, re.S)
    assert len(svgs) == 2 and all("today: $32.5k" in svg for svg in svgs)
    ticks = re.findall(r'<text[^>]*class="[^"]*"[^>]*>(x[0-9.]+)</text>', svgs[0])
    assert ticks == ["x1", "x2", "x5", "x10"], ticks
    assert html.count('<tr class="today">') == 2 and html.count('class="badge today">today<') >= 2
    # real-support on 8 points: x0.464 has none; the limit lies between, which the sweep does not pin down
    assert (
        "No plan at the swept budgets up to x0.464; the first swept budget with one is x1 (the limit lies between)"
        in html
    )
    assert "x0.1 to x0.464: no plan at any of these 3 points" in html  # a run without a plan is one row
    one = render_frontier_report(frontier(load_inputs(REAL), "ticket-triage", points=8))
    assert "10 s, 90% within" in one and all("today: $32.5k" in svg for svg in re.findall(r"<svg.*?</svg>", one, re.S))


def test_looser_budgets_that_cost_more_than_today_say_why():
    """ticket-triage needs 90% of its tasks within 10 s today; the sweep asks every task within its
    budget, so budgets a little looser than 10 s cost more than today. The note names them and the
    reason, and a re-solve at one of them with today's share rule costs no more than today."""
    inputs = load_inputs(ROOT / "workloads" / "support.yaml")
    f = frontier(inputs, "ticket-triage", points=30)
    today = f.today_latency
    dearer = [p for p in f.latency if p.feasible and p.value and p.value >= today.value and p.cost > today.cost + 0.005]
    assert dearer, "the shipped example shows the case"
    note = f.looser_but_dearer()
    assert note.startswith(f"budgets of {dearer[0].label} to {dearer[-1].label} are looser than today's yet cost more")
    assert note.endswith("today's rule asks 90% of tasks within 10 s")
    # the reason holds: the same looser budget with today's 90% rule costs at most today's plan
    data = inputs.workloads.model_dump(mode="json")
    wl = next(w for w in data["workloads"] if w["id"] == "ticket-triage")
    wl["latency"] = {"budget_s": dearer[0].value, "within_budget_share": 0.9}
    looser = dataclasses.replace(inputs, workloads=validate(WorkloadSet, data, "w.yaml"))
    looser = solve_inputs(looser, review=False, resilience=False)
    assert looser.total_cost <= today.cost + 0.005 < dearer[0].cost
    assert f"Note: {note}." in render_frontier_report(f).replace("&#39;", "'")
    # the portfolio sweep moves shares with the budgets: no such note
    assert frontier(inputs, points=8).looser_but_dearer() is None
