"""The solvers behind one small interface, each registered with what it can do: HiGHS (highs.py), handed
the LP's arrays through highspy, and CBC (cbc.py), through a PuLP model built from the same rows.

A `SolverModel` holds one LP: its share columns, the max_options binaries when solved as an
integer program, and one slack column per relaxable row when elastic. The passes in solver.py
(cost, smallest relaxation, latency tie-break, the max_options integer pass) are written once
over this interface; a backend only builds, bounds, prices, runs and reads a model. A backend that
can re-solve warm (RESOLVE) also holds an LP as a `Resolver` (resolve.py) for outages and frontiers,
and one that can start warm (WARM_START) solves an LP by sifting from a guess of its columns. One that
can start an integer search from a plan (MIP_START) is given a first plan for commitments and switches
(incumbent.py); without it the search runs unstarted. Work that needs a capability gets it here
(`resolver`, `needing`), and a backend without it is refused in one sentence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from planner.core.errors import InputError, Setting
from planner.optimize.cbc import PulpModel
from planner.optimize.highs import HighsModel
from planner.optimize.lp import LinearProgram
from planner.optimize.resolve import Point, Sifted, resolver_of, solve_sifted

# What a backend can do, beyond solving an LP from scratch:
INTEGER = "integer"  # integer columns (max_options, commitments, switches)
RESOLVE = "resolve"  # keep the model and re-solve it warm after changing bounds and rows (outages, frontiers)
WARM_START = "warm start"  # start from another model's routing (a what-if scenario, by sifting)
MIP_START = "integer start"  # start an integer search from a known plan (SolverModel.start_from)
ABLE = {
    INTEGER: "integer columns",
    RESOLVE: "re-solving one model warm",
    WARM_START: "a warm start",
    MIP_START: "an integer search started from a plan",
}


class SolverModel(Protocol):
    """One LP in a solver. Columns: shares, then the LP's extras, then the max_options binaries
    (integer), then slacks (elastic)."""

    def bound_shares(self, lower: np.ndarray, upper: np.ndarray) -> None:
        """Bounds of the first len(lower) columns: the shares, and the extras when given for them too."""

    def set_costs(self, shares: np.ndarray, slacks: np.ndarray | None = None) -> None:
        """The objective: a cost per share column and, when elastic, per relaxable row's slack."""

    def add_cap(self, coefs: np.ndarray, upper: float, *, on_slacks: bool = False) -> int:
        """A new row sum(coefs x column) <= upper over the share (or slack) columns; its handle."""

    def loosen(self, handle: int, upper: float) -> None:
        """Raise the bound of an added row and solve afresh at the next run."""

    def run(self) -> bool:
        """Solve; True when optimal. `status` names the outcome."""

    status: str
    seconds: float

    def objective(self) -> float: ...

    def shares(self) -> np.ndarray:
        """The share columns' values; an option whose max_options binary is off carries nothing."""

    def extras(self) -> np.ndarray:
        """The extra columns' values (commitments, switches), in the LP's order."""

    def limit_time(self, seconds: float) -> None:
        """Stop an integer solve after this long with the best plan found."""

    def start_from(self, values: np.ndarray) -> None:
        """Start the integer search from a feasible plan (a value per column: shares, then extras); only a
        backend that can (MIP_START)."""

    def gap(self) -> float | None:
        """An integer plan's relative gap (0: proven optimal; None: an LP, or not reported)."""

    def slacks(self) -> np.ndarray:
        """Per LP row, its slack's value (zero for rows without one)."""

    def slack_values(self) -> np.ndarray:
        """The slack columns' values, in the order of the relaxable rows."""

    def duals(self) -> tuple[dict[int, float], np.ndarray] | None:
        """(dual per LP row in the solver's sign, reduced cost per share column), or None (integer)."""

    def size(self) -> tuple[int, int]:
        """(columns, rows) of the model as it stands."""


class Resolver(Protocol):
    """One LP held in a solver and re-solved warm (RESOLVE): share columns switched on and off, rows moved,
    each point run from where the last one stopped."""

    def set_upper(self, upper: np.ndarray) -> None:
        """Upper bounds of the share columns (0 switches an option off)."""

    def set_coefs(self, row: int, cols: np.ndarray, values: np.ndarray) -> None:
        """One row's coefficients on the columns `cols`."""

    def set_row_bounds(self, row: int, lower: float, upper: float) -> None:
        """A row's bounds."""

    def set_row_lower(self, row: int, lower: float) -> None:
        """The lower bound of a '>=' row."""

    def set_prices(self, factor: np.ndarray) -> None:
        """Per share column a factor on its price (1: as built), in the objective and every money row."""

    def run(self) -> Point:
        """The point as the model now stands: ok, the cleaned shares, their cost."""


@dataclass(frozen=True)
class Backend:
    """A solver the planner can use: its name in plans, how to build a SolverModel of an LP, what it can do
    (INTEGER, RESOLVE, WARM_START) and, for the last two, how: `resolver(lp, sifted=...)` holds an LP
    for warm re-solves, `sift(lp, start)` solves one from a guess of its optimal columns."""

    name: str
    model: Callable[..., SolverModel]
    can: frozenset[str]
    resolver: Callable[..., Resolver] | None = None
    sift: Callable[[LinearProgram, np.ndarray], Sifted | None] | None = None

    def __post_init__(self) -> None:
        if (RESOLVE in self.can) != (self.resolver is not None) or (WARM_START in self.can) != (self.sift is not None):
            raise ValueError(f"backend {self.name}: its capabilities and its re-solvers disagree")


def _highs(lp: LinearProgram, *, integer: bool, elastic: bool, presolve: bool) -> SolverModel:
    return HighsModel(lp, integer=integer, elastic=elastic, presolve=presolve)


def _pulp(lp: LinearProgram, *, integer: bool, elastic: bool, presolve: bool) -> SolverModel:
    return PulpModel(lp, integer=integer, elastic=elastic)  # (CBC through PuLP: presolve is its own)


REGISTRY: dict[str, Backend] = {
    "highs": Backend("HiGHS", _highs, frozenset({INTEGER, RESOLVE, WARM_START, MIP_START}), resolver_of, solve_sifted),
    "cbc": Backend("CBC", _pulp, frozenset({INTEGER})),
}
SOLVERS = ("auto", *sorted(REGISTRY))


def backend(solver: str) -> Backend:
    """The registered backend of a solver name ("highs", "cbc"); an input error naming the choices."""
    found = REGISTRY.get(solver)
    if found is None:
        expected = ", ".join(SOLVERS)
        raise InputError.single(Setting("solver"), "", f"unknown solver '{solver}'; expected one of: {expected}")
    return found


def can(solver: str, capability: str) -> bool:
    return capability in backend(solver).can


def needing(solver: str, capability: str, why: str) -> Backend:
    """The solver's backend, which `why` (the work, in words) needs to have `capability`: an input error
    in one sentence when it has not (the work is not done with another solver behind the user's back)."""
    found = backend(solver)
    if capability not in found.can:
        able = ", ".join(name for name, b in REGISTRY.items() if capability in b.can)
        raise InputError.single(
            Setting("solver"), "", f"{why} needs {ABLE[capability]}, which {found.name} cannot do ({able} can)"
        )
    return found


def resolver(
    solver: str, lp: LinearProgram, *, why: str, sifted: bool = False, start: np.ndarray | None = None
) -> Resolver:
    """The LP held in the solver's backend for warm re-solves (RESOLVE), refused as `needing` says when the
    backend cannot. sifted: each point solved by sifting (an LP without integer columns), not whole, from
    a first model holding the columns of `start` (a known optimum's, bool per column) when given."""
    return needing(solver, RESOLVE, why).resolver(lp, sifted=sifted, start=start)


def pick_solver(name: str = "auto") -> str:
    """auto: HiGHS when highspy is installed (a dependency, so nearly always), else CBC from PuLP."""
    if name != "auto":
        backend(name)
        return name
    from importlib.util import find_spec

    return "highs" if find_spec("highspy") is not None else "cbc"


def make_model(
    solver: str, lp: LinearProgram, *, integer: bool = True, elastic: bool = False, presolve: bool = False
) -> SolverModel:
    """The LP in the named solver's backend: integer adds the max_options binaries, elastic a slack per
    relaxable row. presolve (HiGHS) starts with presolve on, for small restricted LPs."""
    return backend(solver).model(lp, integer=integer, elastic=elastic, presolve=presolve)
