"""What-if batches: every scenario solved against the base, side by side, one process per core.

Each scenario's plan is independent of the others, so the work splits cleanly: the caller
validates and applies every scenario (all input errors before any solve) and solves the base;
then (on Linux) forked workers, handed the work by the pool's initializer, each solve a
scenario from the base's WarmStart, compare it with the base, and leave the plan file's text
in a hidden file beside its final name. Results come back in the scenarios' order whatever the
number of workers, so the output is the same byte for byte.
"""

from __future__ import annotations

import multiprocessing
import os
import secrets
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .compare import Comparison, compare_plans, routings
from .files import discard, stage
from .load import Inputs
from .plan import Plan
from .schema import Scenario
from .warm import WarmStart


@dataclass
class ScenarioOutcome:
    """What a batch keeps of one scenario's plan: the hidden file holding its plan file's text
    (`staged`, to be renamed to its path), or the text itself, and the figures shown."""

    scenario: Scenario
    plan_json: str
    status: str
    total_cost: float
    diagnosis: list[str]
    comparison: Comparison
    staged: str | None = None


@dataclass
class Batch:
    """The work of one batch: the base, the applied scenarios and where their plan files go."""

    base: Plan
    start: WarmStart
    applied: list[tuple[Scenario, Inputs]]
    solver: str
    review: bool
    paths: list[Path] | None = None
    tag: str = ""
    routing: dict[str, list[str]] = field(init=False)  # the base's, shown beside each scenario's

    def __post_init__(self) -> None:
        self.routing = routings(self.base)

    def solve(self, i: int) -> ScenarioOutcome:
        from .solve import solve_inputs

        scenario, inputs = self.applied[i]
        plan = solve_inputs(
            inputs, self.solver, scenario=scenario.name, start=self.start, review=self.review, resilience=False
        )
        text, staged = plan.to_json(), None
        if self.paths is not None:
            staged, text = stage(self.paths[i], text, self.tag), ""
        try:
            return ScenarioOutcome(
                scenario,
                text,
                plan.status,
                plan.total_cost,
                list(plan.diagnosis),
                compare_plans(self.base, plan, "base", scenario.name, self.routing),
                staged,
            )
        except BaseException:
            if staged:
                discard(staged)
            raise


_batch: Batch | None = None  # a worker's batch, set by the pool's initializer


def _init_worker(batch: Batch) -> None:
    global _batch
    _batch = batch


def _solve_in_worker(i: int) -> ScenarioOutcome:
    assert _batch is not None
    return _batch.solve(i)


def _can_fork() -> bool:
    """Forked workers only on Linux: macOS offers fork but its system libraries are not fork-safe."""
    return sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def solve_scenarios(
    base: Plan,
    start: WarmStart,
    applied: list[tuple[Scenario, Inputs]],
    solver: str,
    review: bool = False,
    jobs: int | None = None,
    progress: Callable[[], None] = lambda: None,
    paths: list[Path] | None = None,
) -> list[ScenarioOutcome]:
    """Solve every applied scenario from the base's WarmStart; with jobs > 1 (default: the cores this
    process may use) in forked worker processes on Linux, else one after the other.

    paths (one per scenario): each plan file's text is left in a hidden file beside its path (the
    outcome's `staged`) for the caller to rename into place; should the batch fail, none is left."""
    jobs = min(default_jobs() if jobs is None else max(1, jobs), len(applied))
    batch = Batch(base, start, applied, solver, review, paths, f"{os.getpid()}-{secrets.token_hex(4)}.")
    try:
        if jobs <= 1 or not _can_fork():
            out = []
            for i in range(len(applied)):
                out.append(batch.solve(i))
                progress()
            return out
        from concurrent.futures import ProcessPoolExecutor, as_completed

        results: dict[int, ScenarioOutcome] = {}
        with ProcessPoolExecutor(
            jobs, mp_context=multiprocessing.get_context("fork"), initializer=_init_worker, initargs=(batch,)
        ) as pool:
            futures = {pool.submit(_solve_in_worker, i): i for i in range(len(applied))}
            for future in as_completed(futures):
                results[futures[future]] = future.result()  # a worker's error is raised here
                progress()
        return [results[i] for i in range(len(applied))]
    except BaseException:
        for path in paths or ():  # the staged files of every scenario, finished or not
            for leftover in Path(path).parent.glob(f".{Path(path).name}.{batch.tag}*"):
                discard(str(leftover))
        raise
