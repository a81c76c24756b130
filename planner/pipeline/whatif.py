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
import signal
import sys
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field, replace
from pathlib import Path

from planner.core.files import discard, stage
from planner.core.records import trusted
from planner.model.load import Inputs
from planner.model.schema import Scenario
from planner.pipeline.warm import WarmStart
from planner.plan.model import Plan
from planner.review.compare import Comparison, WorkloadChange, compare_plans, routings, scores


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
    _: KW_ONLY
    review: bool
    paths: list[Path] | None = None
    tag: str = ""
    routing: dict[str, list[str]] = field(init=False)  # the base's, shown beside each scenario's
    scores: dict[tuple[str, str, str], float] = field(init=False)  # the base's capability scores
    kept: list[WorkloadChange] = field(init=False)  # per base workload, its comparison row when a plan keeps it
    kept_rows: list[tuple] = field(init=False)  # the same as values

    def __post_init__(self) -> None:
        self.routing = routings(self.base)
        self.scores = scores(self.base)
        self.kept = [
            trusted(WorkloadChange, dict(zip(_ROW, (w.id, w.status, w.status, w.cost, w.cost, r, r, False))))
            for w in self.base.workloads
            for r in [self.routing[w.id]]
        ]
        self.kept_rows = [tuple(w.__dict__.values()) for w in self.kept]

    def solve(self, i: int) -> ScenarioOutcome:
        from planner.pipeline.solve import solve_inputs

        scenario, inputs = self.applied[i]
        plan = solve_inputs(
            inputs, self.solver, scenario=scenario.name, start=self.start, review=self.review, resilience=False
        )
        text, staged = plan.to_json(full=self.review), None
        if self.paths is not None:
            staged, text = stage(self.paths[i], text, self.tag), ""
        try:
            return ScenarioOutcome(
                scenario,
                text,
                plan.status,
                plan.total_cost,
                list(plan.diagnosis),
                compare_plans(self.base, plan, "base", scenario.name, self.routing, self.scores),
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
    # a worker is stopped by its parent (terminate: SIGTERM) and leaves Ctrl-C to it
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


_ROW = list(WorkloadChange.model_fields)


def _solve_in_worker(i: int) -> tuple[ScenarioOutcome, dict, list[tuple | None]]:
    """A scenario solved in a worker; its comparison goes back as plain values: its workload rows as
    tuples, None for a row equal to the base workload's kept row (Batch.kept). Making a thousand row
    models per scenario in the parent took its CPU from the workers on a two-core machine."""
    assert _batch is not None
    outcome = _batch.solve(i)
    head = {k: v for k, v in outcome.comparison.__dict__.items() if k != "workloads"}
    kept = _batch.kept_rows
    rows = [tuple(w.__dict__.values()) for w in outcome.comparison.workloads]
    rows = [None if k < len(kept) and row == kept[k] else row for k, row in enumerate(rows)]
    return replace(outcome, comparison=None), head, rows


def _comparison(head: dict, rows: list[tuple | None], kept: list[WorkloadChange]) -> Comparison:
    """The comparison a worker sent as values (_solve_in_worker), as the typed records it was."""
    workloads = [
        kept[k] if row is None else trusted(WorkloadChange, dict(zip(_ROW, row))) for k, row in enumerate(rows)
    ]
    return trusted(Comparison, {k: workloads if k == "workloads" else head[k] for k in Comparison.model_fields})


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
    *,
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
    tag = f"{os.getpid()}-{secrets.token_hex(4)}."
    batch = Batch(base, start, applied, solver, review=review, paths=paths, tag=tag)
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
            try:
                futures = {pool.submit(_solve_in_worker, i): i for i in range(len(applied))}
                for future in as_completed(futures):
                    outcome, head, rows = future.result()  # a worker's error is raised here
                    results[futures[future]] = replace(outcome, comparison=_comparison(head, rows, batch.kept))
                    progress()
            except BaseException:  # an error, or a signal: no worker outlives the batch
                pool.shutdown(wait=False, cancel_futures=True)
                for child in multiprocessing.active_children():
                    child.terminate()
                raise
        return [results[i] for i in range(len(applied))]
    except BaseException:
        for path in paths or ():  # the staged files of every scenario, finished or not
            for leftover in Path(path).parent.glob(f".{Path(path).name}.{batch.tag}*"):
                discard(str(leftover))
        raise
