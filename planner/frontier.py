"""Cost frontiers: the minimum cost as a latency budget or a capability floor sweeps.

Each sweep builds its LP once, with the swept rule taken out of eligibility, and then only
switches share variables on or off (upper bound 1 or 0) and re-solves warm in HiGHS. With one
workload the sweep moves that workload's budget (every task within it) or floor; without, every
workload's budget is scaled by the same factor, or every floor shifted by the same points.
"""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .errors import InputError
from .fmt import csv_safe
from .load import Inputs, validate
from .lp import build_problem
from .pairs import Pairs, build_pairs
from .prune import sweep_candidates
from .resolve import Resolver, SiftedResolver
from .schema import WorkloadSet


@dataclass
class FrontierPoint:
    sweep: str  # "latency" or "capability"
    value: float | None  # budget_s / scale factor / floor / floor shift; None: no budget
    label: str
    feasible: bool
    cost: float | None
    chosen: str  # the option with the largest share (one workload) or a routing summary
    breakpoint: bool = False


@dataclass
class Frontier:
    name: str
    workload: str | None
    currency: str
    period: str
    latency: list[FrontierPoint] = field(default_factory=list)
    capability: list[FrontierPoint] = field(default_factory=list)
    seconds: float = 0.0

    def to_csv(self) -> str:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["sweep", "workload", "value", "label", "feasible", "cost", "chosen", "breakpoint"])
        for p in self.latency + self.capability:
            writer.writerow(
                [
                    p.sweep,
                    csv_safe(self.workload or "(portfolio)"),
                    "" if p.value is None else f"{p.value:.6g}",  # a number, whatever its sign
                    csv_safe(p.label),
                    p.feasible,
                    "" if p.cost is None else f"{p.cost:.6f}",
                    csv_safe(p.chosen) if p.feasible else "",  # (no routing where there is no plan)
                    p.breakpoint,
                ]
            )
        return buf.getvalue()


def _relaxed(inputs: Inputs, targets: set[int], drop: str, keep: np.ndarray | None = None) -> Pairs:
    """Pairs with the swept rule (latency or capability floor) removed for the target workloads; the
    workloads in `keep` (bool per workload) keep their rows (a share within budget, a mean floor),
    which the sweep moves point by point."""
    data = inputs.workloads.model_dump(mode="json")
    for w in targets:
        wl = data["workloads"][w]
        if drop == "latency":
            if keep is None or not keep[w]:
                wl["latency"] = {"streaming": wl["latency"]["streaming"]}
        else:
            wl["capability"]["min"] = None
            if keep is None or not keep[w]:
                wl["capability"]["mean_min"] = None
    return build_pairs(validate(WorkloadSet, data, inputs.workloads_file), inputs.catalog)


def _sweep(
    inputs: Inputs,
    pairs: Pairs,
    targets: set[int],
    upper_for: Callable[[float], np.ndarray],
    values: list[float | None],
    labels: list[str],
    sweep: str,
    chosen: Callable,
    progress,
    extra: np.ndarray,
    prune: bool,
    adjust: Callable | None = None,
) -> list:
    W = pairs.shape[0]
    mask = np.zeros(W, dtype=bool)
    mask[list(targets)] = True
    cand = sweep_candidates(inputs.workloads, inputs.catalog, pairs, mask, extra) if prune else pairs.eligible
    in_lp = np.flatnonzero(cand.any(axis=1))
    lp = build_problem(inputs.workloads, inputs.catalog, pairs, in_lp, cand)
    missing = W - len(in_lp)
    moves = adjust(lp) if adjust else None  # rows the sweep moves (shares within budget, mean floors)
    resolver = Resolver(lp) if lp.integer else SiftedResolver(lp)
    target_in_lp = np.array(sorted(set(targets) & set(in_lp.tolist())), dtype=int)
    points = []
    previous = None
    for value, label in zip(values, labels):
        upper = upper_for(value, lp)
        resolver.set_upper(upper)
        if moves:
            moves(resolver, value)
        # a target workload with every option switched off cannot be planned at this point
        on = np.bincount(lp.var_w, weights=upper, minlength=W)
        empty = bool(np.any(on[target_in_lp] == 0))
        point = resolver.run() if not empty and not missing else None
        ok = point is not None and point.ok
        summary = chosen(lp, point.share) if ok else "-"
        points.append(
            FrontierPoint(
                sweep,
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
        progress()
    return points


def _share_rows(lp, pairs: Pairs, budget: np.ndarray):
    """The latency-share rows of a portfolio latency sweep, moved to the scaled budget at each point:
    a column counts toward its workload's share when its latency is within budget x factor (every
    column without budgets). None when the LP has no such row."""
    rows = [i for i, f in enumerate(lp.families) if f == "latency_share"]
    if not rows:
        return None
    row_of = {lp.rows[i].name.split(":", 1)[1]: i for i in rows}
    ids = pairs.workloads.ids
    cols = [(row_of[ids[w]], np.flatnonzero(lp.var_w == w), w) for w in np.unique(lp.var_w) if ids[w] in row_of]
    lat = [pairs.latency_s[w, lp.var_o[c]] for _, c, w in cols]

    def move(resolver, factor) -> None:
        for k, (row, c, w) in enumerate(cols):
            inside = np.ones(len(c), dtype=bool) if factor is None else lat[k] <= budget[w] * factor
            resolver.set_coefs(row, c, inside.astype(float))

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
    inputs: Inputs, workload_id: str | None = None, points: int = 30, progress=lambda: None, prune: bool = True
) -> Frontier:
    """The latency and capability sweeps of one workload (or, without one, of every budget scaled and
    every floor shifted together). prune=False sends every eligible pair to the solver (for tests: the
    points are the same)."""
    started = time.perf_counter()
    ids = [w.id for w in inputs.workloads.workloads]
    if workload_id is not None and workload_id not in ids:
        raise InputError.single(
            inputs.workloads_file, "--workload", f"no workload '{workload_id}'; expected one of: {', '.join(ids)}"
        )
    targets = {ids.index(workload_id)} if workload_id else set(range(len(ids)))
    base = build_pairs(inputs.workloads, inputs.catalog)
    labels_of = base.options.label
    result = Frontier(inputs.name, workload_id, inputs.catalog.currency, inputs.workloads.period)

    def chosen(lp, share):
        """The largest-share option of the workload (or of every workload, as one routing summary)."""
        order = np.lexsort((-share, lp.var_w))
        w_sorted = lp.var_w[order]
        firsts = order[np.r_[True, w_sorted[1:] != w_sorted[:-1]]]
        top = {int(lp.var_w[j]): labels_of(int(lp.var_o[j])) for j in firsts}
        if workload_id is not None:
            return top.get(next(iter(targets)), "-")
        return "; ".join(f"{ids[w]}: {top[w]}" for w in sorted(top))

    # latency sweep; with the whole portfolio, a workload that needs only a share of its tasks within
    # budget keeps that row, over the options within the scaled budget
    wa = base.workloads
    shared = (wa.within_budget_share < 1) & ~np.isnan(wa.budget_s) if workload_id is None else None
    lat_pairs = _relaxed(inputs, targets, "latency", shared)
    lat_adjust = None
    if workload_id is not None:
        w = next(iter(targets))
        lat = lat_pairs.latency_s[w, lat_pairs.eligible[w]]
        if len(lat) == 0:
            raise InputError.single(
                inputs.workloads_file,
                "--workload",
                f"workload '{workload_id}' has no option meeting its rules other than latency",
            )
        lo, hi = float(lat.min()), float(lat.max())
        if hi > lo:  # geometric steps (latency spans orders of magnitude); a zero latency starts the list
            start = lo if lo > 0 else max(hi * 1e-3, 1e-6)
            values = [float(v) for v in np.geomspace(start, hi, max(2, points - 1 - (lo <= 0)))]
            values = ([lo] if lo <= 0 else []) + values
            values[0], values[-1] = lo, hi
        else:
            values = [lo]
        labels = [f"{v:.4g} s" for v in values] + ["no budget"]
        values = values + [None]

        def upper_lat(b, lp):
            if b is None:
                return np.ones(len(lp.var_w))
            ok = (lat_pairs.latency_s[lp.var_w, lp.var_o] <= b) | (lp.var_w != w)
            return ok.astype(float)
    else:
        has = ~np.isnan(wa.budget_s)
        values = [float(v) for v in np.geomspace(0.1, 10.0, max(2, points - 1))] + [None]
        labels = [f"x{v:.3g}" for v in values[:-1]] + ["no budgets"]

        def upper_lat(f, lp):
            if f is None:
                return np.ones(len(lp.var_w))
            budget = np.where(has & ~shared, wa.budget_s * (f if f else 1.0), np.inf)
            return (lat_pairs.latency_s[lp.var_w, lp.var_o] <= budget[lp.var_w]).astype(float)

        def lat_adjust(lp):
            return _share_rows(lp, lat_pairs, wa.budget_s)

    result.latency = _sweep(
        inputs,
        lat_pairs,
        targets,
        upper_lat,
        values,
        labels,
        "latency",
        chosen,
        progress,
        -lat_pairs.latency_s,
        prune,
        lat_adjust,
    )

    # capability sweep; with the whole portfolio, a mean floor moves with the others
    means = ~np.isnan(wa.cap_mean_min) if workload_id is None else None
    cap_pairs = _relaxed(inputs, targets, "capability", means)
    cap_adjust = None
    if workload_id is not None:
        w = next(iter(targets))
        caps = cap_pairs.capability[w, cap_pairs.eligible[w]]
        caps = caps[~np.isnan(caps)]
        if len(caps) == 0:
            result.capability = []
            result.seconds = time.perf_counter() - started
            return result
        floors = [float(v) for v in np.linspace(float(caps.min()), float(caps.max()), points)]
        cap_labels = [f"{v:.3g}" for v in floors]

        def upper_cap(f, lp):
            score = cap_pairs.capability[lp.var_w, lp.var_o]
            return ((score >= f) | (lp.var_w != w)).astype(float)
    else:
        floors = [float(v) for v in np.linspace(-20, 20, points)]
        cap_labels = [f"{v:+.3g} points" for v in floors]
        base_floor = np.where(np.isnan(wa.cap_min), -np.inf, wa.cap_min)

        def upper_cap(d, lp):
            score = cap_pairs.capability[lp.var_w, lp.var_o]
            return (score >= base_floor[lp.var_w] + d).astype(float)

        def cap_adjust(lp):
            return _mean_rows(lp)

    result.capability = _sweep(
        inputs,
        cap_pairs,
        targets,
        upper_cap,
        floors,
        cap_labels,
        "capability",
        chosen,
        progress,
        np.nan_to_num(cap_pairs.capability, nan=-1.0),
        prune,
        cap_adjust,
    )
    result.seconds = time.perf_counter() - started
    return result
