"""The plan file a reader uses (SPEC v1.9 "Plan size"): each workload's rejected options and break-even rows
trimmed to those the report and the exports read, with counts of the rest.

A large portfolio's plan was mostly these lists (at 3000 x 300, 7.6 of 19.5 MB: 27,030 rejected options and
every eligible option's break-even price); `planner solve --full` writes them all. The plan in memory (the
report, the terminal, a what-if batch's warm start) is the full one; only its file is trimmed.
"""

from __future__ import annotations

from typing import Any

REJECTED_KEPT = 3  # the cheapest rejected options of a feasible workload (an infeasible one keeps them all)
RUNNER_UPS_KEPT = 3  # options not in use kept in break_even: the export's fallbacks (outputs.gateway.FALLBACKS)


def trimmed(plan: Any) -> Any:
    """The plan (plan.model.Plan, which imports this module) as its file carries it by default; the same object
    when nothing is left out."""
    workloads, cut = [], 0
    for w in plan.workloads:
        short = _trimmed(w)
        cut += short is not w
        workloads.append(short)
    if not cut:
        return plan
    note = (
        f"plan file trimmed: of each feasible workload, the {REJECTED_KEPT} cheapest rejected options "
        f"(rejected_omitted counts the rest) and, in break_even, the options in use and {RUNNER_UPS_KEPT} "
        "runner-ups (break_even_omitted counts the rest); planner solve --full writes them all"
    )
    return plan.model_copy(update={"workloads": workloads, "assumptions": [*plan.assumptions, note]})


def _trimmed(w: Any) -> Any:
    rejected = w.rejected if w.status != "ok" else w.rejected[:REJECTED_KEPT]
    runner_ups: set[tuple[str, str]] = set()
    for b in w.break_even:  # (price tiers of one option are one runner-up, as the export counts them)
        if not b.used and len(runner_ups) < RUNNER_UPS_KEPT:
            runner_ups.add((b.offering, b.mode))
    break_even = [b for b in w.break_even if b.used or (b.offering, b.mode) in runner_ups]
    if len(rejected) == len(w.rejected) and len(break_even) == len(w.break_even):
        return w
    return w.model_copy(
        update={
            "rejected": rejected,
            "break_even": break_even,
            "rejected_omitted": w.rejected_omitted + len(w.rejected) - len(rejected),
            "break_even_omitted": w.break_even_omitted + len(w.break_even) - len(break_even),
        }
    )
