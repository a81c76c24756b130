"""The passes that turn an LP into an optimal routing, written once over either backend.

- the cost pass: minimum cost;
- the latency tie-break pass: among plans of that cost, the least task-weighted latency, solved on
  the optimal face (columns with a positive reduced cost fixed at zero, rows with a non-zero dual
  held at their bound), so every plan returned has the optimal cost;
- the max_options integer pass: the cheapest choice of options, then the fastest choice within
  TIE_COST_TOL of that cost, each choice settled by the LP with its binaries fixed (which gives
  the integer plan its duals and its exact cost);
- the smallest-relaxation pass (elastic): when no plan exists, minimise the weighted relaxations
  of the relaxable rows, then the cost at that relaxation.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from planner.core.arrays import dot, per_workload
from planner.core.errors import SolverError
from planner.optimize import incumbent
from planner.optimize.backends import WARM_START, make_model, needing
from planner.optimize.lp import FEAS_TOL, SHARE_EPS, TIED_DJ, LinearProgram, check_rows, clean_shares

TIE_COST_TOL = 1e-7  # costs this close (relative) are tied: the solvers' tolerances, not money
TIE_DUST = 1e-6  # a share the tie-break pass adds below this is noise, not a route


@dataclass
class SolveResult:
    ok: bool
    status: str
    share: np.ndarray
    pi: dict[int, float] = field(default_factory=dict)  # row index -> dual (solver's sign)
    dj: np.ndarray | None = None  # reduced costs of the share variables (scaled)
    seconds: float = 0.0
    slack: np.ndarray | None = None  # elastic solves: per row, scaled
    n_vars: int = 0
    n_rows: int = 0
    extra: np.ndarray = field(default_factory=lambda: np.zeros(0))  # the LP's extra columns (lp.Extras)
    gap: float | None = None  # an integer plan's relative gap: 0 proven optimal; None: an LP or not reported


def solve_lp(
    lp: LinearProgram,
    solver: str,
    *,
    lower: np.ndarray | None = None,
    upper: np.ndarray | None = None,
    time_limit: float | None = None,
) -> SolveResult:
    """The cheapest plan of lp, ties broken toward lower latency (bounds on the share columns, and on the
    extras too when given for them); with integer columns (max_options, commitments, switches), the
    integer pass. time_limit: stop the integer search after that many seconds with the best plan found
    (its gap in the result; the latency tie-break is then skipped)."""
    if not lp.integer:
        return _cost_pass(lp, solver, lower, upper)
    started = time.perf_counter()
    start = None
    if not lp.max_options and lp.n >= incumbent.STARTED_FROM:  # commitments, switches: a first plan
        half = None if time_limit is None else time_limit / 2  # the whole search keeps at least half the time
        start = incumbent.first_plan(lp, solver, *_bounds(lp, lower, upper), time_limit=half)
    spent = time.perf_counter() - started
    rest = None if time_limit is None else max(time_limit - spent, 1e-3)
    first = _cost_pass(lp, solver, lower, upper, time_limit=rest, start=start)
    first.seconds += spent
    if not first.ok:
        return first
    chosen = _fix_choice(lp, solver, first, lower, upper)
    if first.status == "Time limit":  # not proven optimal: no tie to break within the optimum
        return chosen
    if not lp.max_options:
        # units, contracts and switches: ties are broken within the decisions the cost pass chose (its
        # fixed LP's tie-break pass); a second integer search for a faster choice at the same cost would
        # double the time for plans that differ by the solver's gap
        return chosen
    rest = None if time_limit is None else time_limit - (time.perf_counter() - started)
    if rest is not None and rest <= 0:  # the time limit is spent: the cheapest choice stands
        return chosen
    cap = dot(lp.cost, lp.x(chosen.share, chosen.extra))
    second = _cost_pass(lp, solver, lower, upper, latency_cap=cap * (1 + TIE_COST_TOL) + 1e-12, time_limit=rest)
    if second.ok:
        other = _fix_choice(lp, solver, second, lower, upper)
        if _second_is_better(lp, chosen, other):  # (the size reported: the problem's)
            chosen = replace(other, n_vars=chosen.n_vars, n_rows=chosen.n_rows, gap=chosen.gap)
    return chosen


def relax_lp(lp: LinearProgram, solver: str) -> SolveResult:
    """The smallest weighted relaxation of the relaxable rows (each row's weight per unit of its
    scaled slack), then the cheapest plan at that relaxation."""
    model = make_model(solver, lp, elastic=True)
    weights = np.array([row.relax_weight for row in lp.rows if row.relax_weight is not None], dtype=float)
    model.set_costs(np.zeros(len(lp.var_w)), weights)
    if not model.run():
        raise SolverError(f"the relaxed problem could not be solved ({model.status})")
    least, values = model.objective(), model.slack_values()
    bound = model.add_cap(weights, least * (1 + 1e-7) + 1e-9, on_slacks=True)
    model.set_costs(lp.full_objective)
    ok = model.run()
    if not ok:
        # the first pass's slacks may be short of what the rows need by the feasibility tolerance, which
        # the cost pass then cannot meet (seen in an integer pass): allow that much
        model.loosen(bound, _least_relaxation(least, weights, values))
        ok = model.run()
    result = _result(lp, model, ok=ok)
    result.slack = model.slacks()
    return result


def solve_warm(lp: LinearProgram, solver: str, start: np.ndarray) -> SolveResult | None:
    """The LP (no integer columns) solved by the solver's backend from a guess of its optimal columns
    (`start`, bool per column: WARM_START, by sifting), then put through the tie-break pass on its optimal
    face. None when the guess gives no answer: the caller solves the whole LP. A backend that cannot
    start warm is refused in one sentence (backends.needing)."""
    started = time.perf_counter()
    sifted = needing(solver, WARM_START, "a solve from another plan's routing").sift(lp, start)
    if sifted is None:
        return None
    result = SolveResult(True, "Optimal", sifted.share, sifted.pi, sifted.dj, n_vars=len(lp.var_w), n_rows=len(lp.rows))
    result.share = settle_ties(lp, solver, result)
    result.seconds = time.perf_counter() - started
    return result


def _cost_pass(
    lp: LinearProgram,
    solver: str,
    lower,
    upper,
    *,
    integer: bool = True,
    latency_cap: float | None = None,
    time_limit: float | None = None,
    start: np.ndarray | None = None,
) -> SolveResult:
    """One solve for the least cost (or, under latency_cap on the scaled cost, the least latency);
    an LP's answer then goes through the tie-break pass. start: a feasible integer plan to search from."""
    model = make_model(solver, lp, integer=integer)
    if lower is not None or upper is not None:
        model.bound_shares(*_bounds(lp, lower, upper))
    if time_limit is not None:
        model.limit_time(time_limit)
    if latency_cap is not None:  # the fastest plan costing at most latency_cap
        model.add_cap(lp.cost, latency_cap)
        model.set_costs(lp.full_latency)
    else:
        model.set_costs(lp.cost)
    if start is not None:  # (after the costs: HiGHS drops a plan it was given when they change)
        model.start_from(start)
    result = _result(lp, model, ok=model.run())
    if result.ok and latency_cap is None and not model.is_mip:
        started = time.perf_counter()
        result.share = settle_ties(lp, solver, result, lower, upper)
        result.seconds += time.perf_counter() - started
    return result


def _result(lp: LinearProgram, model, *, ok: bool) -> SolveResult:
    n = len(lp.var_w)
    duals = model.duals() if ok else None
    pi, dj = duals if duals is not None else ({}, None)
    n_cols, n_rows = model.size()
    extra = model.extras() if ok else np.zeros(len(lp.extras))
    return SolveResult(
        ok,
        model.status,
        model.shares() if ok else np.zeros(n),
        pi,
        dj,
        model.seconds,
        None,
        n_cols,
        n_rows,
        extra,
        model.gap() if ok else None,
    )


def _bounds(lp: LinearProgram, lower, upper) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of every share and extra column: those given (for the shares, or for all), else as built."""
    lo, hi = lp.bounds()
    for given, out in ((lower, lo), (upper, hi)):
        if given is not None:
            given = np.asarray(given, dtype=float)
            out[: len(given)] = given
    return lo, hi


def settle_ties(lp: LinearProgram, solver: str, result: SolveResult, lower=None, upper=None) -> np.ndarray:
    """An LP optimum's shares after the latency tie-break pass, when another plan of the same cost could
    be faster (else the shares as they are)."""
    if not _faster_tie(lp, result.share, result.dj):
        return result.share
    return _tie_pass(lp, solver, result, lower, upper)


def _tie_pass(lp: LinearProgram, solver: str, result: SolveResult, lower=None, upper=None) -> np.ndarray:
    """The lexicographic tie-break on the optimal face: the least task-weighted latency among the plans
    of optimal cost, solved as a new (small) LP over the face's columns with every row of non-zero
    dual held at its bound (no cost slack is left to trade for speed)."""
    share = result.share
    keep = np.flatnonzero(_optimal_face(share, result.dj))
    sub = lp.restrict(keep, held=_binding_duals(result.pi))
    # with the binding rows held, most of the face is fixed (a workload on one option): presolve removes it
    model = make_model(solver, sub, integer=False, presolve=True)
    if lower is not None or upper is not None or len(lp.extras):
        lb, ub = _bounds(lp, lower, upper)
        main = np.r_[keep, lp.n + np.arange(len(lp.extras))]
        model.bound_shares(lb[main], ub[main])
    model.add_cap(sub.cost, _cost_cap(lp, share, result.extra))  # should the duals be inexact
    model.set_costs(sub.full_latency)
    if not model.run():
        return share
    second = np.zeros(len(share))
    second[keep] = model.shares()
    # a share the first plan did not use, too small to matter, is the cost cap's tolerance spent on speed
    second[(second < TIE_DUST) & (share <= SHARE_EPS)] = 0.0
    other = replace(result, share=second, extra=model.extras())
    return second if _second_is_better(lp, result, other) else share


def _fix_choice(lp: LinearProgram, solver: str, result: SolveResult, lower, upper) -> SolveResult:
    """An integer plan's choice of options, settled by the LP with its binaries fixed: the exact cost
    of that choice, its duals, and the latency tie-break within it."""
    lo, hi = _bounds(lp, lower, upper)
    n = lp.n
    for _, cols, _ in lp.max_options:
        hi[cols] = np.where(result.share[cols] > 0, hi[cols], 0.0)
    whole = n + np.flatnonzero(lp.extras.integer)  # units bought, contracts signed, switches: as chosen
    lo[whole] = hi[whole] = np.round(result.extra[lp.extras.integer])
    fixed = _cost_pass(lp, solver, lo, hi, integer=False)
    if not fixed.ok:  # cannot happen for a feasible choice; keep the integer answer as it is
        return result
    return SolveResult(
        True,
        result.status,
        fixed.share,
        fixed.pi,
        fixed.dj,
        result.seconds + fixed.seconds,
        None,
        result.n_vars,
        result.n_rows,
        fixed.extra,
        result.gap,
    )


def _least_relaxation(least: float, weights: np.ndarray, values: np.ndarray) -> float:
    """A looser bound on the weighted relaxation while the cost is minimised: the least one found,
    plus room for the solver's feasibility tolerance (per row), by which each relaxed row's slack may
    have come out short of what the row truly needs."""
    return least + 1e-7 * abs(least) + FEAS_TOL * float(weights[values > 0].sum()) + 1e-9


def settled(lp: LinearProgram, result: SolveResult) -> tuple[np.ndarray, np.ndarray]:
    """A result's cleaned shares and the extras they imply (lp.settle): what the plan reports."""
    share = clean_shares(lp, result.share.copy())
    extra = lp.settle(share, result.extra) if lp.settle is not None else result.extra
    return share, extra


def _second_is_better(lp: LinearProgram, first: SolveResult, second: SolveResult) -> bool:
    """Take the tie-break pass's answer only when it differs and is as cheap and as feasible as the first
    (solver tolerances can let a second pass drift on badly scaled rows)."""
    (a, ea), (b, eb) = settled(lp, first), settled(lp, second)
    if np.array_equal(a, b) and np.array_equal(ea, eb):  # the pass confirmed the first plan
        return False
    cost_a, cost_b = lp.money(a, ea), lp.money(b, eb)
    return cost_b <= cost_a + TIE_COST_TOL * abs(cost_a) + 1e-12 and len(check_rows(lp, b, extra=eb)) <= len(
        check_rows(lp, a, extra=ea)
    )


def _cost_cap(lp: LinearProgram, share: np.ndarray, extra: np.ndarray | None = None) -> float:
    """The tie-break pass's ceiling on the scaled cost: the first pass's, to 1e-9. On the optimal face
    it is implied; it guards against a solver's inexact duals (CBC writes 8 digits)."""
    best = dot(lp.cost, lp.x(share, extra))
    return best + 1e-9 * abs(best) + 1e-12


def _optimal_face(share: np.ndarray, dj: np.ndarray) -> np.ndarray:
    """The columns that can be positive in some optimal plan: by complementary slackness, an unused
    column whose reduced cost (at an optimal dual) is positive is zero in every optimal plan, so the
    tie-break pass only needs the used columns and those with a reduced cost of about zero."""
    return (share > SHARE_EPS) | (dj <= TIED_DJ)


def _binding_duals(pi: dict[int, float]) -> list[int]:
    """Rows whose dual is not zero: every optimal plan holds them at their bound (complementary slackness)."""
    return [i for i, y in sorted(pi.items()) if abs(y) > TIED_DJ]


def _faster_tie(lp: LinearProgram, share: np.ndarray, dj: np.ndarray | None) -> bool:
    """Could another plan of the same cost be faster? Yes when some option on the optimal face (used,
    or unused with a zero reduced cost) is faster than the slowest used option of its workload: its
    share might be raised at the slow one's expense (the mix of used options counts too, e.g. when
    capacity splits a workload). Integer passes have no reduced costs: solve_lp settles their ties."""
    if len(share) == 0 or dj is None:
        return False
    used = share > SHARE_EPS
    slowest = per_workload(np.maximum, np.where(used, lp.latency_weight, -np.inf), lp.var_w)
    return bool(np.any(_optimal_face(share, dj) & (lp.latency_weight < slowest)))
