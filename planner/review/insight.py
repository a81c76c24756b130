"""What a vendor review asks of a plan: baselines, break-even prices, the compounding curve and the
outage table (the contracts' re-solves are in review.contracts).

Everything here reads the pair table, the solved LP and the plan's assembled parts, and returns plain
figures the Plan is built with, so the report and the JSON carry the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from planner.core.arrays import dot
from planner.core.fmt import count
from planner.model.load import Inputs
from planner.optimize import backends
from planner.optimize.lp import MONEY_FAMILIES, LinearProgram, build_problem, clean_shares, switching_of
from planner.optimize.pairs import Pairs, task_latency
from planner.optimize.solver import SolveResult, solve_lp
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


def resilience(pairs: Pairs, parts: PlanParts, lp: LinearProgram, solver: str) -> list[VendorOutage]:
    """For each company the plan depends on (it bills or serves an option in use, in its assembled
    parts): the cost of a plan without everything it bills or serves (one warm re-solve each of the
    full LP, held in the solver's backend, which must be able to re-solve: backends.resolver) and the
    workloads that would have no eligible option left."""
    if not parts.vendors or len(lp.var_w) > RESILIENCE_MAX_PAIRS:
        return []
    in_lp = np.unique(lp.var_w)
    resolver = backends.resolver(solver, lp, why="the outage table")
    cover_rows = {r.name.split(":", 1)[1]: i for i, r in enumerate(lp.rows) if r.family == "cover"}
    ids = pairs.workloads.ids
    cost_by_w = {w.id: w.cost for w in parts.workloads}
    out = []
    for v in parts.vendors:
        upper = (~pairs.options.down_without(v.vendor)[lp.var_o]).astype(float)
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
