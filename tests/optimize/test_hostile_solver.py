"""Issue 25, the solver's limits: --time-limit bounds the whole command (every re-solve of the review
shares its clock, and a review cut short says so), CBC with max_options and commitments, and
reservation terms outside what the solver's tolerances carry."""

from __future__ import annotations

import json
import time

import pytest
from conftest import write_files
from typer.testing import CliRunner

import planner.pipeline.solve
import planner.review.insight
from planner.cli.app import app
from planner.core.timing import OutOfTime, deadline, no_deadline, run_limit
from planner.model.load import load_inputs
from planner.optimize.solver import solve_lp
from planner.pipeline.solve import solve_inputs

runner = CliRunner()

OFFERS = [
    {
        "id": "a",
        "model": "m-a",
        "vendor": "va",
        "capability": 80,
        "price": {"input": 2.0, "output": 8.0},
        "speed": {"output_tps": 50, "ttft_s": 0.5},
    },
    {
        "id": "b",
        "model": "m-b",
        "vendor": "vb",
        "capability": 80,
        "price": {"input": 3.0, "output": 9.0},
        "speed": {"output_tps": 80, "ttft_s": 0.3},
    },
]
TOK = {"input": 1000, "output": 100}


def write(tmp_path, commitments, workloads, policy=None):
    return write_files(tmp_path, OFFERS, workloads, commitments, policy)


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


PTU = [{"id": "p", "vendor": "va", "unit": {"fee": 300, "tokens_per_minute": 1000}, "max_units": 3}]


def test_cbc_solves_max_options_with_commitments_as_highs_does(tmp_path):
    """PulpModel.shares left the commitment columns out of the values the max_options binaries are
    read from: an exit 1 ('operands could not be broadcast'). Now both solvers give one optimum."""
    path = write(
        tmp_path,
        PTU,
        [
            {"id": "x", "tasks": 100_000, "tokens": TOK, "max_options": 1},
            {"id": "y", "tasks": 1000, "tokens": TOK, "max_options": 2, "latency": {"budget_s": 2.4}},
        ],
    )
    inputs = load_inputs(path)
    cbc, highs = solve_inputs(inputs, "cbc"), solve_inputs(inputs, "highs")
    assert cbc.status == highs.status == "optimal"
    assert cbc.total_cost == pytest.approx(highs.total_cost, rel=1e-6)
    assert [a.option for w in cbc.workloads for a in w.allocations] == ["a", "b"]
    result = run("solve", path, "--solver", "cbc", "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    "unit, max_units, words",
    [
        ({"fee": 0.0001, "tokens_per_minute": 1e-6}, 1000, "tokens_per_minute"),
        ({"fee": 1, "tokens_per_minute": 1000}, 1_000_000, "max_units"),
    ],
)
def test_reservation_terms_outside_the_solvers_tolerances_are_refused(tmp_path, unit, max_units, words):
    path = write(
        tmp_path,
        [{"id": "p", "vendor": "va", "unit": unit, "max_units": max_units}],
        [{"id": "x", "tasks": 1, "tokens": TOK}],
    )
    result = run("solve", path, "--out", tmp_path / "out")
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1 and words in lines[0], result.output
    assert not (tmp_path / "out").exists()


def test_a_solve_after_the_deadline_is_out_of_time_and_one_before_it_is_limited_to_what_is_left():
    with deadline(0.5):
        limit, cut = run_limit(10.0)
        assert cut and 0 < limit <= 0.5
        assert run_limit(0.1) == (0.1, False)  # its own limit is sooner
        with no_deadline():
            assert run_limit(None) == (None, False)
        with deadline(5):  # nested: the sooner end holds
            assert run_limit(None)[0] <= 0.5
    with deadline(0.01):
        time.sleep(0.02)
        with pytest.raises(OutOfTime):
            run_limit(None)
    assert run_limit(None) == (None, False)


@pytest.fixture
def tiny_lp(tmp_path):
    from planner.optimize.lp import build_problem
    from planner.optimize.pairs import build_pairs
    from planner.optimize.prune import candidates

    inputs = load_inputs(write(tmp_path, PTU, [{"id": "x", "tasks": 1000, "tokens": TOK}]))
    pairs = build_pairs(inputs.workloads, inputs.catalog)
    import numpy as np

    in_lp = np.flatnonzero(pairs.eligible_count > 0)
    return build_problem(
        inputs.workloads, inputs.catalog, pairs, in_lp, candidates(inputs.workloads, inputs.catalog, pairs)
    )


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_every_backend_run_shares_the_deadline(tiny_lp, solver):
    assert solve_lp(tiny_lp, solver).ok
    with deadline(0.001):
        time.sleep(0.01)
        with pytest.raises(OutOfTime):
            solve_lp(tiny_lp, solver)


def _slow(monkeypatch, module, name, seconds):
    real = getattr(module, name)

    def slow(*args, **kwargs):
        time.sleep(seconds)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, slow)


def test_a_review_cut_short_by_the_time_limit_says_so_and_the_command_stays_within_it(tmp_path, monkeypatch):
    """The review's re-solves (here the outage table, slowed past the limit) share --time-limit: the
    plan is written, at its cost, with the parts not computed named in its assumptions."""
    path = write(tmp_path, PTU, [{"id": "x", "tasks": 100_000, "tokens": TOK, "max_options": 1}])
    _slow(monkeypatch, planner.review.insight, "resilience", 1.5)
    full = solve_inputs(load_inputs(path))
    started = time.monotonic()
    result = run("solve", path, "--time-limit", 1, "--out", tmp_path / "out")
    took = time.monotonic() - started
    assert result.exit_code == 0, result.output
    plan = json.loads((tmp_path / "out" / "w.plan.json").read_text())
    assert plan["total_cost"] == pytest.approx(full.total_cost)
    assert plan["resilience"] is None or plan["resilience"] == []
    (cut,) = [a for a in plan["assumptions"] if a.startswith("the time limit (1 s) was reached during the review")]
    assert "the outage table" in cut and "not computed" in cut
    assert took < 1.5 + 1.0, took  # the slowed stage's sleep, then no solve


def test_an_infeasible_plan_whose_relaxation_outlasts_the_time_limit_is_one_line(tmp_path, monkeypatch):
    path = write(tmp_path, PTU, [{"id": "x", "tasks": 100_000, "tokens": TOK, "max_options": 1}], {"budget": 1})
    _slow(monkeypatch, planner.pipeline.solve, "relax_lp", 0.3)
    result = run("solve", path, "--time-limit", 0.2, "--out", tmp_path / "out")
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(lines) == 1, result.output
    assert lines[0].startswith("--time-limit: 0.2 s: no plan meets every rule") and "allow more" in lines[0]
    assert not (tmp_path / "out").exists()
    assert run("solve", path, "--out", tmp_path / "out").exit_code == 3  # without the limit: the diagnosis
