"""The first plan an integer search with switches starts from (planner/optimize/incumbent.py): a plan of the
smaller program where only the workloads nearest to moving may switch. It is feasible for the whole
program, and the search started from it ends at the same optimum as the search without it (to the gap),
on random portfolios checked by brute force (tests/reference_contracts.py) and against the unstarted
solve."""

from __future__ import annotations

import contextlib
import json

import numpy as np
import pytest
from conftest import make_inputs
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from strategies import EXPLORE, examples
from test_contracts_property import agrees, perturbed, portfolios, routes_of, solve

from planner.cli.commands import with_previous
from planner.optimize import incumbent, solver
from planner.optimize.lp import build_problem, check_rows, switching_of
from planner.optimize.pairs import build_pairs
from planner.optimize.prune import candidates
from planner.pipeline.solve import protected


@contextlib.contextmanager
def nearest(k: int):
    """The smaller program frees only the relaxation's movers and the k nearest others (0: the tightest
    restriction, so that small portfolios exercise it), at any size of program."""
    saved = incumbent.NEAREST, incumbent.STARTED_FROM
    incumbent.NEAREST, incumbent.STARTED_FROM = k, 0  # (any size: small portfolios start from a first plan too)
    try:
        yield
    finally:
        incumbent.NEAREST, incumbent.STARTED_FROM = saved


@contextlib.contextmanager
def unstarted():
    """The integer search without a first plan (as before issue 29)."""
    saved = incumbent.first_plan
    incumbent.first_plan = lambda *a, **k: None
    try:
        yield
    finally:
        incumbent.first_plan = saved


def contract_lp(ws: dict, cat: dict, previous_file, switch_cost):
    """The LP `planner solve --from` builds (pruned, old routes kept)."""
    inputs = with_previous(make_inputs(ws, cat), previous_file, switch_cost)
    pairs = build_pairs(inputs.workloads, inputs.catalog)
    switching = switching_of(inputs, pairs)
    cand = candidates(inputs.workloads, inputs.catalog, pairs) | (pairs.eligible & protected(pairs, switching))
    in_lp = np.flatnonzero(pairs.eligible_count > 0)
    return build_problem(inputs.workloads, inputs.catalog, pairs, in_lp, cand, switching)


def second_quarter(tmp_path_factory, portfolio, data):
    """A portfolio solved, then perturbed and to be solved --from that plan with random switch costs; None
    when the first has no optimal plan."""
    ws, cat = portfolio
    first = solve(ws, cat, "highs")
    if first["status"] != "optimal":
        return None
    path = tmp_path_factory.mktemp("from") / "first.plan.json"
    path.write_text(json.dumps(first))
    ws2, cat2 = perturbed(data.draw, ws, cat, first)
    switch_cost = data.draw(st.sampled_from([None, 0.0, 0.1 * first["total_cost"], 1000.0]))
    return ws2, cat2, routes_of(first), path, switch_cost


@settings(
    max_examples=examples(60), derandomize=not EXPLORE, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(portfolios(), st.data())
def test_a_started_search_matches_brute_force_and_the_unstarted_one(tmp_path_factory, portfolio, data):
    case = second_quarter(tmp_path_factory, portfolio, data)
    if case is None:
        return
    ws, cat, previous, path, switch_cost = case
    with nearest(0):
        agrees(ws, cat, "highs", previous, path, switch_cost)  # the optimum of every integer decision
        lp = contract_lp(ws, cat, path, switch_cost)
        if not lp.integer:
            return
        lo, hi = lp.bounds()
        start = incumbent.first_plan(lp, "highs", lo, hi)
        event("started" if start is not None else "not started")
        started = solver.solve_lp(lp, "highs")
    with unstarted():
        plain = solver.solve_lp(lp, "highs")
    assert started.ok == plain.ok
    if not plain.ok:
        return
    best = lp.money(*solver.settled(lp, plain))
    assert lp.money(*solver.settled(lp, started)) == pytest.approx(best, rel=1e-6, abs=1e-6)
    if start is not None:  # feasible for the whole program, and no cheaper than its optimum
        share, extra = start[: lp.n], start[lp.n :]
        assert check_rows(lp, share, extra=extra) == []
        assert lp.money(share, extra) >= best * (1 - 1e-6) - 1e-6


def test_only_the_workloads_nearest_to_moving_may_switch():
    """The relaxation's movers and the NEAREST others by reduced cost are free; the rest stay."""
    n = 4
    switches = {n + k: np.array([k]) for k in range(4)}  # switch column n + k bounds share column k
    switches[n + 4] = np.array([], dtype=int)  # a workload with no new route to take
    x = np.zeros(n + 5)
    x[n + 2] = 0.5  # the relaxation moves the third workload
    dj = np.r_[[0.4, 0.1, 0.0, 0.3], [0.0, 0.05, 0.0, 0.0, 0.2]]  # nearness: 0.4, 0.15, (moving), 0.3, inf
    lp = None  # (not read)
    with nearest(1):
        assert incumbent._staying(lp, switches, x, dj).tolist() == [n + 0, n + 3, n + 4]
    with nearest(0):
        assert incumbent._staying(lp, switches, x, dj).tolist() == [n + 0, n + 1, n + 3, n + 4]
