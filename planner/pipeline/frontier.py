"""Cost frontiers: the minimum cost as a latency budget or a capability floor sweeps.

Each sweep builds its LP once, with the swept rule taken out of eligibility, and then only
switches share variables on or off (upper bound 1 or 0) and re-solves warm in HiGHS. With one
workload the sweep moves that workload's budget (every task within it) or floor; without, every
workload's budget is scaled by the same factor, or every floor shifted by the same points.

Each sweep also has today's point: the plan of the unchanged inputs, solved once as `planner solve`
solves it, so its cost is the plan's. With the whole portfolio it is the x1 / +0 point; with one
workload it is that workload's own budget (which may need only a share of its tasks within it) and
its own floors, so it need not lie on the swept curve.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field

import numpy as np

from planner.core.errors import InputError, Setting
from planner.core.fmt import csv_safe
from planner.model.load import Inputs, validate
from planner.model.schema import WorkloadSet
from planner.optimize import backends
from planner.optimize.lp import build_problem
from planner.optimize.pairs import Pairs, WorkloadArrays, build_pairs, sample_shares
from planner.optimize.prune import sweep_candidates
from planner.pipeline.solve import solve_inputs


@dataclass
class FrontierPoint:
    sweep: str  # "latency" or "capability"
    value: float | None  # budget_s / scale factor / floor / floor shift; None: no budget
    label: str
    feasible: bool
    cost: float | None
    chosen: str  # the option with the largest share (one workload) or a routing summary
    breakpoint: bool = False
    today: bool = False  # today's rules: the plan `planner solve` gives for the same files


@dataclass
class Frontier:
    name: str
    workload: str | None
    currency: str
    period: str
    latency: list[FrontierPoint] = field(default_factory=list)
    capability: list[FrontierPoint] = field(default_factory=list)
    seconds: float = 0.0
    today_latency: FrontierPoint | None = None  # today's point of each sweep, apart from the curve
    today_capability: FrontierPoint | None = None
    today_within_share: float | None = None  # one workload: the share of its tasks today's rule asks within

    def looser_but_dearer(self) -> str | None:
        """Why swept budgets looser than today's can cost more than today, when some do: one workload
        that needs only a share of its tasks within its budget today, where the sweep asks every task."""
        today = self.today_latency
        if today is None or not today.feasible or today.value is None or self.today_within_share is None:
            return None
        dearer = [
            p
            for p in self.latency
            if p.feasible and (p.value is None or p.value >= today.value) and p.cost - today.cost >= 0.005
        ]
        if not dearer:
            return None
        span = dearer[0].label if len(dearer) == 1 else f"{dearer[0].label} to {dearer[-1].label}"
        share, budget = _num(self.today_within_share * 100, 3), today.label.split(",")[0]
        return (
            f"budgets of {span} are looser than today's yet cost more: each asks every task within it, "
            f"while today's rule asks {share}% of tasks within {budget}"
        )

    def today(self, sweep: str) -> FrontierPoint | None:
        return self.today_latency if sweep == "latency" else self.today_capability

    def rows(self, sweep: str) -> list[FrontierPoint]:
        """The sweep's points and today's, in order of value: today's after a swept point of the same
        value; no budget last, no floor first (the loosest rule at the loose end)."""
        points, today = list(getattr(self, sweep)), self.today(sweep)
        if today is None:
            return points
        loose = np.inf if sweep == "latency" else -np.inf
        at = today.value if today.value is not None else loose
        k = sum(1 for p in points if (p.value if p.value is not None else loose) <= at)
        return points[:k] + [today] + points[k:]

    def on_curve(self, sweep: str) -> FrontierPoint | None:
        """The swept point that is today's (the same value and cost to the cent: the portfolio's x1
        point when the grid holds it), if any."""
        today = self.today(sweep)
        return next((p for p in getattr(self, sweep) if today is not None and _same(p, today)), None)

    def table(self, sweep: str) -> list[FrontierPoint]:
        """rows() as people read them: a swept point that is today's is shown once, as today's, with
        its breakpoint mark."""
        rows, same = self.rows(sweep), self.on_curve(sweep)
        if same is None:
            return rows
        today = dataclasses.replace(self.today(sweep), breakpoint=same.breakpoint)
        return [today if p is same else p for p in rows if not p.today]

    def to_csv(self) -> str:
        """Every swept point (today=False: the curve) and each sweep's today point (today=True), in
        order of value; money to the cent, values to six significant digits, never in e-notation."""
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["sweep", "workload", "value", "label", "feasible", "cost", "chosen", "breakpoint", "today"])
        for p in self.rows("latency") + self.rows("capability"):
            writer.writerow(
                [
                    p.sweep,
                    csv_safe(self.workload or "(portfolio)"),
                    "" if p.value is None else _num(p.value, 6),  # a number, whatever its sign
                    csv_safe(p.label),
                    p.feasible,
                    "" if p.cost is None else f"{p.cost:.2f}",
                    csv_safe(p.chosen) if p.feasible else "",  # (no routing where there is no plan)
                    p.breakpoint,
                    p.today,
                ]
            )
        return buf.getvalue()


def _num(x: float, digits: int, *, sign: bool = False) -> str:
    """A figure to `digits` significant digits, written out (0.000001, 1234570: never 1e-06), without
    trailing zeros."""
    if x == 0:
        return "+0" if sign else "0"
    return np.format_float_positional(x, precision=digits, unique=False, fractional=False, trim="-", sign=sign)


def _same(a: FrontierPoint, b: FrontierPoint) -> bool:
    """Two points of one value with the same outcome (cost to the cent)."""
    if (a.value is None) != (b.value is None) or a.feasible != b.feasible:
        return False
    if a.value is not None and abs(a.value - b.value) > 1e-9 * max(1.0, abs(b.value)):
        return False
    return not a.feasible or abs(a.cost - b.cost) < 0.005


def _today(inputs: Inputs, workload: int | None, *, prune: bool) -> tuple[bool, float | None, str]:
    """Today's rules solved once, as `planner solve` solves them (same solver; without the review
    figures and the outage table, which the cost does not need): feasible, cost, chosen."""
    plan = solve_inputs(inputs, "auto", review=False, resilience=False, prune=prune)
    if plan.status != "optimal":
        return False, None, "-"
    top = {w.id: a.option for w in plan.workloads if w.allocations for a in [max(w.allocations, key=lambda a: a.share)]}
    if workload is not None:
        return True, plan.total_cost, top.get(plan.workloads[workload].id, "-")
    return True, plan.total_cost, "; ".join(f"{wid}: {o}" for wid, o in top.items())


def _today_points(inputs: Inputs, wa, w: int | None, *, prune: bool) -> tuple[FrontierPoint, FrontierPoint]:
    """Today's point of the latency sweep and of the capability sweep: the portfolio's x1 and +0, or
    the workload's own budget (with its share within budget) and its own floors (the mean one too)."""
    feasible, cost, chosen = _today(inputs, w, prune=prune)
    if w is None:
        lat, lat_label, cap, cap_label = 1.0, "x1", 0.0, "+0 points"
    else:
        budget, share, floor, mean = wa.budget_s[w], wa.within_budget_share[w], wa.cap_min[w], wa.cap_mean_min[w]
        lat = None if np.isnan(budget) else float(budget)
        lat_label = "no budget" if lat is None else f"{_num(lat, 4)} s"
        if lat is not None and share < 1:
            lat_label += f", {_num(float(share) * 100, 3)}% within"
        cap = None if np.isnan(floor) else float(floor)
        cap_label = "no floor" if cap is None else _num(cap, 3)
        if not np.isnan(mean):
            cap_label += f", mean floor {_num(float(mean), 3)}"
    return (
        FrontierPoint("latency", lat, lat_label, feasible, cost, chosen, today=True),
        FrontierPoint("capability", cap, cap_label, feasible, cost, chosen, today=True),
    )


def _relaxed(inputs: Inputs, targets: set[int], drop: str, keep: np.ndarray | None = None) -> Pairs:
    """Pairs with the swept rule (latency or capability floor) removed for the target workloads; the
    workloads in `keep` (bool per workload) keep their rows (a share within budget, a mean floor),
    which the sweep moves point by point."""
    data = inputs.workloads.model_dump(mode="json")
    for w in targets:
        wl = data["workloads"][w]
        if drop == "latency":
            # a workload without a budget has nothing to sweep (and a background one keeps the batch tier)
            budget = inputs.workloads.workloads[w].latency
            if budget.budget_s is None and inputs.workloads.all_thresholds.get(budget.threshold or "") is None:
                continue
            if keep is None or not keep[w]:
                # the speeds a latency is judged at stay the workload's (its percentile)
                wl["latency"] = {k: wl["latency"][k] for k in ("streaming", "percentile")}
        else:
            wl["capability"]["min"] = None
            if keep is None or not keep[w]:
                wl["capability"]["mean_min"] = None
    return build_pairs(
        validate(WorkloadSet, data, inputs.workloads_file), inputs.catalog, distributions=inputs.distributions
    )


@dataclass(frozen=True)
class _Run:
    """What every sweep of one frontier shares: the inputs, the swept workloads (one, or all), how a
    point's routing is put in words, the progress callback, the solver and whether candidates are pruned."""

    inputs: Inputs
    targets: set[int]
    chosen: Callable  # (lp, shares) -> the routing in words
    progress: Callable[[], None]
    solver: str  # the one whose backend holds each sweep's LP (backends.resolver)
    _: KW_ONLY
    prune: bool


@dataclass(frozen=True)
class _Grid:
    """One sweep laid out: the pairs with its rule taken out (_relaxed), its points, the columns each
    point switches on and the rows it moves."""

    sweep: str  # "latency" or "capability"
    pairs: Pairs
    values: list[float | None]
    labels: list[str]
    upper: Callable  # (value, lp) -> per column, 1.0 (on) or 0.0 (off)
    extra: np.ndarray  # W x O: the score a point's threshold is on, for pruning (prune.sweep_candidates)
    adjust: Callable | None = None  # lp -> (resolver, value) -> None: moves rows (shares within budget, mean floors)


def _sweep(run: _Run, grid: _Grid) -> list[FrontierPoint]:
    """The grid's points, each solved warm on one LP built once: a point only switches columns on or off
    (and moves the grid's rows). A point where a target workload has no column on has no plan."""
    inputs, pairs = run.inputs, grid.pairs
    W = pairs.shape[0]
    mask = np.zeros(W, dtype=bool)
    mask[list(run.targets)] = True
    cand = sweep_candidates(inputs.workloads, inputs.catalog, pairs, mask, grid.extra) if run.prune else pairs.eligible
    in_lp = np.flatnonzero(cand.any(axis=1))
    lp = build_problem(inputs.workloads, inputs.catalog, pairs, in_lp, cand)
    missing = W - len(in_lp)
    moves = grid.adjust(lp) if grid.adjust else None  # rows the sweep moves (shares within budget, mean floors)
    resolver = backends.resolver(run.solver, lp, why="a cost frontier", sifted=True)
    target_in_lp = np.array(sorted(set(run.targets) & set(in_lp.tolist())), dtype=int)
    points = []
    previous = None
    for value, label in zip(grid.values, grid.labels):
        upper = grid.upper(value, lp)
        resolver.set_upper(upper)
        if moves:
            moves(resolver, value)
        # a target workload with every option switched off cannot be planned at this point
        on = np.bincount(lp.var_w, weights=upper, minlength=W)
        empty = bool(np.any(on[target_in_lp] == 0))
        point = resolver.run() if not empty and not missing else None
        ok = point is not None and point.ok
        summary = run.chosen(lp, point.share) if ok else "-"
        points.append(
            FrontierPoint(
                grid.sweep,
                value,
                label,
                ok,
                point.cost if ok else None,
                summary,
                breakpoint=ok and previous is not None and summary != previous,
            )
        )
        if ok:
            previous = summary
        run.progress()
    return points


def _share_rows(lp, pairs: Pairs, budget: np.ndarray, factors: list[float | None]):
    """The latency-share rows of a portfolio latency sweep, moved to the scaled budget at each point:
    a column counts toward its workload's share when its latency is within budget x factor (every
    column without budgets); for a workload with sample tasks, by the share of them within it (worked
    out for every factor at once). None when the LP has no such row."""
    rows = [i for i, f in enumerate(lp.families) if f == "latency_share"]
    if not rows:
        return None
    row_of = {lp.rows[i].name.split(":", 1)[1]: i for i in rows}
    wa = pairs.workloads
    ids = wa.ids
    cols = [(row_of[ids[w]], np.flatnonzero(lp.var_w == w), w) for w in np.unique(lp.var_w) if ids[w] in row_of]
    lat = [pairs.latency_s[w, lp.var_o[c]] for _, c, w in cols]
    scaled = [f for f in factors if f is not None]
    sampled: dict[int, dict[float, np.ndarray]] = {}
    for k, (_, c, w) in enumerate(cols):
        if wa.sampled[w]:
            share, _ = sample_shares(
                wa.distributions[w],
                np.array([budget[w] * f for f in scaled]),
                float(wa.percentile[w]),
                pairs.options,
                float(wa.tool_latency_s[w]),
                streaming=bool(wa.streaming[w]),
            )
            sampled[k] = {f: share[j, lp.var_o[c]] for j, f in enumerate(scaled)}

    def move(resolver, factor) -> None:
        for k, (row, c, w) in enumerate(cols):
            if factor is None:
                inside = np.ones(len(c))
            elif k in sampled:
                inside = sampled[k][factor]
            else:
                inside = (lat[k] <= budget[w] * factor).astype(float)
            resolver.set_coefs(row, c, inside)

    return move


def _mean_rows(lp):
    """The mean-capability rows of a portfolio floor sweep, moved with the floors (mean + shift)."""
    rows = [i for i, f in enumerate(lp.families) if f == "mean_capability"]
    if not rows:
        return None

    def move(resolver, shift) -> None:
        for i in rows:
            resolver.set_row_lower(i, (lp.rows[i].limit + shift) / 100.0)

    return move


def frontier(
    inputs: Inputs, workload_id: str | None = None, points: int = 30, progress=lambda: None, *, prune: bool = True
) -> Frontier:
    """The latency and capability sweeps of one workload (or, without one, of every budget scaled and
    every floor shifted together). prune=False sends every eligible pair to the solver (for tests: the
    points are the same)."""
    started = time.perf_counter()
    ids = [w.id for w in inputs.workloads.workloads]
    if workload_id is not None and workload_id not in ids:
        raise InputError.single(
            inputs.workloads_file,
            Setting("workload"),
            f"no workload '{workload_id}'; expected one of: {', '.join(ids)}",
        )
    w = None if workload_id is None else ids.index(workload_id)
    targets = {w} if w is not None else set(range(len(ids)))
    base = build_pairs(inputs.workloads, inputs.catalog, distributions=inputs.distributions)
    wa = base.workloads
    result = Frontier(inputs.name, workload_id, inputs.catalog.currency, inputs.workloads.period)
    result.today_latency, result.today_capability = _today_points(inputs, wa, w, prune=prune)
    if w is not None and wa.within_budget_share[w] < 1 and not np.isnan(wa.budget_s[w]):
        result.today_within_share = float(wa.within_budget_share[w])
    progress()
    run = _Run(inputs, targets, _chooser(base.options.label, ids, w), progress, backends.pick_solver(), prune=prune)
    result.latency = _sweep(run, _latency_grid(inputs, wa, targets, w, points))
    capability = _capability_grid(inputs, wa, targets, w, points)
    result.capability = _sweep(run, capability) if capability is not None else []
    result.seconds = time.perf_counter() - started
    return result


def _chooser(label: Callable[[int], str], ids: list[str], w: int | None) -> Callable:
    """How a point's routing is put in words: the largest-share option of workload w, or of every
    workload, as one routing summary."""

    def chosen(lp, share) -> str:
        order = np.lexsort((-share, lp.var_w))
        w_sorted = lp.var_w[order]
        firsts = order[np.r_[True, w_sorted[1:] != w_sorted[:-1]]]
        top = {int(lp.var_w[j]): label(int(lp.var_o[j])) for j in firsts}
        if w is not None:
            return top.get(w, "-")
        return "; ".join(f"{ids[k]}: {top[k]}" for k in sorted(top))

    return chosen


def _latency_grid(inputs: Inputs, wa: WorkloadArrays, targets: set[int], w: int | None, points: int) -> _Grid:
    """The latency sweep: workload w's budget, or every budget scaled. With the whole portfolio, a
    workload that needs only a share of its tasks within budget keeps that row, over the options
    within the scaled budget."""
    shared = (wa.within_budget_share < 1) & ~np.isnan(wa.budget_s) if w is None else None
    pairs = _relaxed(inputs, targets, "latency", shared)
    # a tier of unknown speed meets no budget: it may never stand in for an option of known speed
    extra = np.where(pairs.options.speed_known[None, :], -pairs.need_s, -np.inf)
    if w is not None:
        return _budget_grid(inputs, pairs, w, points, extra)
    return _scaled_budgets_grid(pairs, wa, shared, points, extra)


def _budget_grid(inputs: Inputs, pairs: Pairs, w: int, points: int, extra: np.ndarray) -> _Grid:
    """One workload's budget, in geometric steps (latency spans orders of magnitude) over the budgets
    its options meet for every task, then no budget."""
    lat = pairs.need_s[w, pairs.eligible[w]]  # the budget each option meets for every task
    if len(lat) == 0:
        raise InputError.single(
            inputs.workloads_file,
            Setting("workload"),
            f"workload '{pairs.workloads.ids[w]}' has no option meeting its rules other than latency",
        )
    lo, hi = float(lat.min()), float(lat.max())
    if hi > lo:  # geometric steps; a zero latency starts the list
        start = lo if lo > 0 else max(hi * 1e-3, 1e-6)
        values = [float(v) for v in np.geomspace(start, hi, max(2, points - 1 - (lo <= 0)))]
        values = ([lo] if lo <= 0 else []) + values
        values[0], values[-1] = lo, hi
    else:
        values = [lo]
    labels = [f"{_num(v, 4)} s" for v in values] + ["no budget"]

    def upper(b, lp):
        if b is None:
            return np.ones(len(lp.var_w))
        known = pairs.options.speed_known[lp.var_o]  # a tier of unknown speed meets no budget
        ok = ((pairs.need_s[lp.var_w, lp.var_o] <= b) & known) | (lp.var_w != w)
        return ok.astype(float)

    return _Grid("latency", pairs, values + [None], labels, upper, extra)


def _scaled_budgets_grid(pairs: Pairs, wa: WorkloadArrays, shared: np.ndarray, points: int, extra: np.ndarray) -> _Grid:
    """Every budget times the same factor, x0.1 to x10 in geometric steps (x1, today's, always among
    them), then no budgets; the shares within budget move with it (_share_rows). wa: the workloads as
    stated (pairs has the budgets taken out)."""
    has = ~np.isnan(wa.budget_s)
    grid = [float(v) for v in np.geomspace(0.1, 10.0, max(2, points - 1))]
    values = sorted({*grid, 1.0}) + [None]  # today's x1 is always a swept point, on the curve
    labels = [f"x{_num(v, 3)}" for v in values[:-1]] + ["no budgets"]

    def upper(f, lp):
        if f is None:
            return np.ones(len(lp.var_w))
        budget = np.where(has & ~shared, wa.budget_s * (f if f else 1.0), np.inf)[lp.var_w]
        known = pairs.options.speed_known[lp.var_o] | np.isinf(budget)  # unknown speed: no budget met
        return ((pairs.need_s[lp.var_w, lp.var_o] <= budget) & known).astype(float)

    return _Grid(
        "latency", pairs, values, labels, upper, extra, adjust=lambda lp: _share_rows(lp, pairs, wa.budget_s, values)
    )


def _capability_grid(inputs: Inputs, wa: WorkloadArrays, targets: set[int], w: int | None, points: int) -> _Grid | None:
    """The capability sweep: workload w's floor over its options' scores (None when none has a score),
    or every floor shifted by -20 to +20 points, a mean floor moving with the others."""
    means = ~np.isnan(wa.cap_mean_min) if w is None else None
    pairs = _relaxed(inputs, targets, "capability", means)
    extra = np.nan_to_num(pairs.capability, nan=-1.0)
    if w is not None:
        caps = pairs.capability[w, pairs.eligible[w]]
        caps = caps[~np.isnan(caps)]
        if len(caps) == 0:
            return None
        floors = [float(v) for v in np.linspace(float(caps.min()), float(caps.max()), points)]

        def upper(f, lp):
            score = pairs.capability[lp.var_w, lp.var_o]
            return ((score >= f) | (lp.var_w != w)).astype(float)

        return _Grid("capability", pairs, floors, [_num(v, 3) for v in floors], upper, extra)
    floors = sorted({*(float(v) for v in np.linspace(-20, 20, points)), 0.0})  # today's +0 on the curve
    base_floor = np.where(np.isnan(wa.cap_min), -np.inf, wa.cap_min)

    def shifted(d, lp):
        score = pairs.capability[lp.var_w, lp.var_o]
        return (score >= base_floor[lp.var_w] + d).astype(float)

    labels = [f"{_num(v, 3, sign=True)} points" for v in floors]
    return _Grid("capability", pairs, floors, labels, shifted, extra, adjust=_mean_rows)
