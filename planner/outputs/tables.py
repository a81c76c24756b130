"""The commands' tables as rows (for the terminal, CSV and JSON): a plan's allocations, every option
of one workload, a catalog's options and what its capability metrics are."""

from __future__ import annotations

import csv
import io
from typing import Any

import numpy as np

from planner.core.fmt import csv_safe, json_text
from planner.model.load import Inputs
from planner.model.schema import Catalog
from planner.optimize.options import build_options, percentile_gaps
from planner.optimize.pairs import build_pairs
from planner.plan.model import Plan


def allocations_csv(plan: Plan) -> str:
    """One row per (workload, option): the plan in a form pandas reads directly; with its price tier and
    reservation when any share is on a tier or inside a reservation."""
    sold = any(a.price_tier or a.reserved for w in plan.workloads for a in w.allocations)
    fields = [
        "workload",
        "offering",
        "mode",
        "vendor",
        "host",
        "tier",
        "model",
        "share",
        "tasks",
        "cost_per_task",
        "cost",
        "latency_s",
        "budget_s",
        "capability",
    ]
    return rows_csv(
        [
            {
                "workload": w.id,
                "offering": a.offering,
                "mode": a.mode,
                "vendor": a.vendor,
                "host": a.host,
                "tier": a.tier,
                "model": a.model,
                "share": a.share,
                "tasks": a.tasks,
                "cost_per_task": a.cost_per_task,
                "cost": a.cost,
                "latency_s": a.latency_s,
                "budget_s": w.budget_s,
                "capability": a.capability,
                **({"price_tier": a.price_tier or "list", "reserved": a.reserved} if sold else {}),
            }
            for w in plan.workloads
            for a in w.allocations
        ],
        fields + (["price_tier", "reserved"] if sold else []),
    )


def rows_csv(rows: list[dict[str, Any]], fields: list[str] | None = None) -> str:
    buf = io.StringIO()
    if rows or fields:
        writer = csv.DictWriter(buf, fieldnames=fields or list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: csv_safe(v) for k, v in r.items()} for r in rows)
    return buf.getvalue()


def rows_json(rows: list[dict[str, Any]]) -> str:
    return json_text(rows)


def explain_rows(inputs: Inputs, w: int) -> list[dict[str, Any]]:
    """Every option for workload w, cheapest first, with eligibility and reasons."""
    pairs = build_pairs(inputs.workloads, inputs.catalog, distributions=inputs.distributions)
    opts = pairs.options
    tiers = not opts.listed.all()
    order = np.lexsort((np.arange(len(opts)), pairs.latency_s[w], pairs.cost_per_task[w]))
    wa = pairs.workloads
    budget = wa.budget_s[w]
    sampled = bool(wa.sampled[w])
    percentile = float(wa.percentile[w])
    if not np.isnan(percentile):
        median, limit = percentile_gaps(opts, percentile)
        judged = np.where(median, "median", np.where(limit, "limit", "measured"))
    rows = []
    for o in order:
        o = int(o)
        cap = pairs.capability[w, o]
        row = {
            "option": opts.label(o),
            "vendor": opts.vendor[o],
            "host": opts.host[o],
            "tier": opts.tier[o],
            "latency_s": round(float(pairs.latency_s[w, o]), 4),
            "budget_s": None if np.isnan(budget) else float(budget),
            "cost_per_task": float(f"{pairs.cost_per_task[w, o]:.6g}"),
            "capability": None if np.isnan(cap) else float(cap),
            "eligible": bool(pairs.eligible[w, o]),
            "reasons": pairs.reasons(w, o),
        }
        if sampled:  # the share of the sample tasks within budget, and the budget all of them would need
            row["within_budget_share"] = None if np.isnan(budget) else float(f"{pairs.within_share[w, o]:.6g}")
            row["slowest_s"] = round(float(pairs.need_s[w, o]), 4)
        if not np.isnan(percentile):  # the speeds it was judged at: measured percentiles, or a median
            row["speeds"] = str(judged[o])
        if tiers:  # the price tier, and whether the latency is known (a flex tier without a speed: a lower bound)
            row["price_tier"] = opts.sale[o]
            row["latency_known"] = bool(opts.speed_known[o])
        rows.append(row)
    return rows


def catalog_rows(catalog: Catalog) -> list[dict[str, Any]]:
    """One row per option (offering x mode) with its prices, speeds, capability and capacity."""
    opts = build_options(catalog)
    tiers = not opts.listed.all()
    rows = []
    for o in range(len(opts)):
        off = catalog.offerings[int(opts.offering_index[o])]
        caps = option_scores(opts, o)
        batch = not np.isfinite(opts.output_tps[o])
        extra = {}
        if tiers:  # the price tier; a batch job's window; whether the speed is measured or stated
            extra = {
                "price_tier": opts.sale[o],
                "reserved": opts.reserved[o],
                "window_s": float(opts.ttft_s[o]) if batch else None,
                "speed_known": bool(opts.speed_known[o]) and not batch,
            }
        rows.append(
            {
                "option": opts.label(o),
                "model": opts.model[o],
                "vendor": opts.vendor[o],
                "host": opts.host[o],
                "tier": opts.tier[o],
                "input_per_mtok": float(opts.price_input[o]),
                "output_per_mtok": float(opts.price_output[o]),
                "output_tps": None if batch else float(opts.output_tps[o]),
                "ttft_s": None if batch else float(opts.ttft_s[o]),
                "capability": ", ".join(f"{k} {v:g}" for k, v in sorted(caps.items())),
                "tokens_per_minute": off.capacity.tokens_per_minute if off.capacity else None,
                **extra,
            }
        )
    return rows


def option_scores(opts, o: int) -> dict[str, float]:
    """Option o's scores, by metric (the metrics it has)."""
    return {m: float(v[o]) for m, v in opts.capability.items() if v[o] == v[o]}


def metric_names(catalog: Catalog, opts) -> list[str]:
    """The capability metrics: the catalog's declared ones in its order, then the others its options
    score on, by name."""
    return list(catalog.metrics) + sorted(m for m in opts.capability if m not in catalog.metrics)


def default_metric(catalog: Catalog, opts) -> str | None:
    """The metric catalog show shows: the catalog's first declared one; when it declares none, the
    workloads' default metric (overall) if its options score on it, else the first by name."""
    if catalog.metrics:
        return next(iter(catalog.metrics))
    if "overall" in opts.capability:
        return "overall"
    return min(opts.capability, default=None)


TOP = 100.0  # every score is on a scale up to 100 (schema.Score)


def metric_lines(catalog: Catalog, opts) -> list[str]:
    """Per capability metric (declared ones in the catalog's order, then the others by name): what it
    is and its scale, then the range of the scores in the catalog's options and how far its best is
    from the scale's top, so that a floor can be read against them. opts: build_options(catalog)."""
    lines = []
    for m in metric_names(catalog, opts):
        declared = catalog.metrics.get(m)
        if declared is None:
            lines.append(f"capability {m}: not described in the catalog's metrics (its scale is unknown)")
        else:
            lines.append(f"capability {m}: {declared.name}")
            scale = f"scale: {declared.scale}" if declared.scale else "scale: not labelled"
            if declared.rounding:
                scale += f" (published to {declared.rounding:g})"
            lines.append(f"  {scale}")
        scores = opts.score(m)
        scores = scores[~np.isnan(scores)]
        if not len(scores):
            lines.append("  no option has a score")
            continue
        low, best = float(scores.min()), float(scores.max())
        text = f"  scores {low:.3g}-{best:.3g} in {len(scores)} of {len(opts)} options"
        if best < 0.9 * TOP:
            text += f" (the scale's top is {TOP:g} but this catalog's best is {best:.3g})"
        if declared is not None and declared.top is not None and abs(declared.top - best) > (declared.rounding or 0):
            text += f"; the metrics give top {declared.top:g}"
        lines.append(text)
    return lines
