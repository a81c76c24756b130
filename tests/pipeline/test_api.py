"""The library API (issue 26): everything a notebook or a CI job needs, imported from `planner` alone,
gives the plans the commands give."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT

import planner

SUPPORT = ROOT / "workloads" / "support.yaml"
SCENARIO = ROOT / "scenarios" / "fast-tier-half-price.yaml"


def test_the_public_names_are_the_documented_ones():
    assert planner.__all__ == sorted(planner.__all__)
    assert set(planner.__all__) == set(planner._HOMES)
    for name in planner.__all__:
        assert getattr(planner, name) is not None


def test_importing_planner_loads_nothing_heavy():
    """`planner --help` imports the package: its names load on first use."""
    code = "import sys, planner; print(any(m.startswith(('numpy', 'pydantic', 'highspy')) for m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"


def test_solve_whatif_frontier_and_compare_from_the_package(tmp_path):
    inputs = planner.load_inputs(SUPPORT)
    plan = planner.solve(inputs)
    assert isinstance(plan, planner.Plan) and plan.status == "optimal"
    # the same plan as the command writes
    from typer.testing import CliRunner

    from planner.cli import app

    assert CliRunner().invoke(app, ["solve", str(SUPPORT), "--out", str(tmp_path)]).exit_code == 0
    written = json.loads((tmp_path / "support.plan.json").read_text())
    assert written["total_cost"] == pytest.approx(plan.total_cost) and written["status"] == plan.status
    lean = planner.solve(inputs, planner.SolveOptions(solver="cbc", review=False, resilience=False))
    assert lean.total_cost == pytest.approx(plan.total_cost, rel=1e-6)
    (changed,) = planner.whatif(inputs, [SCENARIO])
    assert changed.inputs.scenario == "fast-tier-half-price" and changed.total_cost < plan.total_cost
    comparison = planner.compare_plans(plan, changed, ("today", "half price"))
    assert comparison.label_before == "today" and comparison.total_after == pytest.approx(changed.total_cost)
    sweep = planner.frontier(inputs, "ticket-triage", points=5)
    assert sweep.workload == "ticket-triage" and sweep.latency and sweep.capability
    assert planner.read_plan(tmp_path / "support.plan.json").total_cost == pytest.approx(plan.total_cost)


def test_errors_are_one_family_with_their_exit_codes(tmp_path):
    with pytest.raises(planner.InputError) as err:
        planner.load_inputs(tmp_path / "missing.yaml")
    assert isinstance(err.value, planner.PlannerError) and err.value.exit_code == 2
    assert issubclass(planner.SolverError, planner.PlannerError) and planner.SolverError.exit_code == 1
    assert issubclass(planner.NetworkError, planner.PlannerError) and planner.NetworkError.exit_code == 4
    assert issubclass(planner.ExportError, planner.InputError)
    with pytest.raises(planner.InputError) as err:
        planner.solve(planner.load_inputs(SUPPORT), planner.SolveOptions(solver="gurobi"))
    assert str(err.value).startswith("solver: unknown solver") and err.value.lines(as_flags=True)[0].startswith(
        "--solver: unknown solver"
    )


def test_the_readme_example_runs(tmp_path, monkeypatch, capsys):
    """README.md, "From Python": its code block, run as written from a folder like a checkout."""
    text = (ROOT / "README.md").read_text()
    block = text.split("## From Python", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    for name in ("workloads", "scenarios", "catalogs"):
        (tmp_path / name).symlink_to(ROOT / name)
    from typer.testing import CliRunner

    from planner.cli import app

    assert CliRunner().invoke(app, ["solve", str(SUPPORT), "--out", str(tmp_path / "reports")]).exit_code == 0
    monkeypatch.chdir(tmp_path)
    exec(compile(block, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith("optimal ") and "workloads/missing.yaml" in printed[-1] and printed[-1].endswith(" 2")
