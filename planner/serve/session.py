"""One live review: the loaded inputs, the base plan and its WarmStart, and the current state (the
changes in force, their scenario and its plan against the base).

Each solve applies the whole list of changes to the loaded base and solves it warm from the base's
WarmStart, as `planner whatif` solves a scenario (no break-even prices, baselines or outage table),
so the plan the page shows is the one `planner whatif` gives for the saved scenario. A list the
inputs refuse leaves the current state as it was.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from planner.core.errors import InputError, Problem
from planner.model.load import Inputs
from planner.model.scenarios import apply_scenario
from planner.model.schema import Scenario
from planner.pipeline.solve import solve_base, solve_inputs
from planner.plan.model import Plan
from planner.review.compare import Comparison, compare_plans, routings, scores
from planner.serve.changes import SOURCE, Change, check, label, scenario_of

LIVE = "live"  # the scenario's name on the page; a saved file is named after itself


@dataclass
class State:
    """The changes in force and what they give: their scenario (None: the base), the edited inputs, the
    plan and its comparison with the base (None for the base itself)."""

    changes: list[Change]
    scenario: Scenario | None
    inputs: Inputs
    plan: Plan
    comparison: Comparison | None
    seconds: float = 0.0
    report: str | None = field(default=None, repr=False)  # the full report, made once when asked for


class Session:
    """The loaded base and the current state; solves one at a time."""

    def __init__(self, inputs: Inputs, solver: str = "auto") -> None:
        self.inputs, self.solver = inputs, solver
        self.base, self.start = solve_base(inputs, solver)
        self._routing, self._scores = routings(self.base), scores(self.base)
        self._lock = threading.Lock()
        self.current = State([], None, inputs, self.base, None)

    def solve(self, changes: list[Change]) -> State:
        """The state of these changes (they replace those in force); an InputError leaves it unchanged."""
        with self._lock:
            started = time.perf_counter()
            if not changes:
                state = State([], None, self.inputs, self.base, None)
            else:
                check(changes, self.inputs)
                scenario, applied = self._applied(changes)
                plan = solve_inputs(
                    applied, self.solver, scenario=LIVE, start=self.start, review=False, resilience=False
                )
                comparison = compare_plans(self.base, plan, "base", "now", self._routing, self._scores)
                state = State(changes, scenario, applied, plan, comparison)
            state.seconds = time.perf_counter() - started
            self.current = state
            return state

    def _applied(self, changes: list[Change]) -> tuple[Scenario, Inputs]:
        """The changes' scenario applied to the base. A refusal names the first change that brings it: the
        shortest refused head of the list, found by bisection (only when the whole list is refused)."""
        scenario = scenario_of(changes, self.inputs, LIVE)
        try:
            return scenario, apply_scenario(self.inputs, scenario, SOURCE)
        except InputError as whole:
            refused = whole
            ok, bad = 0, len(changes)  # a head of `ok` changes applies; one of `bad` is refused
            while bad - ok > 1:
                mid = (ok + bad) // 2
                try:
                    apply_scenario(self.inputs, scenario_of(changes[:mid], self.inputs, LIVE), SOURCE)
                    ok = mid
                except InputError as exc:
                    bad, refused = mid, exc
            where = f"changes[{bad - 1}] ({label(changes[bad - 1], self.inputs.workloads.policy.share_of)})"
            p = refused.problems[0] if refused.problems else Problem("", str(refused))
            raise InputError(SOURCE, [Problem(f"{where}: {p.path}" if p.path else where, p.message)]) from None

    def report(self) -> tuple[State, str]:
        """The current state's HTML report, as `planner solve` writes it for the edited files (the review
        figures included: the base's own, or one full solve of the edited inputs, made once)."""
        from planner.outputs.report import render_plan_report

        with self._lock:
            state = self.current
            if state.report is None:
                plan = self.base
                if state.scenario is not None:
                    plan = solve_inputs(state.inputs, self.solver, scenario=LIVE, start=self.start)
                state.report = render_plan_report(plan)
            return state, state.report

    def workloads_file(self) -> Path:
        return Path(self.inputs.workloads_file)
