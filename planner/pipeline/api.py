"""The planner as a library: the functions `planner` exports (its __init__), each a thin, typed door
onto the pipeline the commands use, so that a notebook or a CI job gets the same plans as the CLI."""

from __future__ import annotations

from pathlib import Path

from planner.model.load import Inputs, load_scenario
from planner.model.scenarios import apply_scenario
from planner.model.schema import Scenario
from planner.pipeline.frontier import Frontier
from planner.pipeline.frontier import frontier as _frontier
from planner.pipeline.solve import SolveOptions, solve, solve_base, solve_inputs
from planner.plan.model import Plan
from planner.review.compare import Comparison, labels
from planner.review.compare import compare_plans as _compare


def whatif(
    inputs: Inputs, scenarios: list[Scenario | str | Path], options: SolveOptions = SolveOptions()
) -> list[Plan]:
    """One plan per scenario (a Scenario, or the path of a scenario file), each solved from the base plan of
    `inputs` as `planner whatif` solves it; every scenario is checked before any is solved."""
    applied = []
    for sc in scenarios:
        scenario, source = (sc, "scenario") if isinstance(sc, Scenario) else (load_scenario(sc), str(sc))
        applied.append((scenario, apply_scenario(inputs, scenario, source)))
    _, start = solve_base(inputs, options.solver)
    return [
        solve_inputs(
            changed,
            options.solver,
            scenario=scenario.name,
            start=start,
            review=options.review,
            resilience=options.resilience,
            time_limit=options.time_limit,
        )
        for scenario, changed in applied
    ]


def frontier(inputs: Inputs, workload: str | None = None, points: int = 30) -> Frontier:
    """Cost as the latency budget and the capability floor sweep: of one workload, or (None) of every
    budget scaled together; today's plan marked."""
    return _frontier(inputs, workload, points)


def compare_plans(old: Plan, new: Plan, label: tuple[str, str] | None = None) -> Comparison:
    """Two plans side by side: spend by company, and the change split into a cost bridge that adds up."""
    return _compare(old, new, *labels(old, new, list(label) if label else None))


__all__ = ["SolveOptions", "compare_plans", "frontier", "solve", "whatif"]
