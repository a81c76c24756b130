"""planner: per-workload model selection as a linear program.

    import planner
    inputs = planner.load_inputs("workloads/support.yaml")
    plan = planner.solve(inputs, planner.SolveOptions(solver="highs"))
    print(plan.status, plan.total_cost)

The names below load on first use, so that `planner --help` stays quick."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

from planner.core.version import __version__ as __version__

_HOMES = {
    "load_inputs": "planner.model.load",
    "Inputs": "planner.model.load",
    "solve": "planner.pipeline.api",
    "SolveOptions": "planner.pipeline.api",
    "whatif": "planner.pipeline.api",
    "frontier": "planner.pipeline.api",
    "compare_plans": "planner.pipeline.api",
    "Plan": "planner.plan.model",
    "read_plan": "planner.plan.model",
    "PlannerError": "planner.core.errors",
    "InputError": "planner.core.errors",
    "SolverError": "planner.core.errors",
    "NetworkError": "planner.core.errors",
    "ExportError": "planner.core.errors",
}
__all__ = [
    "ExportError",
    "InputError",
    "Inputs",
    "NetworkError",
    "Plan",
    "PlannerError",
    "SolveOptions",
    "SolverError",
    "compare_plans",
    "frontier",
    "load_inputs",
    "read_plan",
    "solve",
    "whatif",
]

if TYPE_CHECKING:  # for type checkers and editors: the names as if imported here
    from planner.core.errors import ExportError, InputError, NetworkError, PlannerError, SolverError
    from planner.model.load import Inputs, load_inputs
    from planner.pipeline.api import SolveOptions, compare_plans, frontier, solve, whatif
    from planner.plan.model import Plan, read_plan


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'planner' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
