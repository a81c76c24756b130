"""A first plan for an integer program with switches (solve --from), handed to the integer search as its
starting incumbent (a backend that can take one: MIP_START).

The integer search's time goes into proving its bound (the root's cut rounds) and into heuristics that look
for better plans; with a plan within the gap in hand from the start it skips the heuristics
(benchmarks/RESULTS.md, issue 29). The plan comes from a smaller integer program: the LP relaxation is
solved, and only the workloads it moves and the NEAREST others nearest to moving (the least reduced cost of
the switch and a new route together) may switch; every other workload keeps its routes. That program is a
restriction of the whole one, so its plan is feasible for it; the whole program is then solved as before,
nothing in it fixed, so the plan returned is optimal to the same gap whatever the start was.
"""

from __future__ import annotations

import time

import numpy as np

from planner.core.timing import log
from planner.optimize.backends import MIP_START, can, make_model
from planner.optimize.lp import LinearProgram

MOVING = 1e-9  # a switch above this in the relaxation is taken as moving
NEAREST = 50  # workloads nearest to moving set free beside those the relaxation moves
STARTED_FROM = 100_000  # share columns from which the search starts from a first plan (below, it does not pay:
# benchmarks/RESULTS.md, "Issue 29: the commitments MIP")


def first_plan(
    lp: LinearProgram, solver: str, lower: np.ndarray, upper: np.ndarray, time_limit: float | None = None
) -> np.ndarray | None:
    """A feasible integer plan of lp within the column bounds (every column: shares, then extras), from the
    program that lets only the workloads nearest to moving switch; None when there are no switches, the
    backend cannot start from a plan, or no such plan was found (the whole search then runs unstarted)."""
    switches = switch_routes(lp)
    if not switches or not can(solver, MIP_START):
        return None
    started = time.perf_counter()
    relaxed = make_model(solver, lp, integer=False)
    relaxed.bound_shares(lower, upper)
    relaxed.set_costs(lp.cost)
    if not relaxed.run():
        return None
    duals = relaxed.duals()
    if duals is None:
        return None
    x = np.r_[relaxed.shares(), relaxed.extras()]
    kept = _staying(lp, switches, x, _reduced_costs(lp, duals[0]))
    if not len(kept):  # every workload may move: the smaller program would be the whole one
        return None
    hi = upper.copy()
    hi[kept] = 0.0
    model = make_model(solver, lp)
    model.bound_shares(lower, hi)
    model.set_costs(lp.cost)
    if time_limit is not None:
        model.limit_time(max(time_limit - (time.perf_counter() - started), 1e-3))
    found = model.run()  # (a restriction can have no plan: a budget that rounded-up fees break; or no time)
    log.debug(
        "solve: a first plan from %d of %d workloads free to switch: %s, %.2f s",
        len(switches) - len(kept),
        len(switches),
        model.status,
        time.perf_counter() - started,
    )
    return np.r_[model.shares(), model.extras()] if found else None


def switch_routes(lp: LinearProgram) -> dict[int, np.ndarray]:
    """Each switch column and the new routes its row bounds (switch:<workload>: share on them <= switch)."""
    families = lp.families
    rows = [i for i, f in enumerate(families) if f == "switch"]
    if not rows:
        return {}
    row_of, cols, coefs = lp.matrix
    out = {}
    for i in rows:
        a, b = np.searchsorted(row_of, [i, i + 1])  # (entries are in row order)
        mine = cols[a:b]
        out[int(mine[mine >= lp.n][0])] = mine[mine < lp.n]
    return out


def _reduced_costs(lp: LinearProgram, pi: dict[int, float]) -> np.ndarray:
    """cost - A'y of every column (shares and extras) at the relaxation's duals."""
    y = np.zeros(len(lp.rows))
    for i, v in pi.items():
        y[i] = v
    row_of, cols, coefs = lp.matrix
    return lp.cost - np.bincount(cols, coefs * y[row_of], minlength=len(lp.cost))


def _staying(lp: LinearProgram, switches: dict[int, np.ndarray], x: np.ndarray, dj: np.ndarray) -> np.ndarray:
    """The switch columns held at 0 in the smaller program: all but those the relaxation moves and the
    NEAREST others nearest to moving (the switch's reduced cost plus its cheapest new route's: what moving
    adds to the relaxation's cost, to a first order)."""
    cols = np.array(sorted(switches), dtype=int)
    moving = x[cols] > MOVING
    near = np.array([dj[m] + (dj[switches[m]].min() if len(switches[m]) else np.inf) for m in cols.tolist()])
    rest = np.flatnonzero(~moving)
    free = rest[np.argsort(near[rest], kind="stable")[:NEAREST]]
    stay = ~moving
    stay[free] = False
    return cols[stay]
