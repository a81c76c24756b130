"""Run the solver on the LP and turn its answer into a Plan (with a diagnosis when infeasible)."""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Optional, Union

import numpy as np

from .errors import InputError, PlannerError
from .load import Inputs
from .model import LinearProgram, Row, build_problem, dot, per_workload, vendor_caps
from .pairs import Pairs, build_options, build_pairs, changed_options, fmt_s, repriced_pairs
from .plan import (Allocation, Binding, BreakEven, Compounding, Diagnosis, LatencySummary, NearMiss, OfferingInfo,
                   OfferingUse, Plan, Rejection, Relaxation, SolverInfo, VendorSpend, WorkloadPlan, trusted, Fragments)
from .plan import Inputs as PlanInputs
from . import insight
from .prune import candidates as prune_candidates

SHARE_EPS = 1e-9  # allocations below this share are dropped
FEAS_TOL = 1e-6  # tolerance of the self-check on every row (scaled units)
TIE_COST_TOL = 1e-7  # costs this close (relative) are tied: the solvers' tolerances, not money
TIED_DJ = 1e-9  # reduced costs and duals up to this (scaled cost, total >= 1) count as zero
SOLVERS = ("auto", "cbc", "highs")


@dataclass
class SolveResult:
    ok: bool
    status: str
    share: np.ndarray
    pi: dict[int, float] = field(default_factory=dict)  # row index -> dual (solver's sign)
    dj: Optional[np.ndarray] = None  # reduced costs of the share variables (scaled)
    seconds: float = 0.0
    slack: Optional[np.ndarray] = None  # elastic solves: per row, scaled
    n_vars: int = 0
    n_rows: int = 0


@dataclass
class Basis:
    """A solved plan and the tables behind it, for solving variants of the same files (what-if
    scenarios): the routing their solves start from, and the figures a catalog edit leaves alone."""

    plan: Plan
    inputs: Inputs
    pairs: Pairs
    candidates: np.ndarray  # W x O bool, pruning's answer
    rejections: "_Rejections"  # the plan's rejection records, and the pairs they are of
    records: "_Records"  # the plan's workload records as a scenario carries them, and what they were built from

    @cached_property
    def routed(self) -> np.ndarray:
        """W x O bool: the pairs the plan allocates."""
        out = np.zeros(self.pairs.shape, dtype=bool)
        out[self.records.w, self.records.o] = True
        return out

    @cached_property
    def rejected_at(self) -> np.ndarray:
        """W x O int: where among the rejection records the pair's is, -1 if it has none."""
        out = np.full(self.pairs.shape, -1)
        out[self.rejections.w, self.rejections.o] = np.arange(len(self.rejections.w))
        return out

    @cached_property
    def fragments(self) -> Fragments:
        """The plan-file text of the records scenarios share with this plan (made once, in a batch's parent)."""
        return Fragments(self.records.heads, self.rejections.per_workload)


@dataclass
class _Records:
    """What a plan's workload records were built from: the allocation entries (workload, option, share;
    in workload then option order), per workload the option carrying its largest share and its
    standard-tier option (the compounding curve's two), and the records without rejections or
    break-even entries (`heads`: what a scenario of the same workloads reuses where these agree)."""

    w: np.ndarray
    o: np.ndarray
    share: np.ndarray
    main: np.ndarray
    standard: np.ndarray
    heads: list[WorkloadPlan] = field(default_factory=list)


@dataclass
class _Rejections:
    per_workload: list[list[Rejection]]
    w: np.ndarray
    o: np.ndarray
    records: list[Rejection]


def pick_solver(name: str = "auto") -> str:
    """auto: HiGHS when highspy is installed (a dependency, so nearly always), else CBC from PuLP."""
    if name != "auto":
        return name
    from importlib.util import find_spec

    return "highs" if find_spec("highspy") is not None else "cbc"


def make_solver(name: str, mip: bool = True):
    """PuLP's CBC (HiGHS never goes through PuLP: _run_highs hands it the arrays)."""
    import pulp

    if name == "cbc":
        with warnings.catch_warnings():  # deprecated only in PuLP 4, which pyproject excludes
            warnings.simplefilter("ignore", DeprecationWarning)
            return pulp.PULP_CBC_CMD(msg=False, mip=mip)
    raise InputError.single("--solver", "", f"unknown solver '{name}'; expected one of: {', '.join(SOLVERS)}")


def run_lp(lp: LinearProgram, solver: str, *, upper: Optional[np.ndarray] = None,
           lower: Optional[np.ndarray] = None, integer: bool = True, elastic: bool = False,
           start: Optional[np.ndarray] = None) -> SolveResult:
    """Solve lp: HiGHS with the arrays handed to highspy directly, or CBC through a PuLP model.

    Elastic adds a slack to every relaxable row and minimises the weighted slacks first, then
    the cost. Ties are broken towards lower task-weighted latency: for an LP, a second pass on
    the optimal face; with max_options binaries, a second integer pass for the fastest choice of
    options at the optimal cost, each choice then settled by the LP with its binaries fixed (which
    also gives the integer plan its duals).

    start (a bool per column; HiGHS, plain LPs): columns likely to carry the optimum, such as a base
    plan's; the LP is then solved by sifting from them (the same optimum, see _run_highs_sifted).
    """
    if (start is not None and solver == "highs" and upper is None and lower is None and not elastic
            and not lp.max_options and len(lp.var_w)):
        sifted = _run_highs_sifted(lp, start)
        if sifted is not None:
            return sifted
    if solver == "highs":
        run = _run_highs
    else:
        make_solver(solver)  # an unknown name is an input error before any work

        def run(lp, **kw):
            return _run_pulp(lp, solver, **kw)
    if elastic or not integer or not lp.max_options:
        return run(lp, upper=upper, lower=lower, integer=integer, elastic=elastic)
    first = run(lp, upper=upper, lower=lower, integer=True, elastic=False)
    if not first.ok:
        return first
    chosen = _fix_choice(lp, run, first, upper, lower)
    cap = dot(lp.cost, chosen.share)
    second = run(lp, upper=upper, lower=lower, integer=True, elastic=False,
                 latency_cap=cap * (1 + TIE_COST_TOL) + 1e-12)
    if second.ok:
        other = _fix_choice(lp, run, second, upper, lower)
        if _better_or_same(lp, chosen.share, other.share) is other.share:  # (the size reported: the problem's)
            chosen = replace(other, n_vars=chosen.n_vars, n_rows=chosen.n_rows)
    return chosen


def _fix_choice(lp: LinearProgram, run, result: SolveResult, upper, lower) -> SolveResult:
    """An integer plan's choice of options, settled by the LP with its binaries fixed: the exact cost
    of that choice, its duals, and the latency tie-break within it."""
    pattern = np.ones(len(lp.var_w)) if upper is None else np.array(upper, dtype=float)
    for _, cols, _ in lp.max_options:
        pattern[cols] = np.where(result.share[cols] > 0, pattern[cols], 0.0)
    fixed = run(lp, upper=pattern, lower=lower, integer=False, elastic=False)
    if not fixed.ok:  # cannot happen for a feasible choice; keep the integer answer as it is
        return result
    return SolveResult(True, result.status, fixed.share, fixed.pi, fixed.dj, result.seconds + fixed.seconds,
                       None, result.n_vars, result.n_rows)


def _run_highs(lp: LinearProgram, *, upper, lower, integer: bool, elastic: bool,
               latency_cap: Optional[float] = None) -> SolveResult:
    import highspy

    from .resolve import highs_model, run_settled

    n = len(lp.var_w)
    h, slack_of = highs_model(lp, integer=integer, elastic=elastic)
    n_cols = h.getNumCol()
    if upper is not None or lower is not None:
        lb = np.zeros(n) if lower is None else np.asarray(lower, dtype=float)
        ub = np.ones(n) if upper is None else np.asarray(upper, dtype=float)
        h.changeColsBounds(n, np.arange(n, dtype=np.int32), lb, ub)
    is_mip = integer and bool(lp.max_options)
    optimal = highspy.HighsModelStatus.kOptimal
    inf = highspy.kHighsInf
    all_cols = np.arange(n_cols, dtype=np.int32)
    started = time.perf_counter()
    if elastic:
        weights = np.zeros(n_cols)
        for r, c in slack_of.items():
            weights[c] = lp.rows[r].relax_weight
        h.changeColsCost(n_cols, all_cols, weights)
        run_settled(h)
        if h.getModelStatus() != optimal:
            raise PlannerError(f"the relaxed problem could not be solved ({h.modelStatusToString(h.getModelStatus())})")
        idx = np.array(sorted(slack_of.values()), dtype=np.int32)
        least = h.getInfo().objective_function_value
        values = np.array(h.getSolution().col_value)[idx]
        h.addRow(-inf, least * (1 + 1e-7) + 1e-9, len(idx), idx, weights[idx])
    cost = np.zeros(n_cols)
    cost[:n] = lp.objective if elastic else lp.cost
    if latency_cap is not None:  # the fastest plan costing at most latency_cap (scaled)
        h.addRow(-inf, latency_cap, n, np.arange(n, dtype=np.int32), lp.cost)
        cost[:n] = lp.latency_weight
    h.changeColsCost(n_cols, all_cols, cost)
    run_settled(h)
    if elastic and h.getModelStatus() != optimal:
        # the first pass's slacks may be short of what the rows need by the feasibility tolerance, which
        # the cost pass then cannot meet (seen in an integer pass): allow that much
        h.changeRowBounds(h.getNumRow() - 1, -inf, _least_relaxation(least, weights[idx], values))
        h.clearSolver()
        run_settled(h)
    n_rows = h.getNumRow()  # the problem's rows, before any the tie-break pass adds
    status = h.getModelStatus()
    ok = status == optimal
    sol = h.getSolution()
    share = _solution_shares(lp, sol.col_value, n, is_mip) if ok else np.zeros(n)
    pi: dict[int, float] = {}
    dj = None
    if ok and not is_mip and sol.dual_valid:
        row_dual = sol.row_dual
        pi = {i: float(row_dual[i]) for i in range(len(lp.rows))}
        dj = np.array(sol.col_dual[:n])
    if ok and not elastic and latency_cap is None and _faster_tie(lp, share, dj):
        share = _highs_tie_pass(lp, share, dj, pi)
    slack_values = None
    if elastic:
        values = h.getSolution().col_value
        slack_values = np.zeros(len(lp.rows))
        for r, c in slack_of.items():
            slack_values[r] = max(0.0, values[c])
    name = "Optimal" if ok else ("Infeasible" if status == highspy.HighsModelStatus.kInfeasible
                                 else h.modelStatusToString(status))
    return SolveResult(ok, name, share, pi, dj, time.perf_counter() - started, slack_values, n_cols, n_rows)


def _least_relaxation(least: float, weights: np.ndarray, values: np.ndarray) -> float:
    """A looser bound on the weighted relaxation while the cost is minimised: the least one found,
    plus room for the solver's feasibility tolerance (1e-6 per row), by which each relaxed row's
    slack may have come out short of what the row truly needs."""
    return least + 1e-7 * abs(least) + FEAS_TOL * float(weights[values > 0].sum()) + 1e-9


def _highs_tie_pass(lp: LinearProgram, share: np.ndarray, dj: np.ndarray, pi: dict[int, float]) -> np.ndarray:
    """The lexicographic tie-break on the optimal face: the least task-weighted latency among the plans
    of optimal cost, solved as a new (small) LP over the face's columns with every row of non-zero
    dual held at its bound (no cost slack is left to trade for speed)."""
    import highspy

    from .resolve import highs_model

    keep = np.flatnonzero(_optimal_face(share, dj))
    h, _ = highs_model(lp.restrict(keep, held=_binding_duals(pi)), integer=False)
    cols = np.arange(len(keep), dtype=np.int32)
    h.addRow(-highspy.kHighsInf, _cost_cap(lp, share), len(cols), cols, lp.cost[keep])  # should the duals be inexact
    h.changeColsCost(len(cols), cols, lp.latency_weight[keep])
    # with the binding rows held, most of the face is fixed (a workload on one option): presolve removes it,
    # often the whole problem (a fifth of the simplex's time on the benchmark's scenarios)
    h.setOptionValue("presolve", "on")
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        h.setOptionValue("presolve", "off")
        h.clearSolver()
        h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return share
    second = np.zeros(len(share))
    second[keep] = np.array(h.getSolution().col_value[:len(keep)])
    return _better_or_same(lp, share, second)


def _run_highs_sifted(lp: LinearProgram, start: np.ndarray) -> Optional[SolveResult]:
    """The LP solved from a guess of its optimal columns (sifting): solve the LP over the guessed
    columns, price every other column with that solution's duals, add those with a negative reduced
    cost, repeat. When none is left the restricted optimum is optimal for the whole LP (its duals
    are feasible for every column), so the answer, its duals and the reduced costs over all columns
    are those of the whole LP; the tie-break pass then runs on the whole LP's optimal face. None when
    the guess gives no feasible restricted LP or the rounds run out: the caller solves the whole LP.

    A what-if scenario starts from the base plan's columns: a price change reroutes few workloads,
    and about a thousand restricted columns replace tens of thousands."""
    from .resolve import add_columns, highs_model, sift

    n = len(lp.var_w)
    keep = start | _cheapest_columns(lp)  # every workload has a column
    cost = lp.cost
    started = time.perf_counter()
    idx = np.flatnonzero(keep)  # the model's columns, in the model's order
    h, _ = highs_model(lp.restrict(idx), integer=False)
    h.changeColsCost(len(idx), np.arange(len(idx), dtype=np.int32), cost[idx])

    def add(new: np.ndarray) -> None:  # later rounds add a few columns: the simplex goes on from where it stopped
        nonlocal idx
        add_columns(h, lp, new, cost[new], np.ones(len(new)))
        idx = np.r_[idx, new]

    settled = sift(h, lp, cost, ~keep, add)
    if settled is None:
        return None
    sol, y, dj = settled
    share = np.zeros(n)
    share[idx] = np.array(sol.col_value[:len(idx)])
    dj[idx] = np.array(sol.col_dual[:len(idx)])  # the solver's own, where it has them
    pi = {i: float(y[i]) for i in range(len(lp.rows))}
    if _faster_tie(lp, share, dj):
        share = _highs_tie_pass(lp, share, dj, pi)
    return SolveResult(True, "Optimal", share, pi, dj, time.perf_counter() - started, None, n, len(lp.rows))


def _cheapest_columns(lp: LinearProgram) -> np.ndarray:
    """Per workload, its cheapest column(s)."""
    if not len(lp.var_w):
        return np.zeros(0, dtype=bool)
    return lp.spend <= per_workload(np.minimum, lp.spend, lp.var_w)


def _solution_shares(lp: LinearProgram, values, n: int, is_mip: bool) -> np.ndarray:
    """Shares from a solution laid out as [shares..., binaries of each max_options group...]; an option
    whose binary is off carries nothing, whatever dust the solver left on it."""
    share = np.array(values[:n])
    if is_mip:
        y = n
        for _, cols, _ in lp.max_options:
            on = np.array(values[y:y + len(cols)]) > 0.5
            share[cols] = np.where(on, share[cols], 0.0)
            y += len(cols)
    return share


def _pulp_problem(lp: LinearProgram, lb: np.ndarray, ub: np.ndarray, integer: bool, elastic: bool):
    """The LP as a PuLP problem (expressions from lists of (variable, coefficient) pairs)."""
    import pulp

    n = len(lp.var_w)
    prob = pulp.LpProblem("planner", pulp.LpMinimize)
    x = [prob.add_variable(f"x{j}", lowBound=float(lb[j]), upBound=float(ub[j])) for j in range(n)]
    constraints = []
    slacks: dict[int, pulp.LpVariable] = {}
    senses = {"<=": pulp.LpConstraintLE, ">=": pulp.LpConstraintGE, "==": pulp.LpConstraintEQ}
    for i, row in enumerate(lp.rows):
        terms = [(x[j], float(c)) for j, c in zip(row.cols.tolist(), row.coefs.tolist())]
        if elastic and row.relax_weight is not None:
            s = prob.add_variable(f"e{i}", lowBound=0)
            slacks[i] = s
            terms.append((s, -1.0 if row.sense == "<=" else 1.0))
        con = pulp.LpConstraint(pulp.LpAffineExpression(terms), senses[row.sense], f"r{i}", float(row.rhs))
        prob.addConstraint(con)
        constraints.append(con)
    binaries = []
    if integer and lp.max_options:
        for g, (w, cols, k) in enumerate(lp.max_options):
            ys = [prob.add_variable(f"y{g}_{j}", 0, 1, cat=pulp.LpBinary) for j in cols]
            binaries.append(ys)
            for j, y in zip(cols, ys):
                prob.addConstraint(pulp.LpConstraint(pulp.LpAffineExpression([(x[j], 1.0), (y, -1.0)]),
                                                     pulp.LpConstraintLE, f"link{g}_{j}", 0.0))
            prob.addConstraint(pulp.LpConstraint(pulp.LpAffineExpression([(y, 1.0) for y in ys]),
                                                 pulp.LpConstraintLE, f"max_options{g}", float(k)))
    return prob, x, constraints, slacks, binaries


def _run_pulp(lp: LinearProgram, solver: str, *, upper, lower, integer: bool, elastic: bool,
              latency_cap: Optional[float] = None) -> SolveResult:
    import pulp

    n = len(lp.var_w)
    ub = np.ones(n) if upper is None else np.asarray(upper, dtype=float)
    lb = np.zeros(n) if lower is None else np.asarray(lower, dtype=float)
    prob, x, constraints, slacks, binaries = _pulp_problem(lp, lb, ub, integer, elastic)
    n_int = sum(len(ys) for ys in binaries)
    cost_expr = pulp.LpAffineExpression(list(zip(x, (lp.objective if elastic else lp.cost).tolist())))
    started = time.perf_counter()
    slack_values = None
    if elastic:
        weights = {i: lp.rows[i].relax_weight for i in slacks}
        slack_expr = pulp.LpAffineExpression([(s, float(weights[i])) for i, s in slacks.items()])
        prob.setObjective(slack_expr)
        prob.solve(make_solver(solver, mip=n_int > 0))
        if pulp.LpStatus[prob.status] != "Optimal":
            raise PlannerError(f"the relaxed problem could not be solved ({pulp.LpStatus[prob.status]})")
        least = float(pulp.value(slack_expr) or 0.0)
        prob.addConstraint(pulp.LpConstraint(slack_expr, pulp.LpConstraintLE, "least_relaxation",
                                             least * (1 + 1e-7) + 1e-9))
    if latency_cap is not None:  # the fastest plan costing at most latency_cap (scaled)
        prob.addConstraint(pulp.LpConstraint(pulp.LpAffineExpression(list(zip(x, lp.cost.tolist()))),
                                             pulp.LpConstraintLE, "cost_cap", latency_cap))
        cost_expr = pulp.LpAffineExpression(list(zip(x, lp.latency_weight.tolist())))
    prob.setObjective(cost_expr)
    prob.solve(make_solver(solver, mip=n_int > 0))
    status = pulp.LpStatus[prob.status]
    ok = status == "Optimal"

    def values(x, binaries) -> list[float]:
        return [v.varValue or 0.0 for v in x] + [y.varValue or 0.0 for ys in binaries for y in ys]

    share = _solution_shares(lp, values(x, binaries), n, n_int > 0)
    pi = {}
    dj = None
    if ok and not n_int:
        pi = {i: float(c.pi) for i, c in enumerate(constraints) if c.pi is not None}
        dj = np.array([v.dj if v.dj is not None else 0.0 for v in x], dtype=float)
    if ok and not elastic and latency_cap is None and _faster_tie(lp, share, dj):
        # lexicographic tie-break, as in _run_highs: a new (small) problem over the optimal face
        keep = np.flatnonzero(_optimal_face(share, dj))
        sub = lp.restrict(keep, held=_binding_duals(pi))
        prob2, x2, _, _, bin2 = _pulp_problem(sub, lb[keep], ub[keep], integer, False)
        prob2.addConstraint(pulp.LpConstraint(pulp.LpAffineExpression(list(zip(x2, sub.cost.tolist()))),
                                              pulp.LpConstraintLE, "optimal_cost", _cost_cap(lp, share)))
        prob2.setObjective(pulp.LpAffineExpression(list(zip(x2, sub.latency_weight.tolist()))))
        prob2.solve(make_solver(solver, mip=n_int > 0))
        if pulp.LpStatus[prob2.status] == "Optimal":
            second = np.zeros(n)
            second[keep] = _solution_shares(sub, values(x2, bin2), len(keep), n_int > 0)
            share = _better_or_same(lp, share, second)
    seconds = time.perf_counter() - started
    if elastic:
        slack_values = np.zeros(len(lp.rows))
        for i, s in slacks.items():
            slack_values[i] = max(0.0, s.varValue or 0.0)
    return SolveResult(ok, status, share, pi, dj, seconds, slack_values, prob.numVariables(), prob.numConstraints())


def _spread(lp: LinearProgram) -> float:
    positive = lp.spend[lp.spend > 0]
    return float(np.log10(positive.max() / positive.min())) if len(positive) else 0.0


def _better_or_same(lp: LinearProgram, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """The tie-break pass's answer only when it is as cheap and as feasible as the first (solver
    tolerances can let a second pass drift on badly scaled rows)."""
    a, b = clean_shares(lp, first.copy()), clean_shares(lp, second.copy())
    if np.array_equal(a, b):  # the pass confirmed the first plan
        return first
    cost_a, cost_b = dot(lp.spend, a), dot(lp.spend, b)
    if cost_b <= cost_a * (1 + TIE_COST_TOL) + 1e-12 and len(check_rows(lp, b)) <= len(check_rows(lp, a)):
        return second
    return first


def _cost_cap(lp: LinearProgram, share: np.ndarray) -> float:
    """The tie-break pass's ceiling on the scaled cost: the first pass's, to 1e-9. On the optimal face
    it is implied; it guards against a solver's inexact duals (CBC writes 8 digits)."""
    best = dot(lp.cost, share)
    return best + 1e-9 * abs(best) + 1e-12


def _optimal_face(share: np.ndarray, dj: np.ndarray) -> np.ndarray:
    """The columns that can be positive in some optimal plan: by complementary slackness, an unused
    column whose reduced cost (at an optimal dual) is positive is zero in every optimal plan, so the
    tie-break pass only needs the used columns and those with a reduced cost of about zero."""
    return (share > SHARE_EPS) | (dj <= TIED_DJ)


def _binding_duals(pi: dict[int, float]) -> list[int]:
    """Rows whose dual is not zero: every optimal plan holds them at their bound (complementary slackness)."""
    return [i for i, y in sorted(pi.items()) if abs(y) > TIED_DJ]


def _faster_tie(lp: LinearProgram, share: np.ndarray, dj: Optional[np.ndarray]) -> bool:
    """Could another plan of the same cost be faster? Yes when some option on the optimal face (used,
    or unused with a zero reduced cost) is faster than the slowest used option of its workload: its
    share might be raised at the slow one's expense (the mix of used options counts too, e.g. when
    capacity splits a workload). Integer passes have no reduced costs: run_lp settles their ties."""
    if len(share) == 0 or dj is None:
        return False
    used = share > SHARE_EPS
    slowest = per_workload(np.maximum, np.where(used, lp.latency_weight, -np.inf), lp.var_w)
    return bool(np.any(_optimal_face(share, dj) & (lp.latency_weight < slowest)))


def clean_shares(lp: LinearProgram, share: np.ndarray) -> np.ndarray:
    """Drop dust, renormalise each workload to exactly one, round away solver noise."""
    share = np.clip(share, 0.0, 1.0)
    share[share < SHARE_EPS] = 0.0
    totals = np.bincount(lp.var_w, share, minlength=int(lp.var_w.max()) + 1) if len(lp.var_w) else np.zeros(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(totals[lp.var_w] > 0, share / totals[lp.var_w], 0.0)
    return np.round(share, 12)


def check_rows(lp: LinearProgram, share: np.ndarray, slack: Optional[np.ndarray] = None,
               activities: Optional[tuple[np.ndarray, np.ndarray]] = None) -> list[str]:
    """Every row the plan claims to meet, checked on the cleaned shares: a list of violations.

    The tolerance is relative to the row's gross activity (sum of |coefficient x share|), the size
    that rounding in the solver's answer scales with: a spend-share row whose terms cancel can
    carry terms a thousand times its limit when the optimum is far above the scaling bound."""
    bad = []
    acts, grosses = lp.activities(share) if activities is None else activities
    if lp.rows:
        sense, rhs = lp.senses
        give = np.zeros(len(lp.rows)) if slack is None else np.asarray(slack, dtype=float)
        tol = FEAS_TOL * np.maximum.reduce([np.ones(len(rhs)), np.abs(rhs), np.abs(give), grosses])
        over = ((sense == 0) & (acts > rhs + give + tol)) | ((sense == 1) & (acts < rhs - give - tol)) \
            | ((sense == 2) & (np.abs(acts - rhs) > tol))
        for i in np.flatnonzero(over).tolist():
            row, act = lp.rows[i], float(acts[i])
            limit = row.rhs + give[i] if row.sense == "<=" else row.rhs - give[i] if row.sense == ">=" else row.rhs
            op = {"<=": ">", ">=": "<", "==": "!="}[row.sense]
            bad.append(f"{row.name}: {act:.9g} {op} {limit:.9g}")
    for w, cols, k in lp.max_options:
        if int((share[cols] > 0).sum()) > k:
            bad.append(f"max_options:{w}: more than {k} options")
    return bad


def solve_inputs(inputs: Inputs, solver: str = "auto", scenario: Optional[str] = None,
                 pairs: Optional[Pairs] = None, prune: bool = True, resilience: bool = True,
                 review: bool = True, start: Optional[Union[Plan, Basis]] = None) -> Plan:
    """From validated inputs to a Plan: pairs, LP, solve, diagnosis when there is no plan.

    review=False leaves out the vendor-review figures that need more than the plan itself
    (break-even prices, baselines); resilience=False leaves out the outage table. start: a plan
    of similar inputs (a what-if's base) whose routing the solver starts from; given as a Basis
    (solve_basis), the figures of the options its catalog edit leaves alone are reused too."""
    return _solve(inputs, solver, scenario, pairs, prune, resilience, review, start)[0]


def solve_basis(inputs: Inputs, solver: str = "auto", **kw) -> Basis:
    """solve_inputs, keeping what scenarios of the same files can start from."""
    return _solve(inputs, solver, **kw, keep_basis=True)[1]


def _solve(inputs: Inputs, solver: str = "auto", scenario: Optional[str] = None, pairs: Optional[Pairs] = None,
           prune: bool = True, resilience: bool = True, review: bool = True,
           start: Optional[Union[Plan, Basis]] = None, keep_basis: bool = False) -> tuple[Plan, Optional[Basis]]:
    solver = pick_solver(solver)
    ws, catalog = inputs.workloads, inputs.catalog
    basis = start if isinstance(start, Basis) else None
    changed = None
    if basis is not None and pairs is None and ws is basis.inputs.workloads:
        opts = build_options(catalog)
        changed = changed_options(basis.inputs.catalog, catalog, opts)
        if changed is not None:
            pairs = repriced_pairs(basis.pairs, ws, catalog, opts, changed)
    if pairs is None:
        pairs = build_pairs(ws, catalog)
    alone = np.flatnonzero(pairs.eligible_count == 0)
    in_lp = np.flatnonzero(pairs.eligible_count > 0)
    if not prune:
        cand = pairs.eligible
    elif changed is not None:
        cand = prune_candidates(ws, catalog, pairs, reuse=(basis.candidates, basis.pairs.eligible, changed))
    else:
        cand = prune_candidates(ws, catalog, pairs)
    lp = build_problem(ws, catalog, pairs, in_lp, cand)
    relaxation: list[Relaxation] = []
    diagnosis: list[str] = []
    if len(lp.var_w):
        if start is None:
            warm = None
        else:
            routed = basis.routed if changed is not None else routed_pairs(basis.plan if basis else start, pairs)
            warm = routed[lp.var_w, lp.var_o]
        result = run_lp(lp, solver, start=warm)
        if not result.ok:
            result = run_lp(lp, solver, elastic=True)
            if not result.ok:
                raise PlannerError(f"the solver could not solve the relaxed problem ({result.status})")
    else:
        result = SolveResult(True, "Optimal", np.zeros(0))
    share = clean_shares(lp, result.share)
    activities = lp.activities(share)
    violations = check_rows(lp, share, result.slack, activities)
    if violations and solver != "highs":  # a second opinion before giving up
        retry = run_lp(lp, "highs", elastic=result.slack is not None)
        if retry.ok and not check_rows(lp, clean_shares(lp, retry.share), retry.slack):
            result, share, violations = retry, clean_shares(lp, retry.share), []
            activities = lp.activities(share)
    if violations:
        spread = _spread(lp)
        raise PlannerError("the solver's answer violates constraints (" + "; ".join(violations[:3]) + ")"
                           + (f"; costs per task span {spread:.0f} orders of magnitude, more than the solver's "
                              "tolerances carry: check the inputs for a typo" if spread > 9 else ""))
    total = dot(lp.spend, share)
    if result.slack is not None:
        relaxation = _relaxations(lp, share, result.slack, total)
        diagnosis += [r.meaning for r in relaxation]
    full: Optional[LinearProgram] = None if prune else lp

    def full_lp() -> LinearProgram:  # built at most once, and only when asked for
        nonlocal full
        if full is None:
            full = insight.full_problem(inputs, pairs)
        return full

    break_even = (_break_even(pairs, lp, full_lp, share, result, solver, in_lp)
                  if review and result.slack is None and len(lp.var_w) else {})
    rejected = _rejections(pairs, reuse=None if changed is None else (basis.rejected_at, basis.rejections.records,
                                                                      changed))
    workloads, records = _workload_plans(inputs, pairs, lp, share, break_even, rejected.per_workload,
                                         None if changed is None else (basis, changed))
    for w in alone:
        diagnosis.append(f"workload '{pairs.workloads.ids[w]}': {workloads[w].diagnosis.summary}")
    feasible = result.slack is None and len(alone) == 0
    solver_status = result.status if result.slack is None else "Infeasible"
    plan = Plan(
        status="optimal" if feasible else "infeasible",
        name=inputs.name,
        period=ws.period,
        currency=catalog.currency,
        inputs=PlanInputs(workloads_file=inputs.workloads_file, catalog_file=inputs.catalog_file,
                          catalog=catalog.catalog, as_of=catalog.as_of, scenario=scenario),
        solver=SolverInfo(name={"cbc": "CBC", "highs": "HiGHS"}[solver], status=solver_status,
                          seconds=round(result.seconds, 4), variables=result.n_vars,
                          constraints=result.n_rows, integer=lp.integer),
        total_cost=sum(w.cost for w in workloads),
        workloads=workloads,
        offerings=_offering_uses(inputs, pairs, lp, share),
        vendors=_vendor_spend(inputs, pairs, lp, share),
        binding=_binding(lp, share, result, total, catalog.currency, ws.period, activities[0]),
        relaxation=relaxation,
        diagnosis=diagnosis,
        baselines=insight.baselines(inputs, pairs) if review else [],
        thresholds=ws.all_thresholds,
        assumptions=_assumptions(inputs, pairs),
        sources={o.id: o.source for o in catalog.offerings if o.source},
    )
    if feasible and resilience and int(pairs.eligible.sum()) <= insight.RESILIENCE_MAX_PAIRS:
        plan.resilience = insight.resilience(pairs, plan, full_lp())
    named = {a.offering for w in workloads for a in w.allocations} | {b.offering for w in workloads for b in w.break_even}
    plan.offering_info = {o.id: OfferingInfo(model=o.model, vendor=o.vendor, host=o.host_name, tier=o.tier,
                                             price_input=o.price.input, price_output=o.price.output,
                                             gateway=dict(o.gateway))
                          for o in catalog.offerings if o.id in named}
    if not keep_basis:
        return plan, None
    records.heads = [trusted(WorkloadPlan, {**w.__dict__, "rejected": [], "break_even": []}) for w in workloads]
    return plan, Basis(plan, inputs, pairs, cand, rejected, records)


def routed_pairs(plan: Plan, pairs: Pairs) -> np.ndarray:
    """W x O bool: the (workload, option) pairs `plan` allocates, matched by workload id, offering and mode."""
    out = np.zeros(pairs.shape, dtype=bool)
    opts = pairs.options
    option = {key: o for o, key in enumerate(zip(opts.offering_id, opts.mode))}
    row = {wid: w for w, wid in enumerate(pairs.workloads.ids)}
    for wp in plan.workloads:
        w = row.get(wp.id)
        if w is None:
            continue
        for a in wp.allocations:
            o = option.get((a.offering, a.mode))
            if o is not None:
                out[w, o] = True
    return out


# ----------------------------------------------------------------------------- plan assembly


def _workload_plans(inputs: Inputs, pairs: Pairs, lp: LinearProgram, share: np.ndarray,
                    break_even: dict[int, list], rejected: list[list[Rejection]],
                    reuse: Optional[tuple[Basis, np.ndarray]] = None) -> tuple[list[WorkloadPlan], _Records]:
    """Every workload's part of the plan, built from the arrays as typed records (plan.trusted).

    reuse: (basis, changed) when the pairs are the basis's with the options `changed` recomputed
    (repriced_pairs): a workload whose allocation entries are the basis's, on unchanged options, with
    the same eligible count and compounding options, gets the basis's record (with this plan's
    rejections): every figure of it is computed from those alone."""
    from pydantic import TypeAdapter

    wa, opts = pairs.workloads, pairs.options
    ws = inputs.workloads
    used = np.flatnonzero(share > 0)
    u_w, u_o, u_s = lp.var_w[used], lp.var_o[used], share[used]
    u_tasks = u_s * wa.tasks[u_w]
    u_cpt = pairs.cost_per_task[u_w, u_o]
    u_lat = pairs.latency_s[u_w, u_o]
    u_cap = pairs.capability[u_w, u_o]
    u_within = pairs.within_budget[u_w, u_o]
    main = np.full(len(wa.ids), -1)  # the option carrying the largest share (the first of equals), per workload
    if len(u_w):
        top = np.lexsort((np.arange(len(u_w)), -u_s, u_w))
        firsts = top[np.r_[True, u_w[top][1:] != u_w[top][:-1]]]
        main[u_w[firsts]] = u_o[firsts]
    standard = insight.standard_options(pairs)
    state = _Records(u_w, u_o, u_s, main, standard)
    fresh = None if reuse is None else _fresh_records(pairs, state, reuse[0], reuse[1], break_even)
    if fresh is not None:
        main = np.where(fresh, main, -1)  # curves only for the records made afresh
        keep = fresh[u_w]
        u_w, u_o, u_s, u_tasks, u_cpt, u_lat, u_cap, u_within = (
            a[keep] for a in (u_w, u_o, u_s, u_tasks, u_cpt, u_lat, u_cap, u_within))
    curves = insight.compounding_many(pairs, main, standard)
    n_w = len(wa.ids)
    lat_mean = np.bincount(u_w, u_s * u_lat, minlength=n_w).tolist()
    lat_max = np.full(n_w, -np.inf)
    np.maximum.at(lat_max, u_w, u_lat)
    within = np.bincount(u_w, np.where(u_within, u_s, 0.0), minlength=n_w).tolist()
    cap_mean = np.bincount(u_w, u_s * np.nan_to_num(u_cap), minlength=n_w)
    cap_mean = np.where(np.bincount(u_w, np.isnan(u_cap), minlength=n_w) > 0, None, cap_mean).tolist()
    lat_max = lat_max.tolist()
    allocs_of: list[list[Allocation]] = [[] for _ in range(n_w)]
    for w, o, sh, tasks, cpt, lat, cap, inside in zip(
            u_w.tolist(), u_o.tolist(), u_s.tolist(), u_tasks.tolist(), u_cpt.tolist(), u_lat.tolist(),
            np.where(np.isnan(u_cap), None, u_cap).tolist(), u_within.tolist()):
        allocs_of[w].append(trusted(Allocation, {
            "offering": opts.offering_id[o], "mode": opts.mode[o], "share": sh, "tasks": tasks, "cost_per_task": cpt,
            "cost": tasks * cpt, "latency_s": lat, "capability": cap, "vendor": opts.vendor[o], "host": opts.host[o],
            "tier": opts.tier[o], "model": opts.model[o], "within_budget": inside}))
    tasks_w, budget_w = wa.tasks.tolist(), np.where(np.isnan(wa.budget_s), None, wa.budget_s).tolist()
    eligible = pairs.eligible_count.tolist()
    loose = [b for entries in break_even.values() for b in entries if not isinstance(b, BreakEven)]
    made = iter(TypeAdapter(list[BreakEven]).validate_python(loose)) if loose else iter(())
    break_even = {w: [b if isinstance(b, BreakEven) else next(made) for b in entries]
                  for w, entries in break_even.items()}
    costs = np.bincount(u_w, u_tasks * u_cpt, minlength=n_w)  # (in allocation order, as a running sum would)
    per_task = (costs / wa.tasks).tolist()
    costs = costs.tolist()
    required, peak = wa.within_budget_share.tolist(), wa.peak_tasks_per_minute.tolist()
    assumed = wa.peak_assumed.tolist()
    out = []
    heads = None if fresh is None else reuse[0].records.heads
    fresh_of = None if fresh is None else fresh.tolist()
    for w, wl in enumerate(ws.workloads):
        if fresh_of is not None and not fresh_of[w]:
            out.append(trusted(WorkloadPlan, {**heads[w].__dict__, "rejected": rejected[w]}))
            continue
        allocs = allocs_of[w]
        curve = curves.get(w) if allocs else None
        out.append(trusted(WorkloadPlan, {
            "id": wl.id, "status": "ok" if allocs else "infeasible", "description": wl.description,
            "tasks": tasks_w[w], "turns": wl.turns, "budget_s": budget_w[w], "threshold": wa.threshold[w],
            "metric": wa.metric[w], "capability_min": wl.capability.min, "cost": costs[w],
            "cost_per_task": per_task[w] if allocs else None,
            "latency_s": trusted(LatencySummary, {"mean": lat_mean[w], "max": lat_max[w]}) if allocs else None,
            "within_budget_share": within[w] if allocs else None, "within_budget_share_required": required[w],
            "capability_mean": cap_mean[w] if allocs else None,
            "peak_tasks_per_minute": peak[w], "peak_assumed": assumed[w],
            "eligible": eligible[w], "allocations": allocs, "rejected": rejected[w],
            "break_even": break_even.get(w, []), "tool_latency_s": wl.tool_latency_s,
            "streaming": wl.latency.streaming, "compounding": None if curve is None else trusted(Compounding, curve),
            "diagnosis": None if eligible[w] else _nearest_misses(pairs, w)}))
    return out, state


def _fresh_records(pairs: Pairs, now: _Records, basis: Basis, changed: np.ndarray,
                   break_even: dict[int, list]) -> np.ndarray:
    """Per workload, whether its record must be made afresh rather than taken from the basis: its
    allocation entries differ (option or share, bit for bit), one of its allocated options changed, its
    eligible count differs or is zero (the record then carries a diagnosis), its compounding curve's
    options differ or changed (multi-turn workloads), or it has break-even entries."""
    then = basis.records
    W, O = pairs.shape
    fresh = np.zeros(W, dtype=bool)
    for a, b in ((now, then), (then, now)):  # an entry of one without its twin in the other
        key_a, key_b = a.w * O + a.o, b.w * O + b.o  # (ascending: workload, then option order)
        if len(key_b) == 0:
            fresh[a.w] = True
            continue
        at = np.minimum(np.searchsorted(key_b, key_a), len(key_b) - 1)
        fresh[a.w[(key_b[at] != key_a) | (b.share[at] != a.share)]] = True
    fresh[now.w[changed[now.o]]] = True
    fresh |= (pairs.eligible_count != basis.pairs.eligible_count) | (pairs.eligible_count == 0)
    fresh |= now.main != then.main
    multi = pairs.workloads.turns > 1
    fresh |= multi & ((now.standard != then.standard) | ((now.standard >= 0) & changed[np.maximum(now.standard, 0)]))
    fresh[list(break_even)] = True
    return fresh


def _break_even(pairs: Pairs, lp: LinearProgram, full_lp, share: np.ndarray, result: SolveResult,
                solver: str, in_lp: np.ndarray) -> dict[int, list]:
    """Break-even prices: reduced costs for LP workloads, re-solves for max_options workloads."""
    integer_w = {w for w, _, _ in lp.max_options}
    out: dict[int, list] = {}
    if result.pi:
        duals = {lp.rows[i].name: y for i, y in result.pi.items()}
        lp_w = np.array([w for w in in_lp if w not in integer_w], dtype=int)
        out.update(insight.break_even(pairs, lp, full_lp(), share, duals, lp_w))
    total = dot(lp.spend, share)
    for w, cols, _ in lp.max_options:
        out[w] = _break_even_by_resolving(pairs, lp, share, solver, w, cols, total)
    return out


def _break_even_by_resolving(pairs: Pairs, lp: LinearProgram, share: np.ndarray, solver: str, w: int,
                             cols: np.ndarray, total: float) -> list[BreakEven]:
    """Integer workloads: a used option's headroom is the saving it brings (re-solve without it) per
    task it carries; an unused option's break-even is the cut that makes the plan with the whole
    workload on it (re-solved) as cheap as the current one."""
    opts, wa = pairs.options, pairs.workloads
    out = []
    unused = [j for j in cols if share[j] <= 0]
    unused.sort(key=lambda j: (lp.spend[j], j))
    for j in [j for j in cols if share[j] > 0] + unused[:insight.UNUSED_PER_WORKLOAD]:
        o = int(lp.var_o[j])
        cpt = float(pairs.cost_per_task[w, o])
        bounds = np.zeros(len(share))
        if share[j] > 0:
            upper = np.ones(len(share))
            upper[j] = 0.0
            other = run_lp(lp, solver, upper=upper)
            change = (dot(lp.spend, clean_shares(lp, other.share)) - total) / (
                wa.tasks[w] * share[j] * cpt) if other.ok and cpt > 0 else None
        else:
            bounds[j] = 1.0
            forced = run_lp(lp, solver, lower=bounds)
            change = None
            if forced.ok and cpt > 0:
                change = -(dot(lp.spend, clean_shares(lp, forced.share)) - total) / (wa.tasks[w] * cpt)
                change = None if change <= -1 else min(0.0, change)
        out.append(BreakEven(offering=opts.offering_id[o], mode=opts.mode[o], used=bool(share[j] > 0),
                             cost_per_task=cpt, break_even_cost_per_task=None if change is None else cpt * (1 + change),
                             price_change=None if change is None else float(f"{change:.6g}")))
    return out


def _rejections(pairs: Pairs, limit: int = 10,
                reuse: Optional[tuple[np.ndarray, list[Rejection], np.ndarray]] = None) -> _Rejections:
    """Per workload, up to `limit` ineligible options, cheapest first (then faster, then catalog order),
    each with its reasons. reuse: (rejected_at, records, changed) of a Basis with the same workloads and
    options: a pair whose option has not changed keeps its record there."""
    W, O = pairs.shape
    cost = np.where(pairs.eligible, np.inf, pairs.cost_per_task)
    if O > limit:  # only options up to each row's limit-th cheapest cost can make its list
        nth = np.partition(cost, limit - 1, axis=1)[:, limit - 1]
        rw, ro = np.nonzero(~pairs.eligible & (cost <= nth[:, None]))
    else:
        rw, ro = np.nonzero(~pairs.eligible)
    order = np.lexsort((pairs.latency_s[rw, ro], cost[rw, ro], rw))  # cheapest, then faster, then catalog (stable)
    rw, ro = rw[order], ro[order]
    keep = np.arange(len(rw)) - np.searchsorted(rw, rw) < limit
    rw, ro = rw[keep], ro[keep]
    known = np.full(len(rw), -1) if reuse is None else np.where(reuse[2][ro], -1, reuse[0][rw, ro])
    new = np.flatnonzero(known < 0)
    nw, no = rw[new], ro[new]
    ids, modes = pairs.options.offering_id, pairs.options.mode
    cap = pairs.capability[nw, no]
    cap = np.where(np.isnan(cap), None, cap).tolist()  # floats, None where there is no score
    made = [trusted(Rejection, {"offering": ids[o], "mode": modes[o], "reasons": why, "cost_per_task": cpt,
                                "latency_s": lat, "capability": c})
            for o, why, cpt, lat, c in zip(no.tolist(), pairs.reasons_many(nw, no), pairs.cost_per_task[nw, no].tolist(),
                                           pairs.latency_s[nw, no].tolist(), cap)]
    if reuse is None or not reuse[1]:
        records = made
    else:
        records = list(map(reuse[1].__getitem__, np.maximum(known, 0).tolist()))  # (placeholders where new ones go)
        for i, r in zip(new.tolist(), made):
            records[i] = r
    ends = np.searchsorted(rw, np.arange(W + 1)).tolist()  # rw is sorted: each workload's records are a run
    out = [records[a:b] for a, b in zip(ends[:-1], ends[1:])]
    return _Rejections(out, rw, ro, records)


def _near(pairs: Pairs, w: int, o: int) -> NearMiss:
    cap = pairs.capability[w, o]
    return NearMiss(offering=pairs.options.offering_id[o], mode=pairs.options.mode[o],
                    latency_s=float(pairs.latency_s[w, o]), capability=None if np.isnan(cap) else float(cap),
                    cost_per_task=float(pairs.cost_per_task[w, o]))


def _nearest_misses(pairs: Pairs, w: int) -> Diagnosis:
    """Why workload w has no eligible option, and the nearest misses on latency and capability."""
    wa = pairs.workloads
    allowed = pairs.vendor_ok[w] & pairs.region_ok[w] & pairs.context_ok[w]
    if not allowed.any():
        counts = {"vendor": (~pairs.vendor_ok[w]).sum(), "region": (~pairs.region_ok[w]).sum(),
                  "context": (~pairs.context_ok[w]).sum()}
        why = ", ".join(f"{k} ({v})" for k, v in counts.items() if v)
        return Diagnosis(summary=f"no option passes the vendor, region and context rules; rejected by {why}")
    parts = []
    fastest = most = None
    floor_ok = np.flatnonzero(allowed & pairs.capability_ok[w])
    if len(floor_ok):
        o = int(floor_ok[np.lexsort((floor_ok, pairs.cost_per_task[w, floor_ok], pairs.latency_s[w, floor_ok]))[0]])
        fastest = _near(pairs, w, o)
        parts.append(f"the fastest option meeting the capability floor is {pairs.options.label(o)} at "
                     f"{fmt_s(fastest.latency_s)} s; it would need a budget of {fmt_s(fastest.latency_s)} s "
                     f"(budget {fmt_s(wa.budget_s[w])} s)")
    else:
        parts.append(f"no allowed option reaches the {wa.metric[w]} floor of {wa.cap_min[w]:g}")
    budget_ok = np.flatnonzero(allowed & pairs.within_budget[w] & ~np.isnan(pairs.capability[w]))
    if len(budget_ok):
        caps = pairs.capability[w, budget_ok]
        o = int(budget_ok[np.lexsort((budget_ok, pairs.cost_per_task[w, budget_ok], -caps))[0]])
        most = _near(pairs, w, o)
        parts.append(f"the most capable option within the budget is {pairs.options.label(o)}, scoring "
                     f"{most.capability:g} {wa.metric[w]} (floor {wa.cap_min[w]:g})")
    elif not np.isnan(wa.budget_s[w]):
        parts.append(f"no allowed option finishes within {fmt_s(wa.budget_s[w])} s")
    return Diagnosis(summary="no eligible option: " + "; ".join(parts), fastest_meeting_floor=fastest,
                     most_capable_within_budget=most)


def _offering_uses(inputs: Inputs, pairs: Pairs, lp: LinearProgram, share: np.ndarray) -> list[OfferingUse]:
    opts = pairs.options
    n_off = len(inputs.catalog.offerings)
    spend, tasks, tpm, rpm = (np.zeros(n_off) for _ in range(4))
    if len(share):
        off = opts.offering_index[lp.var_o]
        spend = np.bincount(off, lp.spend * share, minlength=n_off)
        tasks = np.bincount(off, pairs.workloads.tasks[lp.var_w] * share, minlength=n_off)
        tpm = np.bincount(off, pairs.peak_tpm[lp.var_w, lp.var_o] * share, minlength=n_off)
        rpm = np.bincount(off, pairs.peak_rpm[lp.var_w, lp.var_o] * share, minlength=n_off)
    out = []
    for i, o in enumerate(inputs.catalog.offerings):
        if tasks[i] <= 0:
            continue
        cap = o.capacity
        tpm_lim = cap.tokens_per_minute if cap else None
        rpm_lim = cap.requests_per_minute if cap else None
        ratios = [x / lim for x, lim in ((tpm[i], tpm_lim), (rpm[i], rpm_lim)) if lim]
        out.append(OfferingUse(id=o.id, vendor=o.vendor, host=o.host_name, tier=o.tier, spend=float(spend[i]),
                               tasks=float(tasks[i]), peak_tpm=float(tpm[i]), tokens_per_minute=tpm_lim,
                               peak_rpm=float(rpm[i]), requests_per_minute=rpm_lim,
                               utilization=round(max(ratios), 9) if ratios else None, source=o.source,
                               price_input=o.price.input, price_output=o.price.output,
                               output_tps=o.speed.output_tps, ttft_s=o.speed.ttft_s))
    out.sort(key=lambda u: (-u.spend, u.id))
    return out


def _vendor_spend(inputs: Inputs, pairs: Pairs, lp: LinearProgram, share: np.ndarray) -> list[VendorSpend]:
    used = np.flatnonzero(share > 0)
    names, code = np.unique(np.array(pairs.options.vendor, dtype=object), return_inverse=True)
    of_used = code[lp.var_o[used]]
    sums = np.bincount(of_used, lp.spend[used] * share[used], minlength=len(names)).tolist()
    present, first = np.unique(of_used, return_index=True)
    totals = {names[c]: sums[c] for c in present[np.argsort(first)].tolist()}  # in order of first use
    grand = sum(totals.values())
    caps = vendor_caps(inputs.workloads, totals)
    out = [VendorSpend(vendor=v, spend=s, share=s / grand if grand > 0 else 0.0, cap=caps.get(v))
           for v, s in totals.items()]
    out.sort(key=lambda x: (-x.spend, x.vendor))
    return out


def _natural(row: Row, act: float, lp: LinearProgram, share: np.ndarray, total: float) -> float:
    """A row's activity in the user's units (tokens/min, share of spend, currency...)."""
    if row.family == "vendor_share":
        on_v = lp.spend[row.cols] * share[row.cols] * (row.coefs > 0)
        return float(on_v.sum() / total) if total > 0 else 0.0
    if row.family == "budget":
        return total
    return act / row.rhs_scale if row.rhs_scale else act


MEANING = {
    "tokens_per_minute": "another {unit_step} tokens/minute on {id} would save {money} per period",
    "requests_per_minute": "another {unit_step} requests/minute on {id} would save {money} per period",
    "vendor_share": "raising the spend cap on {id} by 1 point would save {money} per period",
    "workload_vendor_share": "raising {id}'s cap by 1 point would save {money} per period",
    "latency_share": "lowering the within-budget share of {id} by 1 point would save {money} per period",
    "mean_capability": "lowering the mean capability floor of {id} by 1 point would save {money} per period",
    "budget": "the budget is fully used",
}


def _binding(lp: LinearProgram, share: np.ndarray, result: SolveResult, total: float, currency: str = "USD",
             period: str = "period", acts: Optional[np.ndarray] = None) -> list[Binding]:
    out = []
    if acts is None:
        acts, _ = lp.activities(share)
    _, rhs = lp.senses
    families = lp.families
    for i in np.flatnonzero(np.abs(acts - rhs) <= 1e-7 * np.maximum(1.0, np.abs(rhs))).tolist():
        if families[i] == "cover":
            continue
        row = lp.rows[i]
        pi = result.pi.get(i)
        shadow = None
        if pi is not None:
            rhs_scale = total / lp.scale if row.family == "vendor_share" else row.rhs_scale
            shadow = abs(pi) * lp.scale * rhs_scale
            shadow = float(f"{shadow:.9g}")
        out.append(Binding(constraint=row.name, shadow_price=shadow, limit=row.limit, unit=row.unit,
                           meaning=_meaning(row, shadow, currency, period)))
    return out


def _meaning(row: Row, shadow: Optional[float], currency: str = "USD", period: str = "period") -> str:
    from .output import money
    ident = row.name.split(":", 1)[1] if ":" in row.name else ""
    if shadow is None:
        return f"{row.name} is at its limit"
    if row.family in ("tokens_per_minute", "requests_per_minute"):
        step = 10 ** max(0, int(np.floor(np.log10(max(row.limit or 1, 1)))) - 1)
        return MEANING[row.family].format(unit_step=f"{step:,}", id=ident,
                                          money=money(shadow * step, currency)).replace("per period", f"per {period}")
    if row.family == "budget":
        return MEANING["budget"]
    scale = 0.01 if row.family in ("vendor_share", "workload_vendor_share", "latency_share") else 1.0
    return MEANING[row.family].format(id=ident, money=money(shadow * scale, currency)).replace("per period",
                                                                                             f"per {period}")


def _relaxations(lp: LinearProgram, share: np.ndarray, slack: np.ndarray, total: float) -> list[Relaxation]:
    out = []
    acts, _ = lp.activities(share)
    for i, row in enumerate(lp.rows):
        if row.relax_weight is None or slack[i] <= 1e-9:
            continue
        act = float(acts[i])
        needed = _natural(row, act, lp, share, total)
        limit = float(row.limit)
        by = needed - limit if row.sense == "<=" else limit - needed
        if by <= 1e-9 * max(1.0, abs(limit)):
            continue
        verb = "raised" if row.sense == "<=" else "lowered"
        rel = f" ({by / limit:+.1%})".replace("+", "+" if row.sense == "<=" else "-") if limit else ""
        out.append(Relaxation(constraint=row.name, limit=limit, needed=needed, by=by, unit=row.unit,
                              meaning=f"{row.name} must be {verb} from {limit:,.6g} to {needed:,.6g} "
                                      f"{row.unit}{rel} for a plan to exist"))
    return out


def _assumptions(inputs: Inputs, pairs: Pairs) -> list[str]:
    ws, wa = inputs.workloads, pairs.workloads
    out = []
    assumed = [wa.ids[w] for w in np.flatnonzero(wa.peak_assumed)]
    if assumed:
        out.append(f"peak load from the average (tasks / {ws.minutes:,} minutes x peak_factor "
                   f"{ws.policy.peak_factor:g}) for: {', '.join(assumed)}")
    no_prefill = sorted({o.id for o in inputs.catalog.offerings if o.speed.prefill_tps is None})
    if no_prefill:
        out.append(f"prompt processing folded into time to first token (no prefill_tps) for "
                   f"{len(no_prefill)} offering(s): {', '.join(no_prefill[:12])}{' ...' if len(no_prefill) > 12 else ''}")
    no_cache = sorted({o.id for o in inputs.catalog.offerings if o.price.cached_input is None})
    if no_cache and any(w.tokens.cached_input_share > 0 for w in ws.workloads):
        out.append(f"cached input billed at the input price (no cached_input price) for {len(no_cache)} offering(s)")
    out.append(f"period: {ws.period} ({ws.minutes:,} minutes); currency: {inputs.catalog.currency}")
    return out
