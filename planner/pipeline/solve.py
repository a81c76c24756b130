"""From validated inputs to a Plan: pairs -> prune -> LP -> run -> check -> plan.

`solve_inputs` is the pipeline every command uses. A what-if scenario passes the base's
`WarmStart` (warm.py), and its solve takes what the edit leaves alone from it, by value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import KW_ONLY, dataclass

import numpy as np

from planner.core.errors import InputError, Setting, SolverError
from planner.core.timing import OutOfTime, deadline, log, no_deadline, seconds_left, timed
from planner.model.load import Inputs
from planner.optimize.backends import RESOLVE, WARM_START, backend, can, pick_solver
from planner.optimize.lp import LinearProgram, Switching, build_problem, check_rows, switching_of
from planner.optimize.pairs import Pairs, build_pairs
from planner.optimize.prune import candidates
from planner.optimize.solver import SolveResult, relax_lp, settled, solve_lp, solve_warm
from planner.pipeline.warm import WarmStart
from planner.plan.assemble import PlanParts, Review, build_plan, main_options, plan_parts
from planner.plan.model import Deployability, Plan, VendorOutage
from planner.plan.wording import BudgetAlone, deployability_figure
from planner.review import contracts, insight, prices
from planner.review.risks import risks


@dataclass(frozen=True)
class SolveOptions:
    """How to solve: the solver ("auto", "highs", "cbc"); review: also the vendor-review figures that need
    more than the plan itself (break-even prices, baselines, commitment savings); resilience: also the
    outage table; prune=False sends every eligible pair to the solver (the plan is the same; for tests and
    benchmarks); time_limit: seconds the whole solve may take (the integer search stops with the best plan
    found, status `feasible` unless proven, and a review cut short says so)."""

    solver: str = "auto"
    _: KW_ONLY
    review: bool = True
    resilience: bool = True
    prune: bool = True
    time_limit: float | None = None


def solve(inputs: Inputs, options: SolveOptions = SolveOptions()) -> Plan:
    """The plan for the inputs: the cheapest routing meeting every rule, or the diagnosis of why none does."""
    with deadline(options.time_limit):
        return _solve(inputs, options)[0]


def solve_inputs(
    inputs: Inputs,
    solver: str = "auto",
    *,
    scenario: str | None = None,
    start: WarmStart | None = None,
    review: bool = True,
    resilience: bool = True,
    prune: bool = True,
    time_limit: float | None = None,
) -> Plan:
    """solve() with the options spelled out, and for a what-if scenario its name and `start`: a solved base
    of similar inputs, whose tables and routing the solve starts from."""
    options = SolveOptions(solver, review=review, resilience=resilience, prune=prune, time_limit=time_limit)
    with deadline(time_limit):
        return _solve(inputs, options, scenario, start)[0]


def solve_base(inputs: Inputs, solver: str = "auto") -> tuple[Plan, WarmStart]:
    """solve(), and what scenarios of the same files can start from."""
    plan, pairs, cand = _solve(inputs, SolveOptions(solver))
    return plan, WarmStart.of(inputs, pairs, cand, plan)


@dataclass
class _Solved:
    """What the stages of one solve hand on: the tables, the LP and its cleaned solution."""

    inputs: Inputs
    options: SolveOptions
    solver: str
    pairs: Pairs
    cand: np.ndarray  # W x O: the pairs the LP was given
    in_lp: np.ndarray  # the workloads with an eligible option
    switching: Switching | None
    lp: LinearProgram
    result: SolveResult
    share: np.ndarray
    extra: np.ndarray
    activities: np.ndarray
    cut: list[str]  # the parts of the review the time limit left out
    full: LinearProgram | None = None
    repricing: prices.Repricing | None = None  # the LP held for break-even re-solves (the company rows too)
    said: list[str] = dataclasses.field(default_factory=list)  # assumptions the review figures add

    def full_lp(self) -> LinearProgram:
        """The unpruned LP, built at most once and only when asked for."""
        if self.full is None:
            self.full = self.lp if not self.options.prune else insight.full_problem(self.inputs, self.pairs)
        return self.full


def _solve(
    inputs: Inputs, options: SolveOptions, scenario: str | None = None, start: WarmStart | None = None
) -> tuple[Plan, Pairs, np.ndarray]:
    """The pipeline, optimize -> review -> assemble: the workload x option table, pruned; the LP, solved
    and checked; the plan's parts made from it; the review, which reads those parts; then the Plan,
    built once from the parts and the review's findings."""
    solver = pick_solver(options.solver)
    pairs, changed, cand, switching = _tables(inputs, options, start)
    s = _optimum(inputs, options, solver, pairs, cand, switching, start)
    with timed("review"):
        break_even, curves, known = _review_figures(s, start, changed)
    budget = _budget_alone(s) if _budget_relaxed(s) else None
    baselines = None
    if options.review:
        with timed("baselines"):
            baselines = insight.baselines(inputs, pairs)
    with timed("plan"):
        parts = plan_parts(
            inputs,
            pairs,
            s.lp,
            s.share,
            s.result,
            s.activities,
            solver=backend(solver).name,
            scenario=scenario,
            break_even=break_even,
            curves=curves,
            known_rejections=start.known_rejections(changed) if start else None,
            known_records=known,
            extra=s.extra,
            time_limit=options.time_limit,
            budget_alone=budget,
            baselines=baselines,
        )
    return build_plan(parts, _review(parts, s)), pairs, cand


def _tables(inputs: Inputs, options: SolveOptions, start: WarmStart | None):
    """The workload x option table (from the start's where given), the pairs the LP gets, and the
    switching costs (a workload's old routes are kept through pruning)."""
    ws, catalog = inputs.workloads, inputs.catalog
    with timed("pairs"):
        pairs, changed = (
            start.pairs_for(inputs) if start else (build_pairs(ws, catalog, distributions=inputs.distributions), None)
        )
    with timed("prune"):
        if not options.prune:
            cand = pairs.eligible
        elif start:
            cand = start.candidates_for(inputs, pairs, changed)
        else:
            cand = candidates(ws, catalog, pairs)
        switching = switching_of(inputs, pairs)
        cand = cand | (pairs.eligible & protected(pairs, switching))
    return pairs, changed, cand, switching


def _optimum(inputs: Inputs, options: SolveOptions, solver: str, pairs: Pairs, cand, switching, start) -> _Solved:
    """The LP of the candidate pairs, solved (from the start's routing where given) and checked row by row."""
    in_lp = np.flatnonzero(pairs.eligible_count > 0)
    with timed("lp"):
        lp = build_problem(inputs.workloads, inputs.catalog, pairs, in_lp, cand, switching)
    with timed("solve"):
        result = _run(lp, solver, None if start is None else start.columns(pairs, lp), options.time_limit)
    with timed("check"), no_deadline():
        result, share, extra, activities = _checked(lp, solver, result)
    return _Solved(inputs, options, solver, pairs, cand, in_lp, switching, lp, result, share, extra, activities, [])


def _review_figures(s: _Solved, start: WarmStart | None, changed):
    """What the plan is assembled with beyond the routing: break-even prices, compounding curves, and
    the records a what-if scenario takes from its base."""
    break_even = {}
    if s.options.review and s.result.slack is None and len(s.lp.var_w):
        with _unless_out_of_time(s.cut, "break-even prices"):
            break_even, s.repricing, said = prices.plan_break_even(
                s.pairs, s.lp, s.full_lp, s.share, s.result, s.solver, s.in_lp
            )
            s.said.extend(said)
    main, standard = main_options(s.pairs, s.lp, s.share), insight.standard_options(s.pairs)
    known = {}
    if start is not None:
        known = start.known_records(s.pairs, changed, s.lp, s.share, main, standard, break_even)
        log.debug("plan: %d of %d workload records taken from the start", len(known), s.pairs.shape[0])
    if known:  # their compounding curves are the base's
        main = main.copy()
        main[list(known)] = -1
    return break_even, insight.compounding_many(s.pairs, main, standard), known


def _review(parts: PlanParts, s: _Solved) -> Review:
    """The review's re-solves on the plan's parts: commitments and switches, the outage table, then the
    risks, and what the time limit or the solver left out."""
    contracts = _contracts(parts, s)
    status = parts.status if contracts is None else contracts.status
    said = [*s.said, *([] if contracts is None else contracts.assumptions)]
    outages = _outages(parts, s, status, said)
    companies = []
    if status in ("optimal", "feasible"):
        with timed("company break-evens"), _unless_out_of_time(s.cut, "the companies' break-even prices"):
            companies = prices.company_break_even(s.repricing, [(v.vendor, v.spend) for v in parts.vendors])
    if s.cut:
        said.append(
            f"the time limit ({s.options.time_limit:g} s) was reached during the review: {'; '.join(s.cut)} not "
            "computed (allow more time to see them)"
        )
    deployability = _deployability(parts, s)
    return Review(
        status=status,
        commitments=None if contracts is None else contracts.commitments,
        switching=None if contracts is None else contracts.switching,
        resilience=outages,
        company_break_even=companies,
        risks=risks(parts, outages),
        assumptions=said,
        deployability=deployability,
        diagnosis=[deployability.text]
        if deployability is not None and parts.status == "infeasible" and deployability.unrestricted_cost is not None
        else [],
    )


def _deployability(parts: PlanParts, s: _Solved) -> Deployability | None:
    """With policy.deployable_on, what it costs (SPEC "Deployability"): the cheapest plan meeting every rule
    on any option, re-solved without the gateway's rule, against this one; when no deployable plan exists
    and an unrestricted one does, deployability is why (the diagnosis says so)."""
    gateway = s.pairs.gateway
    if gateway is None:
        return None
    excluded = int((~s.pairs.gateway_ok[0]).sum()) if s.pairs.shape[0] else 0
    figure = Deployability(
        gateway=gateway,
        options_excluded=excluded,
        computed=False,
        text=f"Deployable on {gateway}: the unrestricted optimum was not computed (the time limit)",
    )
    with _unless_out_of_time(s.cut, f"the cost of deployability on {gateway}"):
        figure = deployability_figure(parts, gateway, excluded, _unrestricted_cost(s))
    return figure


def _unrestricted_cost(s: _Solved) -> float | None:
    """What is paid to vendors in the cheapest plan meeting every rule with the gateway's rule lifted (the
    same pruning, switching and solver); None when no such plan exists."""
    inputs, free = s.inputs, s.pairs.without_gateway()
    if (free.eligible_count == 0).any():
        return None
    cand = candidates(inputs.workloads, inputs.catalog, free) if s.options.prune else free.eligible
    switching = switching_of(inputs, free)
    cand = cand | (free.eligible & protected(free, switching))
    lp = build_problem(inputs.workloads, inputs.catalog, free, np.arange(free.shape[0]), cand, switching)
    result = solve_lp(lp, s.solver)
    return lp.money(*settled(lp, result), total_only=True) if result.ok else None


def _contracts(parts: PlanParts, s: _Solved) -> contracts.CommitmentReview | None:
    """The commitments' savings and needs and the switches' (None: not reviewed, or cut short)."""
    inputs = s.inputs
    if not (s.options.review and parts.status != "infeasible" and (parts.commitments or s.switching is not None)):
        return None
    rebuild = lambda other: build_problem(inputs.workloads, other, s.pairs, s.in_lp, s.cand, s.switching)
    with timed("commitments"), _unless_out_of_time(s.cut, "commitment savings and break-evens, switch savings"):
        return contracts.commitment_review(
            parts, inputs, s.pairs, s.lp, s.share, s.extra, s.solver, s.switching, rebuild
        )
    return None


def _outages(parts: PlanParts, s: _Solved, status: str, said: list[str]) -> list[VendorOutage]:
    """The outage table of an optimal plan of not too many pairs, when asked for; with a solver that
    cannot re-solve warm, none, and a sentence in `said` that says so."""
    small = int(s.pairs.eligible.sum()) <= insight.RESILIENCE_MAX_PAIRS
    if not (status == "optimal" and s.options.resilience and small):
        return []
    if not can(s.solver, RESOLVE):
        said.append(
            f"the outage table was not computed: it re-solves the plan warm once per company, which "
            f"{backend(s.solver).name} cannot do (solve with the highs solver to see it)"
        )
        return []
    with timed("outages"), _unless_out_of_time(s.cut, "the outage table"):
        return insight.resilience(s.pairs, parts, s.full_lp(), s.solver)
    return []


def _budget_relaxed(s: _Solved) -> bool:
    """The smallest relaxation raises the budget (by more than its own tolerance)."""
    if s.result.slack is None:
        return False
    rows = [i for i, row in enumerate(s.lp.rows) if row.name == "budget"]
    return any(s.result.slack[i] > 1e-9 for i in rows)


def _budget_alone(s: _Solved) -> BudgetAlone | None:
    """When the smallest relaxation raises the budget, what the budget must be if it alone moves: the
    cheapest plan meeting every other rule (none when other limits must move as well, or a workload has
    no option at all). The smallest relaxation can move a share or a floor instead, which reads as a
    smaller budget. None: not computed (the time limit)."""
    if (s.pairs.eligible_count == 0).any():  # a workload with no option: other limits must move
        return BudgetAlone(None)
    ws = s.inputs.workloads
    free = ws.model_copy(update={"policy": ws.policy.model_copy(update={"budget": None})})
    lp = build_problem(free, s.inputs.catalog, s.pairs, s.in_lp, s.cand)
    with _unless_out_of_time(s.cut, "the budget needed if it alone moves"):
        result = solve_lp(lp, s.solver) if len(lp.var_w) else None
        return BudgetAlone(
            lp.money(*settled(lp, result), total_only=True) if result is not None and result.ok else None
        )
    return None


def protected(pairs: Pairs, switching: Switching | None) -> np.ndarray:
    """W x O: pairs pruning must keep: a workload with a switch cost may stay on its routes although a
    cheaper option dominates them. (Options under a commitment are compared only with options under the
    same one: prune.company_code.)"""
    keep = np.zeros(pairs.shape, dtype=bool)
    if switching is not None:
        applies = np.array([switching.applies(w) for w in range(pairs.shape[0])], dtype=bool)
        keep |= switching.old & applies[:, None]
    return keep


@contextmanager
def _unless_out_of_time(cut: list[str], part: str) -> Iterator[None]:
    """A part of the review, left out (and named in `cut`) when the command's time limit passes in it."""
    try:
        yield
    except OutOfTime:
        log.debug("review: %s cut short by the time limit", part)
        cut.append(part)


def _run(lp: LinearProgram, solver: str, start: np.ndarray | None, time_limit: float | None = None) -> SolveResult:
    """The LP's optimum (by sifting from `start` where given), or its smallest relaxation. The optimum's
    integer search stops at what is left of the time limit (the plan is the best found by then); the
    relaxation shares the limit, and one it cuts short is an input error."""
    if not len(lp.var_w):
        return SolveResult(True, "Optimal", np.zeros(0), extra=np.zeros(len(lp.extras)))
    result = None
    left = seconds_left()
    no_time = InputError.single(
        Setting("time_limit"), "", f"{time_limit or 0:g} s: no plan found in that time; allow more (or leave it out)"
    )
    if left is not None and left <= 0:
        raise no_time
    with no_deadline():
        if start is not None and can(solver, WARM_START) and not lp.integer:
            result = solve_warm(lp, solver, start)  # None: solve the whole LP
            log.debug(
                "solve: sifting from the start's routing %s",
                "settled" if result is not None else "gave no answer; the whole LP is solved",
            )
        if result is None:
            result = solve_lp(lp, solver, time_limit=left)
    if not result.ok and left is not None and result.status != "Infeasible":
        raise no_time
    if not result.ok:
        try:
            result = relax_lp(lp, solver)
        except OutOfTime:
            raise InputError.single(
                Setting("time_limit"),
                "",
                f"{time_limit or 0:g} s: no plan meets every rule, and the search for the smallest change that "
                "would give one did not finish in that time; allow more (or leave it out) to see what it lacks",
            ) from None
        if not result.ok:
            raise SolverError(f"the solver could not solve the relaxed problem ({result.status})")
    return result


def _checked(lp: LinearProgram, solver: str, result: SolveResult):
    """The cleaned shares, checked on every row (a plan never claims a constraint it breaks): with CBC,
    HiGHS gives a second opinion before the plan is refused."""
    share, extra = settled(lp, result)
    activities = lp.activities(share, extra)
    violations = check_rows(lp, share, result.slack, activities)
    if violations and solver != "highs":
        retry = solve_lp(lp, "highs") if result.slack is None else relax_lp(lp, "highs")
        if retry.ok:
            share2, extra2 = settled(lp, retry)
            if not check_rows(lp, share2, retry.slack, extra=extra2):
                result, share, extra, violations = retry, share2, extra2, []
                activities = lp.activities(share, extra)
    if violations:
        spread = _spread(lp)
        raise SolverError(
            "the solver's answer violates constraints ("
            + "; ".join(violations[:3])
            + ")"
            + (
                f"; costs per task span {spread:.0f} orders of magnitude, more than the solver's "
                "tolerances carry: check the inputs for a typo"
                if spread > 9
                else ""
            )
        )
    return result, share, extra, activities


def _spread(lp: LinearProgram) -> float:
    positive = lp.spend[lp.spend > 0]
    return float(np.log10(positive.max() / positive.min())) if len(positive) else 0.0
