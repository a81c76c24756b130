"""Cost frontiers (planner.frontier): the minimum cost as a latency budget or a capability floor sweeps,
with and without sweep-safe pruning, and `planner frontier`."""

import dataclasses

import pytest
from conftest import ROOT, make_inputs, two_vendors
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import EXPLORE, portfolios, with_fallback
from typer.testing import CliRunner

from planner.cli import app
from planner.errors import InputError
from planner.frontier import frontier
from planner.load import load_inputs, validate
from planner.schema import RelativeFloor, WorkloadSet, floor_value
from planner.solve import solve_inputs

runner = CliRunner()
SUPPORT = ROOT / "workloads" / "support.yaml"


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
    assert rows[0].startswith("sweep,workload,value") and len(rows) == 1 + 8 + 8
    portfolio = runner.invoke(app, ["frontier", str(SUPPORT), "--points", "6", "--out", str(tmp_path)])
    assert portfolio.exit_code == 0, portfolio.output
    assert (tmp_path / "support.frontier.html").exists()
    assert runner.invoke(app, ["frontier", str(SUPPORT), "--workload", "nope"]).exit_code == 2


@settings(
    max_examples=EXPLORE or 60, derandomize=not EXPLORE, deadline=None, suppress_health_check=[HealthCheck.too_slow]
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


def _scaled(inputs, factor=None, shift=None, no_budgets=False):
    """The inputs with every budget scaled (or none) or every floor shifted, as a separate solve sees them."""
    data = inputs.workloads.model_dump(mode="json")
    thresholds = inputs.workloads.all_thresholds
    for wl in data["workloads"]:
        lat = wl["latency"]
        budget = lat.get("budget_s") or (thresholds.get(lat["threshold"]) if lat.get("threshold") else None)
        if no_budgets:
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
    max_examples=EXPLORE or 40, derandomize=not EXPLORE, deadline=None, suppress_health_check=[HealthCheck.too_slow]
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
