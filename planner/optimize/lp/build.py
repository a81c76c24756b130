"""build_problem: the LP over some workloads and candidate pairs, its columns, rows and objective.

Variables are share[w, o] for the candidate (eligible, not dominated) pairs, then the extra columns of
the commitments and switches; each constraint family returns rows and build_problem walks the registry.

Scaling: money is divided by `scale` (a lower bound on the optimal cost), capacity rows by
their limit and capability rows by 100, so every row and the objective are of order one.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from planner.core.arrays import dot, per_workload, workload_starts
from planner.model.schema import WorkloadSet
from planner.optimize.lp.contracts import Switching, extras_of
from planner.optimize.lp.families import CONSTRAINT_FAMILIES, Context
from planner.optimize.lp.problem import LinearProgram, Rows
from planner.optimize.pairs import Pairs, tie_latency

TIE_BREAK = (
    1e-7  # latency term in `objective` (elastic solves, frontier re-solves); plans break ties exactly (solver.py)
)


def build_problem(
    ws: WorkloadSet,
    catalog,
    pairs: Pairs,
    workloads: np.ndarray,
    candidates: np.ndarray | None = None,
    switching: Switching | None = None,
) -> LinearProgram:
    """The LP over the given workloads; candidates (W x O bool) default to the eligible pairs.
    switching: what moving off the previous plan's routes costs (solve --from)."""
    mask = pairs.eligible if candidates is None else candidates
    sub = np.zeros(mask.shape[0], dtype=bool)
    sub[workloads] = True
    var_w, var_o = np.nonzero(mask & sub[:, None])
    wa = pairs.workloads
    spend = wa.tasks[var_w] * pairs.cost_per_task[var_w, var_o]
    scale = _scale(spend, var_w)
    workloads = np.asarray(workloads, dtype=int)
    commitments = list(getattr(catalog, "commitments", []))
    extras = extras_of(ws, pairs, commitments, switching, workloads, var_w, var_o, spend, scale)
    ctx = Context(ws, pairs, var_w, var_o, spend, scale, workloads, catalog.offerings, commitments, extras, switching)
    rows = Rows(part for family in CONSTRAINT_FAMILIES for part in family(ctx))

    objective = spend / scale + _tie_break(pairs, var_w, var_o)
    max_options = []
    for w in np.asarray(workloads, dtype=int)[wa.max_options[workloads] > 0].tolist():
        k = int(wa.max_options[w])
        cols = ctx.vars_of(w)
        if k < len(cols):
            max_options.append((w, cols, k))
    lat = tie_latency(pairs, var_w, var_o)
    tasks = wa.tasks[var_w]
    weight = tasks * lat / max(float((tasks * lat).max()), 1e-300) if len(lat) else np.zeros(0)
    lp = LinearProgram(var_w, var_o, spend, objective, scale, rows, max_options, weight, extras)
    if len(extras):
        lp.settle = _settler(ctx)
    return lp


def _settler(ctx: Context) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The extras that cleaned shares imply, the integer decisions kept: a signed contract discounts the
    whole list spend it covers (the optimum's s, exactly) and pays the shortfall under its minimum; a
    workload pays its switch when some share is on a new route; units stay as bought."""
    ex = ctx.extras
    opts = ctx.pairs.options
    covered = {
        c.id: np.flatnonzero(np.array([opts.discounted[o] == c.id for o in ctx.var_o.tolist()], dtype=bool))
        for c in ctx.commitments
        if not c.reserved
    }
    by_id = {c.id: c for c in ctx.commitments}
    new_routes = {}
    if ctx.switching is not None:
        for w in ctx.workloads.tolist():
            if ctx.switching.applies(w):
                cols = ctx.vars_of(w)
                new_routes[ctx.pairs.workloads.ids[w]] = cols[~ctx.switching.old[w, ctx.var_o[cols]]]

    def settle(share: np.ndarray, extra: np.ndarray) -> np.ndarray:
        out = np.asarray(extra, dtype=float).copy()
        out[ex.integer] = np.round(out[ex.integer])
        for k, (kind, ref) in enumerate(zip(ex.kind, ex.ref)):
            if kind == "discounted":
                c = by_id[ref]
                z = out[ex.index("signed", ref)]
                s = z * min(float(ex.upper[k]), dot(ctx.spend[covered[ref]], share[covered[ref]]) / ctx.scale)
                out[k] = s
                minimum = c.per_period(c.min_spend, ctx.ws.period) / ctx.scale
                out[ex.index("shortfall", ref)] = max(0.0, z * minimum - (1.0 - c.discount) * s)
            elif kind == "switch":
                out[k] = 1.0 if float(share[new_routes[ref]].sum()) > 0 else 0.0
        return out

    return settle


def _scale(spend: np.ndarray, var_w: np.ndarray) -> float:
    """A lower bound on the optimum: each workload on its cheapest candidate."""
    if len(spend) == 0:
        return 1.0
    bound = float(np.minimum.reduceat(spend, workload_starts(var_w)).sum())
    if bound > 0:
        return bound
    top = float(spend.max())
    return top if top > 0 else 1.0


def _tie_break(pairs: Pairs, var_w: np.ndarray, var_o: np.ndarray) -> np.ndarray:
    """A tiny cost per unit of latency, so that equal-cost plans prefer the faster option.

    Weighted so that its sum over any feasible plan is at most TIE_BREAK (the scaled cost is >= 1).
    """
    if len(var_w) == 0:
        return np.zeros(0)
    lat = tie_latency(pairs, var_w, var_o)
    tasks = pairs.workloads.tasks
    share_of_tasks = tasks[var_w] / tasks[var_w[workload_starts(var_w)]].sum()  # (var_w is sorted)
    worst = per_workload(np.maximum, lat, var_w)
    return TIE_BREAK * share_of_tasks * lat / np.where(worst > 0, worst, 1.0)
