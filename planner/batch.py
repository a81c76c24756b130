"""Scenario batches: the files are read and every scenario checked once, then the scenarios are
solved side by side, one process per core.

Each scenario's plan is independent of the others, so the work splits cleanly: the parent
validates and applies every scenario (all input errors before any solve), solves the base,
then (on Linux) forks workers that inherit the inputs and the base plan without copying them.
A worker solves its scenario, compares it with the base, and hands back the plan file's text
(or, given the files' paths, leaves the text in a hidden file beside each: a few MB through the
result pipe cost the parent a tenth of a second of CPU beside its workers, and its memory), the
few figures the what-if report and table show, and the comparison. Results come back in the
scenarios' order whatever the number of workers, so the output is the same byte for byte.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional, Union

from .load import Inputs
from .plan import Fragments, Plan, discard, stage
from .schema import Scenario
from .whatif import Comparison, WorkloadChange, compare_plans, packed, routings, unchanged_rows, unpacked

if TYPE_CHECKING:
    from .solve import Basis


@dataclass
class ScenarioOutcome:
    """What a batch keeps of one scenario's plan: the plan file's text (or the hidden file that holds
    it, `staged`, to be renamed to its path) and the figures shown."""

    scenario: Scenario
    plan_json: str
    status: str
    total_cost: float
    diagnosis: list[str]
    comparison: Comparison
    staged: Optional[str] = None


@dataclass
class _Work:
    base: Union[Plan, "Basis"]
    applied: list[tuple[Scenario, Inputs]]
    solver: str
    review: bool
    paths: Optional[list[Path]] = None
    tag: str = ""
    routing: Optional[dict[str, list[str]]] = None  # the base's, shown beside each scenario's
    fragments: Optional[Fragments] = None  # the text of the base's records that plans reuse
    unchanged: Optional[list[WorkloadChange]] = None  # per base workload, its row in a comparison that keeps it


_WORK: Optional[_Work] = None  # set in the parent just before forking; workers inherit it


def _solve_one(i: int) -> ScenarioOutcome:
    from .solve import solve_inputs

    work = _WORK
    assert work is not None
    scenario, inputs = work.applied[i]
    plan = solve_inputs(inputs, work.solver, scenario=scenario.name, resilience=False, review=work.review,
                        start=work.base)
    text, staged = plan.to_json() if work.fragments is None else work.fragments.plan_json(plan), None
    if work.paths is not None:
        staged, text = stage(work.paths[i], text, work.tag), ""
    try:
        return ScenarioOutcome(scenario, text, plan.status, plan.total_cost, list(plan.diagnosis),
                               compare_plans(_plan_of(work.base), plan, "base", scenario.name, work.routing,
                                             work.unchanged), staged)
    except BaseException:
        if staged:
            discard(staged)
        raise


def _solve_in_worker(i: int) -> tuple[ScenarioOutcome, tuple[dict, list[Optional[tuple]]]]:
    """_solve_one in a forked worker: the comparison goes back packed (the base's unchanged rows,
    which the parent has, as markers)."""
    outcome = _solve_one(i)
    return replace(outcome, comparison=None), packed(outcome.comparison, _WORK.unchanged)


def _plan_of(base: Union[Plan, "Basis"]) -> Plan:
    return base if isinstance(base, Plan) else base.plan


def _can_fork() -> bool:
    """Forked workers only on Linux: macOS offers fork but its system libraries are not fork-safe."""
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def solve_scenarios(base: Union[Plan, "Basis"], applied: list[tuple[Scenario, Inputs]], solver: str,
                    review: bool = False, jobs: Optional[int] = None, progress: Callable[[], None] = lambda: None,
                    paths: Optional[list[Path]] = None) -> list[ScenarioOutcome]:
    """Solve every applied scenario, each started from the base (a Basis from solve_basis: also reusing
    the figures its edits leave alone); with jobs > 1 (default: the cores this process may use) in
    forked worker processes on Linux, else one after the other.

    paths (one per scenario): each plan file's text is left in a hidden file beside its path (the
    outcome's `staged`) for the caller to rename into place; should the batch fail, none is left."""
    global _WORK
    jobs = min(default_jobs() if jobs is None else max(1, jobs), len(applied))
    routing = routings(_plan_of(base))
    _WORK = _Work(base, applied, solver, review, paths, f"{os.getpid()}-{id(applied)}.", routing,
                  None if isinstance(base, Plan) else base.fragments, unchanged_rows(_plan_of(base), routing))
    tag = _WORK.tag
    try:
        if jobs <= 1 or not _can_fork():
            out = []
            for i in range(len(applied)):
                out.append(_solve_one(i))
                progress()
            return out
        from concurrent.futures import ProcessPoolExecutor, as_completed

        results: dict[int, ScenarioOutcome] = {}
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            futures = {pool.submit(_solve_in_worker, i): i for i in range(len(applied))}
            for future in as_completed(futures):
                outcome, comparison = future.result()  # a worker's error is raised here
                results[futures[future]] = replace(outcome, comparison=unpacked(*comparison, _WORK.unchanged))
                progress()
        return [results[i] for i in range(len(applied))]
    except BaseException:
        for path in paths or ():  # the staged files of every scenario, finished or not
            for leftover in Path(path).parent.glob(f".{Path(path).name}.{tag}*"):
                discard(str(leftover))
        raise
    finally:
        _WORK = None
