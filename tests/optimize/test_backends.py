"""The two solvers behind one interface (planner.optimize.backends): choosing one, what a model does in each,
what needs a capability, and HiGHS's retry with presolve when its simplex stops short."""

import numpy as np
import pytest
from conftest import catalog_of, make_inputs, offering, workload, workloads_of

from planner.core.errors import InputError
from planner.optimize.backends import (
    INTEGER,
    REGISTRY,
    RESOLVE,
    WARM_START,
    Backend,
    can,
    make_model,
    needing,
    pick_solver,
    resolver,
)
from planner.optimize.cbc import PulpModel
from planner.optimize.highs import HighsModel, highs_model, run_settled
from planner.optimize.lp import build_problem
from planner.optimize.pairs import build_pairs


def cheap_and_dear():
    """One workload, two options: cheap ($0.002 a task) and dear ($0.006)."""
    inputs = make_inputs(
        workloads_of(workload("chat")),
        catalog_of(offering("cheap", price_in=1, price_out=1), offering("dear", price_in=3, price_out=3)),
    )
    pairs = build_pairs(inputs.workloads, inputs.catalog)
    return build_problem(inputs.workloads, inputs.catalog, pairs, np.array([0]))


def test_pick_solver():
    assert pick_solver() == pick_solver("auto") == "highs"  # highspy is a dependency
    assert pick_solver("cbc") == "cbc" and pick_solver("highs") == "highs"
    with pytest.raises(InputError, match="unknown solver 'gurobi'; expected one of: auto, cbc, highs"):
        pick_solver("gurobi")
    with pytest.raises(InputError, match="unknown solver 'gurobi'"):
        make_model("gurobi", cheap_and_dear())
    assert {k: b.name for k, b in REGISTRY.items()} == {"cbc": "CBC", "highs": "HiGHS"}
    # what each can do beyond a cold solve: CBC has no warm re-solve and no warm start
    assert all(can("highs", c) for c in (INTEGER, RESOLVE, WARM_START))
    assert can("cbc", INTEGER) and not can("cbc", RESOLVE) and not can("cbc", WARM_START)


def test_work_that_needs_a_capability_gets_it_from_the_registry_or_is_refused():
    """Warm re-solves (outages, frontiers) and warm starts come from the solver's registered backend; one
    without the capability is refused in one sentence naming the work, not done by another solver."""
    lp = cheap_and_dear()
    held = resolver("highs", lp, why="the outage table")
    assert held.run().ok and held.run().share.tolist() == [1.0, 0.0]
    with pytest.raises(InputError) as refused:
        resolver("cbc", lp, why="the outage table")
    assert refused.value.lines() == [
        "solver: the outage table needs re-solving one model warm, which CBC cannot do (highs can)"
    ]
    assert refused.value.lines(as_flags=True)[0].startswith("--solver: the outage table needs")
    with pytest.raises(InputError, match="a warm start, which CBC cannot do"):
        needing("cbc", WARM_START, "a what-if scenario")
    with pytest.raises(ValueError, match="capabilities and its re-solvers disagree"):
        Backend("X", REGISTRY["cbc"].model, frozenset({RESOLVE}))


def test_make_model_gives_each_backend():
    lp = cheap_and_dear()
    assert isinstance(make_model("highs", lp), HighsModel) and isinstance(make_model("cbc", lp), PulpModel)


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_a_model_prices_bounds_and_caps_alike_in_either_solver(solver):
    lp = cheap_and_dear()
    model = make_model(solver, lp)
    assert model.status == "Not solved"
    model.set_costs(lp.cost)
    assert model.run() and model.status == "Optimal"
    assert model.shares().tolist() == pytest.approx([1.0, 0.0])
    assert model.objective() == pytest.approx(1.0)  # the cost is scaled by the cheapest plan's
    pi, dj = model.duals()
    assert pi[0] == pytest.approx(1.0) and dj.tolist() == pytest.approx([0.0, 2.0])  # dear costs 3x: +2 scaled
    cap = model.add_cap(np.array([1.0, 0.0]), 0.25)  # at most a quarter on cheap
    assert model.run() and model.shares().tolist() == pytest.approx([0.25, 0.75])
    model.loosen(cap, 0.6)
    assert model.run() and model.shares().tolist() == pytest.approx([0.6, 0.4])
    model.bound_shares(np.zeros(2), np.array([0.1, 1.0]))
    assert model.run() and model.shares().tolist() == pytest.approx([0.1, 0.9])
    model.bound_shares(np.zeros(2), np.zeros(2))  # nothing may carry the workload
    assert not model.run() and model.status == "Infeasible"


def test_highs_retries_with_presolve_when_the_simplex_stops_short():
    """Without presolve, a simplex that ends neither optimal nor infeasible (here: an iteration
    limit of 0) is run again with presolve on, which settles this small LP by itself."""
    import highspy

    lp = cheap_and_dear()
    bare, _ = highs_model(lp)  # run once, as it is, the simplex stops short
    bare.setOptionValue("simplex_iteration_limit", 0)
    bare.changeColsCost(2, np.arange(2, dtype=np.int32), lp.cost)
    bare.run()
    settled = (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kInfeasible)
    assert bare.getModelStatus() not in settled
    run_settled(bare)
    assert bare.getModelStatus() == highspy.HighsModelStatus.kOptimal
    model = make_model("highs", lp)
    model.h.setOptionValue("simplex_iteration_limit", 0)
    model.set_costs(lp.cost)
    assert model.run() and model.status == "Optimal"
    assert model.shares().tolist() == pytest.approx([1.0, 0.0])  # all on the cheap option
