"""The plan file a reader uses (SPEC v1.9 and v1.10 "Plan size"): each workload's rejected options and
break-even rows trimmed to those the report and the exports read, the compounding curves to those the report
charts and the baselines' per-workload choices to those that break a rule, with counts of the rest.

A large portfolio's plan was mostly these lists (benchmarks/RESULTS.md, issue 29); `planner solve --full`
writes them all. The plan in memory (the report, the terminal, a what-if batch's warm start) is the full one;
only its file is trimmed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from planner.core.records import trusted

REJECTED_KEPT = 3  # the cheapest rejected options of a feasible workload (an infeasible one keeps them all)
RUNNER_UPS_KEPT = 3  # options not in use kept in break_even: the export's fallbacks (outputs.gateway.FALLBACKS)
CURVES_KEPT = 6  # the multi-turn workloads with the largest spend keep their compounding curves: the report's charts


def charted(workloads: Iterable[Any]) -> list[Any]:
    """The workloads whose compounding curves the report charts and the plan file keeps: the CURVES_KEPT
    with a curve and the largest spend (ties by id)."""
    return sorted((w for w in workloads if w.compounding), key=lambda w: (-w.cost, w.id))[:CURVES_KEPT]


def trimmed(plan: Any) -> Any:
    """The plan (plan.model.Plan, which imports this module) as its file carries it by default; the same object
    when nothing is left out."""
    curves = {w.id for w in charted(plan.workloads)}
    workloads, cut, curves_cut = [], 0, 0
    for w in plan.workloads:
        short = _trimmed(w, curve=w.id in curves)
        cut += short.rejected_omitted + short.break_even_omitted > w.rejected_omitted + w.break_even_omitted
        curves_cut += short.compounding is None and w.compounding is not None
        workloads.append(short)
    baselines = [_baseline(b) for b in plan.baselines]
    choices_cut = sum(b.choices_omitted - a.choices_omitted for a, b in zip(plan.baselines, baselines))
    if not cut and not curves_cut and not choices_cut:
        return plan
    said = []
    if cut:
        said.append(
            f"of each feasible workload, the {REJECTED_KEPT} cheapest rejected options (rejected_omitted counts "
            f"the rest) and, in break_even, the options in use and {RUNNER_UPS_KEPT} runner-ups "
            "(break_even_omitted counts the rest)"
        )
    if curves_cut:
        said.append(
            f"the compounding curves of the {CURVES_KEPT} multi-turn workloads with the largest spend, the ones the "
            "report charts (compounding_omitted counts the rest)"
        )
    if choices_cut:
        said.append("of each baseline, the workloads whose rules it breaks (choices_omitted counts the rest)")
    command = "planner whatif" if plan.inputs.scenario else "planner solve"  # (a scenario's plan: whatif's)
    note = f"plan file trimmed: {'; '.join(said)}; {command} --full writes them all"
    update = {
        "workloads": workloads,
        "baselines": baselines,
        "compounding_omitted": plan.compounding_omitted + curves_cut,
        "assumptions": [*plan.assumptions, note],
    }
    return plan.model_copy(update=update)


def _trimmed(w: Any, *, curve: bool) -> Any:
    rejected = w.rejected if w.status != "ok" else w.rejected[:REJECTED_KEPT]
    runner_ups: set[tuple[str, str]] = set()
    for b in w.break_even:  # (price tiers of one option are one runner-up, as the export counts them)
        if not b.used and len(runner_ups) < RUNNER_UPS_KEPT:
            runner_ups.add((b.offering, b.mode))
    break_even = [b for b in w.break_even if b.used or (b.offering, b.mode) in runner_ups]
    compounding = w.compounding if curve else None
    if len(rejected) == len(w.rejected) and len(break_even) == len(w.break_even) and compounding is w.compounding:
        return w
    return trusted(
        type(w),
        {
            **w.__dict__,
            "rejected": rejected,
            "break_even": break_even,
            "compounding": compounding,
            "rejected_omitted": w.rejected_omitted + len(w.rejected) - len(rejected),
            "break_even_omitted": w.break_even_omitted + len(w.break_even) - len(break_even),
        },
    )


def _baseline(b: Any) -> Any:
    kept = [c for c in b.choices if c.misses]
    if len(kept) == len(b.choices):
        return b
    omitted = b.choices_omitted + len(b.choices) - len(kept)
    return trusted(type(b), {**b.__dict__, "choices": kept, "choices_omitted": omitted})
