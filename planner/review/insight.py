"""What a vendor review asks of a plan: baselines, break-even prices and the compounding curve.

Everything here reads the pair table, the solved LP and the plan's assembled parts, and returns plain
figures the Plan is built with, so the report and the JSON carry the same numbers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from planner.core.arrays import dot
from planner.core.fmt import count, money, option, percent
from planner.model.load import Inputs
from planner.model.schema import MINUTES_PER_PERIOD
from planner.optimize.lp import MONEY_FAMILIES, LinearProgram, Switching, build_problem, clean_shares, switching_of
from planner.optimize.pairs import Pairs, task_latency
from planner.optimize.resolve import Resolver
from planner.optimize.solver import SolveResult, settled, solve_lp
from planner.plan.assemble import PlanParts
from planner.plan.model import Baseline, BreakEven, VendorOutage

RESILIENCE_MAX_PAIRS = 30_000  # above this many eligible pairs, the solve skips the outage table

UNUSED_PER_WORKLOAD = 5  # break-even rows for eligible but unused options, per workload


# ----------------------------------------------------------------------------- baselines


def baselines(inputs: Inputs, pairs: Pairs) -> list[Baseline]:
    """The cheapest single option for everything; everything on the standard tier; on the fastest tier."""
    opts = pairs.options
    wa = pairs.workloads
    W, O = pairs.shape
    out = []
    spend = wa.tasks[:, None] * pairs.cost_per_task
    misses = (~pairs.eligible).sum(axis=0)
    # baselines are what people compare with: an offering at its list price, as you go (no tier, no contract)
    misses = np.where(opts.listed, misses, np.iinfo(np.int64).max)
    o = int(np.lexsort((np.arange(O), spend.sum(axis=0), misses))[0])
    out.append(_baseline(inputs, pairs, "single", f"everything on {opts.label(o)}", np.full(W, o)))
    tiers = sorted(set(opts.tier))
    if "standard" in tiers:
        out.append(
            _baseline(inputs, pairs, "standard", "everything on the standard tier", _per_tier(pairs, "standard"))
        )
    speed = {
        t: float(np.median(opts.output_tps[[i for i in range(O) if opts.tier[i] == t and opts.listed[i]]]))
        for t in tiers
    }
    fastest = "fast" if "fast" in tiers else max(tiers, key=lambda t: (speed[t], t))
    if fastest != "standard":
        fast = _baseline(
            inputs, pairs, "fastest", f"everything on the fastest tier ({fastest})", _per_tier(pairs, fastest)
        )
        if [c.option for c in fast.choices] != [c.option for c in out[0].choices]:
            out.append(fast)
    return out


def _per_tier(pairs: Pairs, tier: str) -> np.ndarray:
    """Per workload: the cheapest eligible option of the tier, else the cheapest that passes the most rules."""
    cand = np.flatnonzero(np.array([t == tier for t in pairs.options.tier]) & pairs.options.listed)
    rules = (
        pairs.vendor_ok[:, cand].astype(int)
        + pairs.region_ok[:, cand]
        + pairs.context_ok[:, cand]
        + pairs.capability_ok[:, cand]
        + pairs.within_budget[:, cand]
    )
    W = pairs.shape[0]
    key = np.lexsort(
        (np.broadcast_to(cand, (W, len(cand))), pairs.cost_per_task[:, cand], -rules, ~pairs.eligible[:, cand]), axis=-1
    )
    return cand[key[:, 0]]


def _baseline(inputs: Inputs, pairs: Pairs, key: str, label: str, choice: np.ndarray) -> Baseline:
    wa, opts = pairs.workloads, pairs.options
    W = len(choice)
    rows = np.arange(W)
    n_off = len(inputs.catalog.offerings)
    off = opts.offering_index[choice]
    tpm = np.bincount(off, weights=pairs.peak_tpm[rows, choice], minlength=n_off)
    rpm = np.bincount(off, weights=pairs.peak_rpm[rows, choice], minlength=n_off)
    reasons = pairs.reasons_many(rows, choice)
    inside = pairs.within_share[rows, choice]
    over = (inside < wa.within_budget_share) & (wa.within_budget_share < 1)
    cost = wa.tasks * pairs.cost_per_task[rows, choice]
    choices = []
    for w, o in enumerate(choice.tolist()):
        if over[w] and wa.sampled[w]:
            reasons[w].append(
                f"latency within budget for {inside[w]:.0%} of sample tasks (needs {wa.within_budget_share[w]:.0%})"
            )
        elif over[w]:
            reasons[w].append(f"latency over budget for every task (needs {wa.within_budget_share[w]:.0%} within)")
        choices.append(dict(workload=wa.ids[w], option=opts.label(o), cost=float(cost[w]), misses=reasons[w]))
    capacity_notes = []
    for i in np.unique(off).tolist():  # offerings in catalog order
        o = inputs.catalog.offerings[i]
        cap = o.capacity
        if cap and cap.tokens_per_minute and tpm[i] > cap.tokens_per_minute:
            capacity_notes.append(
                f"capacity: {o.id} needs {count(tpm[i])} tokens/min at peak, has {count(cap.tokens_per_minute)}"
            )
        if cap and cap.requests_per_minute and rpm[i] > cap.requests_per_minute:
            capacity_notes.append(
                f"capacity: {o.id} needs {count(rpm[i])} requests/min at peak, has {count(cap.requests_per_minute)}"
            )
    if capacity_notes:
        choices.append(dict(workload="(portfolio)", option=None, cost=0.0, misses=capacity_notes))
    return Baseline.model_validate(
        dict(
            key=key,
            label=label,
            total_cost=float(sum(c["cost"] for c in choices)),
            misses=sum(1 for c in choices if c["misses"]),
            choices=choices,
        )
    )


# ----------------------------------------------------------------------------- compounding


def standard_options(pairs: Pairs) -> np.ndarray:
    """Per workload, the cheapest (then fastest) standard-tier option meeting its rules other than
    latency, or -1."""
    opts = pairs.options
    rules = pairs.vendor_ok & pairs.region_ok & pairs.context_ok & pairs.capability_ok
    rules = rules & opts.standard_tier & opts.listed
    cost = np.where(rules, pairs.cost_per_task, np.inf)
    cheapest = rules & (cost == cost.min(axis=1, keepdims=True))
    lat = np.where(cheapest, pairs.latency_s, np.inf)
    first = np.argmax(cheapest & (lat == lat.min(axis=1, keepdims=True)), axis=1)  # then catalog order
    return np.where(rules.any(axis=1), first, -1)


def compounding_many(pairs: Pairs, chosen: np.ndarray, standard: np.ndarray | None = None) -> dict[int, dict]:
    """Per multi-turn workload with a chosen option (chosen[w] >= 0): latency against turns (1 to twice
    the workload's, at least 12, at most 40) for the chosen option and for the standard-tier option of
    `standard_options` (given, or found here), when there is one."""
    wa, opts = pairs.workloads, pairs.options
    ws = np.flatnonzero((wa.turns > 1) & (chosen >= 0))
    if len(ws) == 0:
        return {}
    standard = (standard_options(pairs) if standard is None else standard)[ws]
    length = np.minimum(40, np.maximum(12, 2 * wa.turns[ws])).astype(int)
    n = np.arange(1, int(length.max()) + 1)[None, :]

    def curves(o: np.ndarray) -> list[list[float]]:
        o = np.maximum(o, 0)
        lat = task_latency(
            pairs.call_s[ws, o][:, None],
            pairs.first_token_s[ws, o][:, None],
            n,
            wa.tool_latency_s[ws][:, None],
            wa.streaming[ws][:, None],
        )
        return np.round(lat, 6).tolist()

    chosen_curves, standard_curves = curves(chosen[ws]), curves(standard)
    out = {}
    for k, w in enumerate(ws.tolist()):
        m = int(length[k])
        has_std = standard[k] >= 0
        out[w] = dict(
            turns=list(range(1, m + 1)),
            chosen=opts.label(int(chosen[w])),
            chosen_latency_s=chosen_curves[k][:m],
            standard=opts.label(int(standard[k])) if has_std else None,
            standard_latency_s=standard_curves[k][:m] if has_std else None,
        )
    return out


# ----------------------------------------------------------------------------- break-even prices


def full_problem(inputs: Inputs, pairs: Pairs) -> LinearProgram:
    """The LP over every eligible pair, unpruned: what break-even prices and outages are read from."""
    return build_problem(
        inputs.workloads,
        inputs.catalog,
        pairs,
        np.flatnonzero(pairs.eligible_count > 0),
        pairs.eligible,
        switching_of(inputs, pairs),
    )


def reduced_costs(full: LinearProgram, lp: LinearProgram, duals: dict[str, float]) -> tuple[np.ndarray, np.ndarray]:
    """Reduced costs of every column of the full LP (pruned pairs included) from the solved LP's duals.

    Returns d (in lp's scaled money per unit share, tie-break excluded) and the rate at which d
    falls as the option's prices scale up together (money rows scale with the price too).
    """
    money = full.spend / lp.scale
    acc = np.zeros(len(money))
    acc_money = np.zeros(len(money))
    for row in full.rows:
        y = duals.get(row.name)
        if not y:
            continue
        coefs = row.coefs * (full.scale / lp.scale) if row.family in MONEY_FAMILIES else row.coefs
        on = row.cols < full.n  # the share columns (a row may name extras: units, contracts, switches)
        cols, coefs = row.cols[on], coefs[on]
        np.add.at(acc, cols, coefs * y)
        if row.family in MONEY_FAMILIES:
            np.add.at(acc_money, cols, coefs * y)
    return money - acc, money - acc_money


def break_even(
    pairs: Pairs,
    lp: LinearProgram,
    full: LinearProgram,
    share: np.ndarray,
    duals: dict[str, float],
    workloads: np.ndarray,
) -> dict[int, list[dict]]:
    """LP plans: for each unused eligible option, the uniform price change (a cut) at which its reduced
    cost reaches zero, so it would take part of the workload; for each used option, how far its
    prices can rise before the best unused alternative's reduced cost reaches zero."""
    d, slope = reduced_costs(full, lp, duals)
    opts, wa = pairs.options, pairs.workloads
    W, O = pairs.shape
    used_share = np.zeros((W, O))
    used_share[lp.var_w, lp.var_o] = share
    fw, fo = full.var_w, full.var_o
    cpt = pairs.cost_per_task[fw, fo]
    us = used_share[fw, fo]
    used = us > 0
    per_task = lp.scale / wa.tasks[fw]
    d_task = np.maximum(d, 0.0) * per_task  # money per task
    with np.errstate(divide="ignore", invalid="ignore"):
        cut = np.where((slope > 0) & (cpt > 0), -np.maximum(d, 0.0) / slope, np.nan)
    cut[cut <= -1] = np.nan
    best_alt = np.full(W, np.inf)  # cheapest unused alternative's reduced cost per task
    np.minimum.at(best_alt, fw[~used], d_task[~used])
    wanted = np.zeros(W, dtype=bool)
    wanted[np.asarray(workloads, dtype=int)] = True
    pos = np.arange(len(fw))
    # used options, largest share first; then up to UNUSED_PER_WORKLOAD unused ones, nearest cut first
    u = np.flatnonzero(used & wanted[fw])
    u = u[np.lexsort((pos[u], -us[u], fw[u]))]
    n = np.flatnonzero(~used & wanted[fw])
    n = n[_top_per_group(fw[n], np.where(np.isnan(cut[n]), -9.0, cut[n]), UNUSED_PER_WORKLOAD)]
    out: dict[int, list[dict]] = {int(w): [] for w in np.flatnonzero(wanted)}
    with np.errstate(divide="ignore", invalid="ignore"):
        up = np.where(np.isfinite(best_alt[fw]) & (cpt > 0), best_alt[fw] / cpt, np.nan)
    for is_used, cols, change in ((True, u, up), (False, n, cut)):
        for j in cols.tolist():
            o = int(fo[j])
            c = float(change[j])
            c = None if np.isnan(c) else c
            out[int(fw[j])].append(
                dict(
                    offering=opts.offering_id[o],
                    mode=opts.mode[o],
                    used=is_used,
                    cost_per_task=float(cpt[j]),
                    break_even_cost_per_task=None if c is None else float(cpt[j]) * (1 + c),
                    price_change=_round(c),
                    **_sold(opts, o),
                )
            )
    return out


def _top_per_group(group: np.ndarray, key: np.ndarray, k: int) -> np.ndarray:
    """Positions of the k largest keys of each group (ties: earliest position first), in the order
    (group, key descending, position); `group` must be sorted. k passes of per-group maxima, which
    beats sorting every pair when k is small."""
    if len(group) == 0:
        return np.zeros(0, dtype=int)
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    lengths = np.diff(np.r_[starts, len(group)])
    key = key.astype(float)  # a copy: taken positions are set to -inf
    pos = np.arange(len(group))
    none = len(group)
    picks, ranks = [], []
    for r in range(k):
        best = np.repeat(np.maximum.reduceat(key, starts), lengths)
        first = np.minimum.reduceat(np.where((key == best) & (key > -np.inf), pos, none), starts)
        first = first[first < none]
        if len(first) == 0:
            break
        picks.append(first)
        ranks.append(np.full(len(first), r))
        key[first] = -np.inf
    picks_all, ranks_all = np.concatenate(picks), np.concatenate(ranks)
    return picks_all[np.lexsort((ranks_all, group[picks_all]))]


def _round(x: float | None) -> float | None:
    return None if x is None else float(f"{x:.6g}")


def plan_break_even(
    pairs: Pairs,
    lp: LinearProgram,
    full: Callable[[], LinearProgram],
    share: np.ndarray,
    result: SolveResult,
    solver: str,
    workloads: np.ndarray,
) -> dict[int, list]:
    """Break-even prices of every workload in `workloads`: from the duals for LP workloads, by
    re-solving for max_options workloads. full: gives the unpruned LP (full_problem)."""
    integer_w = {w for w, _, _ in lp.max_options}
    out: dict[int, list] = {}
    if result.pi:
        duals = {lp.rows[i].name: y for i, y in result.pi.items()}
        lp_w = np.array([w for w in workloads if w not in integer_w], dtype=int)
        out.update(break_even(pairs, lp, full(), share, duals, lp_w))
    total = dot(lp.spend, share)
    for w, cols, _ in lp.max_options:
        out[w] = _break_even_by_resolving(pairs, lp, share, solver, w, cols, total)
    return out


def _break_even_by_resolving(
    pairs: Pairs, lp: LinearProgram, share: np.ndarray, solver: str, w: int, cols: np.ndarray, total: float
) -> list[BreakEven]:
    """Integer workloads: a used option's headroom is the saving it brings (re-solve without it) per
    task it carries; an unused option's break-even is the cut that makes the plan with the whole
    workload on it (re-solved) as cheap as the current one."""
    opts, wa = pairs.options, pairs.workloads
    out = []
    unused = [j for j in cols if share[j] <= 0]
    unused.sort(key=lambda j: (lp.spend[j], j))
    for j in [j for j in cols if share[j] > 0] + unused[:UNUSED_PER_WORKLOAD]:
        o = int(lp.var_o[j])
        cpt = float(pairs.cost_per_task[w, o])
        bounds = np.zeros(len(share))
        if share[j] > 0:
            upper = np.ones(len(share))
            upper[j] = 0.0
            other = solve_lp(lp, solver, upper=upper)
            change = (
                (dot(lp.spend, clean_shares(lp, other.share)) - total) / (wa.tasks[w] * share[j] * cpt)
                if other.ok and cpt > 0
                else None
            )
        else:
            bounds[j] = 1.0
            forced = solve_lp(lp, solver, lower=bounds)
            change = None
            if forced.ok and cpt > 0:
                change = -(dot(lp.spend, clean_shares(lp, forced.share)) - total) / (wa.tasks[w] * cpt)
                change = None if change <= -1 else min(0.0, change)
        out.append(
            BreakEven(
                offering=opts.offering_id[o],
                mode=opts.mode[o],
                used=bool(share[j] > 0),
                cost_per_task=cpt,
                break_even_cost_per_task=None if change is None else cpt * (1 + change),
                price_change=None if change is None else float(f"{change:.6g}"),
                **_sold(opts, o),
            )
        )
    return out


def _sold(opts, o: int) -> dict:
    """A break-even row's price tier and reservation, when it has them (absent otherwise)."""
    out = {}
    if opts.sale[o] != "list":
        out["price_tier"] = opts.sale[o]
    if opts.reserved[o] is not None:
        out["reserved"] = opts.reserved[o]
    return out


# ----------------------------------------------------------------------------- vendor outages


def resilience(pairs: Pairs, parts: PlanParts, lp: LinearProgram) -> list[VendorOutage]:
    """For each company the plan depends on (it bills or serves an option in use, in its assembled
    parts): the cost of a plan without everything it bills or serves (one warm re-solve each of the
    full LP) and the workloads that would have no eligible option left."""
    if not parts.vendors or len(lp.var_w) > RESILIENCE_MAX_PAIRS:
        return []
    in_lp = np.unique(lp.var_w)
    resolver = Resolver(lp)
    cover_rows = {r.name.split(":", 1)[1]: i for i, r in enumerate(lp.rows) if r.family == "cover"}
    ids = pairs.workloads.ids
    cost_by_w = {w.id: w.cost for w in parts.workloads}
    out = []
    for v in parts.vendors:
        upper = (~pairs.options.involving(v.vendor)[lp.var_o]).astype(float)
        alive = np.zeros(pairs.shape[0], dtype=bool)
        np.logical_or.at(alive, lp.var_w, upper > 0)
        lost = [ids[w] for w in in_lp if not alive[w]]
        for wid in lost:  # a workload with nothing left is dropped from the outage plan
            resolver.set_row_bounds(cover_rows[wid], 0.0, 1.0)
        resolver.set_upper(upper)
        point = resolver.run()
        for wid in lost:
            resolver.set_row_bounds(cover_rows[wid], 1.0, 1.0)
        kept = sum(c for wid, c in cost_by_w.items() if wid not in lost)
        change = None
        if point.ok:  # differences within solver tolerance are no change
            change = point.cost - kept
            change = 0.0 if abs(change) <= 1e-7 * max(1.0, abs(kept)) else change
        out.append(
            VendorOutage(
                vendor=v.vendor,
                spend=v.spend,
                feasible=point.ok,
                cost_without=point.cost if point.ok else None,
                change=change,
                lost_workloads=lost,
            )
        )
    resolver.set_upper(np.ones(len(lp.var_w)))
    return out


# ----------------------------------------------------------------------------- commitments and switches

REVIEW_WORK = 200_000  # columns x re-solves the review below may spend; beyond it, its figures are skipped
NOT_WORSE_TOL = 1e-6  # relative: a re-solve cheaper than the plan by more than this means the plan is not optimal
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
        moves = _switch_info(parts, inputs, pairs, lp, share, extra, solver, switching, resolving)
    return CommitmentReview(uses if parts.commitments is not None else None, moves, said, status)


def _resolve(lp: LinearProgram, solver: str, lower: np.ndarray, upper: np.ndarray):
    result = solve_lp(lp, solver, lower=lower, upper=upper)
    if not result.ok:
        return None
    return settled(lp, result)


def _resolve_money(lp: LinearProgram, solver: str, lower: np.ndarray, upper: np.ndarray) -> float | None:
    got = _resolve(lp, solver, lower, upper)
    return None if got is None else lp.money(*got)


def _signed_text(use, currency: str, period: str) -> str:
    saving = "" if use.saving is None else f"; saves {money(use.saving, currency)} a {period} against pay-as-you-go"
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
    return _needed(c, term, units, listed, exact, period, own, currency)


def _minimum_binds(c, gap: float, shortfall: float, listed: float, term: float, period: str, own: str, currency: str):
    """An unsigned spend contract whose minimum binds in the plan that signs it: the minimum, if any, at
    which it pays (a discount cannot help)."""
    from planner.plan.model import CommitmentBreakEven

    per_plan = MINUTES_PER_PERIOD[period] / MINUTES_PER_PERIOD[own]
    minimum = c.per_period(c.min_spend, period)
    lower_min = minimum - gap if shortfall >= gap else None
    text = (
        f"not signed: its minimum of {money(minimum, currency)} a {period} costs more than it saves "
        f"(at {percent(term)} off, the plan that signs it discounts {money(listed, currency)} of list "
        "spend and still pays the minimum); "
        + (
            f"it pays with a minimum of {money(lower_min / per_plan, currency)} a {own} or less"
            if lower_min is not None and lower_min > 0
            else "no discount makes it pay"
        )
    )
    return CommitmentBreakEven(min_spend=None if lower_min is None else lower_min / per_plan, exact=True, text=text)


def _needed(c, term: float, units, listed, exact: bool, period: str, own: str, currency: str):
    """The fee (reserved) or discount (spend) at which signing pays, in words."""
    from planner.plan.model import CommitmentBreakEven

    if c.reserved:
        if term <= 0:
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
