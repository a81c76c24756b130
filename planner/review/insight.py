"""What a vendor review asks of a plan: baselines, the compounding curve and the outage table (the
break-even prices are in review.prices, the contracts' re-solves in review.contracts).

Everything here reads the pair table, the solved LP and the plan's assembled parts, and returns plain
figures the Plan is built with, so the report and the JSON carry the same numbers.
"""

from __future__ import annotations

import numpy as np

from planner.core.fmt import count
from planner.model.load import Inputs
from planner.optimize import backends
from planner.optimize.lp import MONEY_FAMILIES, LinearProgram, build_problem, switching_of
from planner.optimize.pairs import Pairs, task_latency
from planner.plan.assemble import PlanParts
from planner.plan.model import Baseline, VendorOutage

RESILIENCE_MAX_PAIRS = 30_000  # above this many eligible pairs, the solve skips the outage table


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


# ----------------------------------------------------------------------------- the unpruned LP


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
