"""Cost frontiers (planner.frontier): the minimum cost as a latency budget or a capability floor sweeps,
with and without sweep-safe pruning, and `planner frontier`."""

import pytest
from conftest import ROOT, make_inputs, two_vendors
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import EXPLORE, portfolios, with_fallback
from typer.testing import CliRunner

from planner.cli import app
from planner.errors import InputError
from planner.frontier import frontier

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
