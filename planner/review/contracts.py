"""What a quarterly review's re-solves say of a plan's contracts (SPEC v1.6): each signed commitment's
saving, what an unsigned one would need to pay, and with --from the switches made and declined.

Read from the plan's assembled parts (plan.assemble.PlanParts) and the solved LP, before the Plan is
built; the figures returned are the plan's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from planner.core.fmt import money, option, percent
from planner.model.load import Inputs
from planner.model.schema import MINUTES_PER_PERIOD
from planner.optimize.lp import LinearProgram, Switching
from planner.optimize.pairs import Pairs
from planner.optimize.solver import settled, solve_lp
from planner.plan.assemble import PlanParts

REVIEW_WORK = 200_000  # columns x re-solves the review below may spend; beyond it, its figures are skipped
NOT_WORSE_TOL = 1e-6  # relative: a re-solve cheaper than the plan by more than this means the plan is not optimal
HALF_CENT = 0.005  # money a period below this in a sentence is solver noise: written as none
NEWTON_STEPS = 4  # re-solves spent refining one commitment's break-even fee or discount


@dataclass
class CommitmentReview:
    """What the review's re-solves say of a plan's contracts: the commitment records with their savings
    and needs, the switching moves, what the plan must say it did not compute, and its status (an
    integer answer found costlier than a re-solve is `feasible`, never `optimal`)."""

    commitments: list | None
    switching: object | None
    assumptions: list[str]
    status: str


def commitment_review(
    parts: PlanParts,
    inputs: Inputs,
    pairs: Pairs,
    lp: LinearProgram,
    share: np.ndarray,
    extra: np.ndarray,
    solver: str,
    switching: Switching | None,
    rebuild: Callable,
) -> CommitmentReview:
    """The figures of a quarterly review that only re-solves give (SPEC v1.6), read off the plan's
    assembled parts (which are not changed): each signed commitment's saving (the plan re-solved
    without it), what an unsigned one would need (its fee or discount, refined by re-solves until the
    plan that signs it costs what today's does), and, with --from, the moves made and declined with
    their savings. rebuild: the LP of another catalog (the same offerings, other terms)."""
    uses = [use.model_copy() for use in parts.commitments or ()]
    said: list[str] = []
    status = parts.status
    solves = sum(1 if use.signed else NEWTON_STEPS for use in uses) + 2 * (switching is not None)
    resolving = len(lp.var_w) * solves <= REVIEW_WORK
    if not resolving:
        said.append(
            f"commitment savings, break-evens and the savings of switches not computed: {solves} re-solves of "
            f"{len(lp.var_w):,} columns each, over the {REVIEW_WORK:,} column-solves the review allows"
        )
    best = lp.money(share, extra)
    ws = inputs.workloads
    for use in uses if resolving else ():
        c = next(x for x in inputs.catalog.commitments if x.id == use.id)
        kinds = ("units",) if c.reserved else ("signed",)
        cols = [lp.n + k for kind in kinds if (k := lp.extras.index(kind, c.id)) is not None]
        if not cols:  # nothing it covers can take part in the plan
            use.text = "covers no option any workload may use: never worth signing here"
            continue
        if use.signed:
            lower, upper = lp.bounds()
            upper[cols] = 0.0
            without = _resolve_money(lp, solver, lower, upper)
            if without is not None and without < best * (1 - NOT_WORSE_TOL) - 0.01 and status == "optimal":
                # the integer search's plan costs more than one it could have chosen: never called optimal
                status = "feasible"
                said.append(
                    f"not proven optimal: the plan without commitment {use.id} costs "
                    f"{money(best - without, parts.currency)} less than the integer search's answer (its terms "
                    "strain the solver's tolerances: check its unit size and max_units)"
                )
            use.saving = None if without is None else max(0.0, without - best)
            use.text = _signed_text(use, parts.currency, parts.period)
        else:
            use.needs = _needs(rebuild, inputs.catalog, solver, c, best, ws.period, parts.currency)
            use.text = use.needs.text
    moves = None
    if switching is not None and inputs.previous is not None:
        moves = _switch_info(parts, inputs, pairs, lp, share, extra, solver, switching, resolving=resolving)
    return CommitmentReview(uses if parts.commitments is not None else None, moves, said, status)


def _resolve(lp: LinearProgram, solver: str, lower: np.ndarray, upper: np.ndarray):
    result = solve_lp(lp, solver, lower=lower, upper=upper)
    if not result.ok:
        return None
    return settled(lp, result)


def _resolve_money(lp: LinearProgram, solver: str, lower: np.ndarray, upper: np.ndarray) -> float | None:
    got = _resolve(lp, solver, lower, upper)
    return None if got is None else lp.money(*got)


def _noise_free(x: float) -> float:
    """Money a period as a sentence states it: under half a cent (solver noise) is none."""
    return 0.0 if abs(x) < HALF_CENT else x


def _signed_text(use, currency: str, period: str) -> str:
    saving = (
        ""
        if use.saving is None
        else f"; saves {money(_noise_free(use.saving), currency)} a {period} against pay-as-you-go"
    )
    if use.kind == "reserved":
        be = use.break_even_utilization
        return f"{use.units} of {use.max_units} units, {percent(use.utilization or 0.0)} used on average{saving}" + (
            "" if be is None else f"; pays while average use stays above {percent(be)}"
        )
    return (
        f"signed: {money(use.list_spend or 0.0, currency)} list spend discounted {percent(use.discount or 0.0)}{saving}"
        f"; stops paying below {money(use.break_even_spend or 0.0, currency)} of list spend a {period}"
    )


def _with_moneys(lp: LinearProgram, cols: np.ndarray, money_per_unit: float) -> LinearProgram:
    """The same LP with the money of some extra columns changed (what the objective reads)."""
    ex = lp.extras
    new = ex.money.copy()
    new[np.asarray(cols, dtype=int) - lp.n] = money_per_unit
    return dataclasses.replace(lp, extras=dataclasses.replace(ex, money=new))


def _needs(rebuild: Callable, catalog, solver: str, c, best: float, period: str, currency: str):
    """What an unsigned commitment would need for signing it to pay. The plan is re-solved with it signed
    (at least one unit) and its fee (reserved) or discount (committed spend) moved until that plan costs
    what today's does: each step re-solves at the new terms and moves by the gap over the plan's units
    (or the list spend it discounts), so the steps rise to the break-even from the side where signing
    pays, and each figure is one at which signing does pay."""
    from planner.plan.model import CommitmentBreakEven

    def signed_at(term: float):
        changed = (
            c.model_copy(update={"unit": c.unit.model_copy(update={"fee": term})})
            if c.reserved
            else c.model_copy(update={"discount": term})
        )
        commitments = [changed if x.id == c.id else x for x in catalog.commitments]
        lp = rebuild(catalog.model_copy(update={"commitments": commitments}))
        k = lp.extras.index("units" if c.reserved else "signed", c.id)
        lower, upper = lp.bounds()
        lower[lp.n + k] = 1.0
        got = _resolve(lp, solver, lower, upper)
        return None if got is None else (lp, k, *got)

    own = c.period or period
    per_plan = MINUTES_PER_PERIOD[period] / MINUTES_PER_PERIOD[own]  # a fee per its period -> per the plan's
    term = c.unit.fee if c.reserved else c.discount
    exact, units, listed = False, None, None
    for _ in range(NEWTON_STEPS):
        got = signed_at(term)
        if got is None:
            return CommitmentBreakEven(exact=False, text="no plan can sign it")
        lp, k, share, extra = got
        gap = lp.money(share, extra) - best
        if c.reserved:
            units = int(round(extra[k]))
            if abs(gap) <= 1e-7 * max(1.0, abs(best)):
                exact = True
                break
            term = term - gap / (max(units, 1) * per_plan)
            if term <= 0:
                term, exact = 0.0, True
                break
        else:
            listed = float(extra[lp.extras.index("discounted", c.id)]) * lp.scale
            shortfall = float(extra[lp.extras.index("shortfall", c.id)]) * lp.scale
            if abs(gap) <= 1e-7 * max(1.0, abs(best)):
                exact = True
                break
            if listed <= 0 or shortfall > 1e-9 * max(1.0, listed):  # the minimum binds: a discount cannot help
                return _minimum_binds(c, gap, shortfall, listed, term, period, own, currency)
            term = term + gap / listed
            if term >= 1:
                return CommitmentBreakEven(exact=True, text="not signed: no discount below 100% makes it pay")
    return _needed(c, term, units, listed, period, own, currency, exact=exact)


def _minimum_binds(c, gap: float, shortfall: float, listed: float, term: float, period: str, own: str, currency: str):
    """An unsigned spend contract whose minimum binds in the plan that signs it: the minimum, if any, at
    which it pays (a discount cannot help)."""
    from planner.plan.model import CommitmentBreakEven

    per_plan = MINUTES_PER_PERIOD[period] / MINUTES_PER_PERIOD[own]
    minimum = c.per_period(c.min_spend, period)
    lower_min = minimum - gap if shortfall >= gap else None
    if lower_min is not None:
        lower_min = _noise_free(lower_min / per_plan) * per_plan
    if lower_min is None or lower_min < 0:
        pays = "no discount makes it pay"
    elif lower_min == 0:
        pays = "it pays only with no minimum at all"
    else:
        pays = f"it pays with a minimum of {money(lower_min / per_plan, currency)} a {own} or less"
    text = (
        f"not signed: its minimum of {money(minimum, currency)} a {period} costs more than it saves "
        f"(at {percent(term)} off, the plan that signs it discounts {money(listed, currency)} of list "
        "spend and still pays the minimum); " + pays
    )
    return CommitmentBreakEven(min_spend=None if lower_min is None else lower_min / per_plan, exact=True, text=text)


def _needed(c, term: float, units, listed, period: str, own: str, currency: str, *, exact: bool):
    """The fee (reserved) or discount (spend) at which signing pays, in words."""
    from planner.plan.model import CommitmentBreakEven

    if c.reserved:
        if term < HALF_CENT:
            return CommitmentBreakEven(
                fee=0.0, units=units, exact=exact, text=f"not bought: even free, {units} unit(s) would not pay"
            )
        text = (
            f"not bought: it pays at a fee of {money(term, currency)} a unit a {own} or less "
            f"(now {money(c.unit.fee, currency)}), buying {units} unit(s)"
        )
        return CommitmentBreakEven(fee=float(f"{term:.6g}"), units=units, exact=exact, text=text)
    text = (
        f"not signed: it pays at a discount of {percent(term)} or more (now {percent(c.discount)}) on "
        f"{money(listed or 0.0, currency)} of list spend a {period}"
    )
    return CommitmentBreakEven(discount=float(f"{term:.6g}"), exact=exact, text=text)


def _switch_info(
    parts: PlanParts,
    inputs: Inputs,
    pairs: Pairs,
    lp: LinearProgram,
    share,
    extra,
    solver: str,
    switching,
    *,
    resolving: bool,
):
    """Moves made and declined against the previous plan: two re-solves (when `resolving`), one where every
    switch is free (the moves the switch costs declined) and one where none may switch (what each move
    saves); without them, the moves made with no saving figure."""
    from planner.plan.commitments import commitment_terms
    from planner.plan.model import SwitchInfo, SwitchMove

    ids = {w.id: i for i, w in enumerate(inputs.workloads.workloads)}
    previous = inputs.previous or {}
    by_id = {w.id: w for w in parts.workloads}

    def per_workload(s: np.ndarray, e: np.ndarray) -> np.ndarray:
        factor = commitment_terms(inputs, pairs, lp, s, e)[0] if inputs.catalog.commitments else 1.0
        return np.bincount(lp.var_w, lp.spend * factor * s, minlength=len(ids))

    now = per_workload(share, extra)
    kinds = np.array(lp.extras.kind)
    sw_cols = lp.n + np.flatnonzero(kinds == "switch") if len(kinds) else np.zeros(0, dtype=int)
    free, stay = None, None
    if len(sw_cols) and resolving:
        free = _resolve(_with_moneys(lp, sw_cols, 0.0), solver, *lp.bounds())
        lower, upper = lp.bounds()
        upper[sw_cols] = 0.0
        stay = _resolve(lp, solver, lower, upper)
    free_cost = per_workload(*free) if free is not None else None
    stay_cost = per_workload(*stay) if stay is not None else None
    info = SwitchInfo(from_plan=inputs.previous_file or "")
    for wid, w in ids.items():
        wp = by_id.get(wid)
        before = previous.get(wid)
        if not before:
            info.new.append(wid)
            continue
        if wp is None or not wp.allocations:
            continue
        after = {a.route for a in wp.allocations}
        cost = float(switching.cost[w]) if not np.isnan(switching.cost[w]) else 0.0
        eligible_before = switching.old[w][lp.var_o[lp.var_w == w]].any()
        labels = lambda routes: sorted(option(o, m, t) for o, m, t in routes)
        if not eligible_before:
            info.forced.append(wid)
        if after - set(before):
            saving = float(stay_cost[w] - now[w]) if stay_cost is not None else None
            info.moved.append(
                SwitchMove(workload=wid, switch_cost=cost, saving=saving, before=labels(before), after=labels(after))
            )
            info.cost += cost if switching.applies(w) else 0.0
        elif free is not None and switching.applies(w):
            fs, _ = free
            cols = np.flatnonzero((lp.var_w == w) & (fs > 0))
            opts = pairs.options
            routes = {(opts.offering_id[o], opts.mode[o], opts.sale[o]) for o in lp.var_o[cols].tolist()}
            saving = float(now[w] - free_cost[w])
            if routes - set(before) and saving > 0:
                info.declined.append(
                    SwitchMove(
                        workload=wid, switch_cost=cost, saving=saving, before=labels(before), after=labels(routes)
                    )
                )
    info.declined.sort(key=lambda m: (-m.saving, m.workload))
    return info
