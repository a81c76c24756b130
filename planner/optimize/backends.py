"""The two solvers behind one small interface: HiGHS, handed the LP's arrays through highspy, and
CBC, through a PuLP model built from the same rows.

A `SolverModel` holds one LP: its share columns, the max_options binaries when solved as an
integer program, and one slack column per relaxable row when elastic. The passes in solver.py
(cost, smallest relaxation, latency tie-break, the max_options integer pass) are written once
over this interface; a backend only builds, bounds, prices, runs and reads a model.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from planner.core.errors import InputError, Setting
from planner.core.timing import OutOfTime, run_limit
from planner.optimize.lp import LinearProgram

MIP_GAP = 1e-9  # the relative gap an integer plan is proven optimal to
CONTRACT_GAP = 1e-6  # ... and one with commitments or switches (SPEC v1.6)

# What a backend can do, beyond solving an LP from scratch:
INTEGER = "integer"  # integer columns (max_options, commitments, switches)
RESOLVE = "resolve"  # keep the model and re-solve it warm after changing bounds and rows (outages, frontiers)
WARM_START = "warm start"  # start from another model's routing (a what-if scenario, by sifting)


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


@dataclass(frozen=True)
class Backend:
    """A solver the planner can use: its name in plans, how to build a SolverModel of an LP, and what it
    can do (INTEGER, RESOLVE, WARM_START)."""

    name: str
    model: Callable[..., SolverModel]
    can: frozenset[str]


def _highs(lp: LinearProgram, *, integer: bool, elastic: bool, presolve: bool) -> SolverModel:
    return HighsModel(lp, integer=integer, elastic=elastic, presolve=presolve)


def _pulp(lp: LinearProgram, *, integer: bool, elastic: bool, presolve: bool) -> SolverModel:
    return PulpModel(lp, integer=integer, elastic=elastic)  # (CBC through PuLP: presolve is its own)


REGISTRY: dict[str, Backend] = {
    "highs": Backend("HiGHS", _highs, frozenset({INTEGER, RESOLVE, WARM_START})),
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


def _relaxed_rows(lp: LinearProgram, *, elastic: bool) -> list[int]:
    return [r for r, row in enumerate(lp.rows) if row.relax_weight is not None] if elastic else []


def _apply_binaries(lp: LinearProgram, values, n: int, *, is_mip: bool) -> np.ndarray:
    """Shares from values laid out as [shares..., extras..., binaries of each max_options group...]."""
    share = np.array(values[:n])
    if is_mip and lp.max_options:
        y = n + len(lp.extras)
        for _, cols, _ in lp.max_options:
            on = np.array(values[y : y + len(cols)]) > 0.5
            share[cols] = np.where(on, share[cols], 0.0)
            y += len(cols)
    return share


# ----------------------------------------------------------------------------- HiGHS


@contextlib.contextmanager
def _quiet_stdout():
    """highspy prints its banner on creation, before any option can switch it off."""
    sys.stdout.flush()
    saved = os.dup(1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def highs_model(lp: LinearProgram, *, integer: bool = True, elastic: bool = False):
    """The LP as a highspy model, built straight from its arrays (no modelling layer).

    Columns: the share variables, then the binaries, then one slack per relaxable row. Returns the
    Highs object and the slack column of each relaxed row."""
    import highspy

    columns = _Columns.of(lp, integer=integer, elastic=elastic)
    rows = _lp_rows(lp, highspy.kHighsInf)
    slack_of = _add_slacks(rows, lp, columns)
    _add_max_options(rows, columns, highspy.kHighsInf)
    return _highs(_highs_lp(lp, columns, rows), lp, columns), slack_of


@dataclass(frozen=True)
class _Columns:
    """A HiGHS model's columns, in order: n shares, the LP's n_e extras, n_y max_options binaries (an
    integer program), then one slack per relaxed row (elastic)."""

    n: int
    n_e: int
    n_y: int
    groups: list  # the LP's max_options groups (workload, share columns, k); empty unless integer
    relaxed: list[int]  # the LP rows with a slack
    whole: np.ndarray  # per extra column, whether it is an integer

    @staticmethod
    def of(lp: LinearProgram, *, integer: bool, elastic: bool) -> _Columns:
        groups = lp.max_options if integer else []
        return _Columns(
            n=len(lp.var_w),
            n_e=len(lp.extras),
            n_y=sum(len(cols) for _, cols, _ in groups),
            groups=groups,
            relaxed=_relaxed_rows(lp, elastic=elastic),
            whole=lp.extras.integer if integer else np.zeros(len(lp.extras), dtype=bool),
        )

    @property
    def total(self) -> int:
        return self.n + self.n_e + self.n_y + len(self.relaxed)

    @property
    def mip(self) -> bool:
        """Whether any column is an integer."""
        return bool(self.n_y or self.whole.any())


@dataclass
class _Rows:
    """A HiGHS model's rows as they are built: their entries as coordinates (row, column, value) in
    pieces, and each row's bounds."""

    rows_i: list[np.ndarray]
    cols_j: list[np.ndarray]
    vals: list[np.ndarray]
    lower: list[float]
    upper: list[float]
    count: int


def _lp_rows(lp: LinearProgram, inf: float) -> _Rows:
    """The LP's own rows: its matrix, and bounds from its senses (0 "<=", 1 ">=", 2 "==")."""
    row_of, row_cols, row_coefs = lp.matrix
    sense, rhs = lp.senses
    lower = np.where(sense == 0, -inf, rhs).tolist()
    upper = np.where(sense == 1, inf, rhs).tolist()
    return _Rows([row_of], [row_cols], [row_coefs], lower, upper, len(lp.rows))


def _add_slacks(rows: _Rows, lp: LinearProgram, columns: _Columns) -> dict[int, int]:
    """A slack column in each relaxed row (-1 in a "<=" row, +1 in a ">=" one); the slack column of each."""
    relaxed = columns.relaxed
    slack_cols = columns.n + columns.n_e + columns.n_y + np.arange(len(relaxed))
    if relaxed:
        rows.rows_i.append(np.array(relaxed))
        rows.cols_j.append(slack_cols)
        rows.vals.append(np.array([-1.0 if lp.rows[r].sense == "<=" else 1.0 for r in relaxed]))
    return dict(zip(relaxed, slack_cols.tolist()))


def _add_max_options(rows: _Rows, columns: _Columns, inf: float) -> None:
    """Per max_options group, its binaries' rows: x_j - y_j <= 0 for each share, and sum y <= k."""
    r = rows.count
    y = columns.n + columns.n_e
    for _, cols, k in columns.groups:
        ys = np.arange(y, y + len(cols))
        rows.rows_i.append(np.repeat(np.arange(r, r + len(cols)), 2))
        rows.cols_j.append(np.column_stack([cols, ys]).ravel())
        rows.vals.append(np.tile([1.0, -1.0], len(cols)))
        rows.lower += [-inf] * len(cols)
        rows.upper += [0.0] * len(cols)
        r += len(cols)
        rows.rows_i.append(np.full(len(ys), r))
        rows.cols_j.append(ys)
        rows.vals.append(np.ones(len(ys)))
        rows.lower.append(-inf)
        rows.upper.append(float(k))
        r += 1
        y += len(cols)
    rows.count = r


def _highs_lp(lp: LinearProgram, columns: _Columns, rows: _Rows):
    """The HighsLp: costs and bounds of the columns (shares and binaries in [0, 1], the extras' own,
    slacks from 0 up), the rows' bounds, the matrix row-wise, and which columns are integers."""
    import highspy

    inf = highspy.kHighsInf
    n, n_e, n_cols, r = columns.n, columns.n_e, columns.total, rows.count
    ri = np.concatenate(rows.rows_i)
    cj = np.concatenate(rows.cols_j).astype(int)
    va = np.concatenate(rows.vals)
    # row-wise: the rows' own entries, in row order (lp.matrix already is, when nothing was added)
    order = np.argsort(ri, kind="stable") if len(rows.rows_i) > 1 else slice(None)
    model = highspy.HighsLp()
    model.num_col_ = n_cols
    model.num_row_ = r
    cost = np.zeros(n_cols)
    cost[: n + n_e] = lp.full_objective
    model.col_cost_ = cost
    col_lower = np.zeros(n_cols)
    col_upper = np.ones(n_cols)
    col_lower[n : n + n_e], col_upper[n : n + n_e] = lp.extras.lower, lp.extras.upper
    col_upper[n + n_e + columns.n_y :] = inf
    model.col_lower_ = col_lower
    model.col_upper_ = col_upper
    model.row_lower_ = np.array(rows.lower, dtype=float)
    model.row_upper_ = np.array(rows.upper, dtype=float)
    model.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    model.a_matrix_.num_col_ = n_cols
    model.a_matrix_.num_row_ = r
    model.a_matrix_.start_ = np.r_[0, np.cumsum(np.bincount(ri, minlength=r))].astype(np.int32)
    model.a_matrix_.index_ = cj[order].astype(np.int32)
    model.a_matrix_.value_ = va[order]
    if columns.mip:
        kinds = [highspy.HighsVarType.kContinuous] * n_cols
        for j in (n + np.flatnonzero(columns.whole)).tolist() + list(range(n + n_e, n + n_e + columns.n_y)):
            kinds[j] = highspy.HighsVarType.kInteger
        model.integrality_ = kinds
    return model


def _highs(model, lp: LinearProgram, columns: _Columns):
    """A quiet, single-threaded Highs holding the model, with the gap an integer plan is solved to and,
    for an LP, presolve off."""
    import highspy

    with _quiet_stdout():
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    # integer plans are optimal, not within HiGHS's default gap: max_options to 1e-9; with commitments and
    # switches (hundreds of integers over the routing) to CONTRACT_GAP
    h.setOptionValue("mip_rel_gap", MIP_GAP if lp.max_options or not columns.n_e else CONTRACT_GAP)
    if not columns.mip:
        # a pruned assignment-shaped LP has little for presolve to remove, and presolve cost more than the
        # simplex itself on the benchmark instances (benchmarks/RESULTS.md)
        h.setOptionValue("presolve", "off")
    h.passModel(model)
    return h


def run_settled(h, own_limit: float | None = None) -> None:
    """Run HiGHS; should the simplex without presolve end anywhere but optimal or infeasible
    (numerical trouble), run it again from scratch with presolve on."""
    import highspy

    run_highs(h, own_limit)
    settled = (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kInfeasible)
    stopped = h.getModelStatus() == highspy.HighsModelStatus.kTimeLimit  # (its own limit: not run again)
    if h.getModelStatus() not in settled and not stopped and h.getOptionValue("presolve")[1] == "off":
        h.setOptionValue("presolve", "on")
        h.clearSolver()
        run_highs(h, own_limit)


def run_highs(h, own_limit: float | None = None) -> None:
    """One HiGHS run within its own time limit and the command's deadline (timing.deadline): OutOfTime
    when the deadline has passed, or cut the run short."""
    import highspy

    limit, cut = run_limit(own_limit)
    h.setOptionValue("time_limit", highspy.kHighsInf if limit is None else max(float(limit), 1e-3))
    h.run()
    if cut and h.getModelStatus() == highspy.HighsModelStatus.kTimeLimit:
        raise OutOfTime


def add_columns(h, lp: LinearProgram, new: np.ndarray, cost: np.ndarray, upper: np.ndarray) -> None:
    """Append the LP's columns `new` (ascending) to a HiGHS model of some of its columns, with their
    entries in the LP's rows: the model's basis is kept, so the next run goes on from where it stopped."""
    row_of, cols, coefs = lp.matrix
    pick = np.zeros(len(lp.var_w), dtype=bool)
    pick[new] = True
    at = np.flatnonzero(pick[cols])  # their entries, column by column
    at = at[np.argsort(cols[at], kind="stable")]
    starts = np.searchsorted(cols[at], new).astype(np.int32)
    h.addCols(len(new), cost, np.zeros(len(new)), upper, len(at), starts, row_of[at].astype(np.int32), coefs[at])


class HighsModel:
    """A SolverModel over highspy."""

    def __init__(self, lp: LinearProgram, *, integer: bool, elastic: bool, presolve: bool = False):
        import highspy

        self._hs = highspy
        self.lp = lp
        self.h, self._slack_of = highs_model(lp, integer=integer, elastic=elastic)
        if presolve:
            self.h.setOptionValue("presolve", "on")
        self._presolve = presolve
        self.n = len(lp.var_w)
        self.n_main = self.n + len(lp.extras)  # shares and extras: what costs and bounds are given for
        self.is_mip = integer and lp.integer
        self.time_limit: float | None = None
        self._slack_cols = np.array(sorted(self._slack_of.values()), dtype=np.int32)
        self.status = "Not solved"
        self.seconds = 0.0

    def bound_shares(self, lower: np.ndarray, upper: np.ndarray) -> None:
        m = len(lower)
        self.h.changeColsBounds(m, np.arange(m, dtype=np.int32), lower, upper)

    def set_costs(self, shares: np.ndarray, slacks: np.ndarray | None = None) -> None:
        n_cols = self.h.getNumCol()
        cost = np.zeros(n_cols)
        cost[: len(shares)] = shares
        if slacks is not None:
            cost[self._slack_cols] = slacks
        self.h.changeColsCost(n_cols, np.arange(n_cols, dtype=np.int32), cost)

    def add_cap(self, coefs: np.ndarray, upper: float, *, on_slacks: bool = False) -> int:
        cols = self._slack_cols if on_slacks else np.arange(len(coefs), dtype=np.int32)
        self.h.addRow(-self._hs.kHighsInf, upper, len(cols), cols, coefs)
        return self.h.getNumRow() - 1

    def loosen(self, handle: int, upper: float) -> None:
        self.h.changeRowBounds(handle, -self._hs.kHighsInf, upper)
        self.h.clearSolver()

    def run(self) -> bool:
        """Solve; if the run ends short of an answer (or, started with presolve on, short of optimal),
        solve again from scratch with presolve switched."""
        started = time.perf_counter()
        if self._presolve:
            run_highs(self.h, self.time_limit)
            if self.h.getModelStatus() != self._hs.HighsModelStatus.kOptimal:
                self.h.setOptionValue("presolve", "off")
                self.h.clearSolver()
                run_highs(self.h, self.time_limit)
        else:
            run_settled(self.h, self.time_limit)
        self.seconds += time.perf_counter() - started
        status = self.h.getModelStatus()
        ok = status == self._hs.HighsModelStatus.kOptimal
        if not ok and self.is_mip and status == self._hs.HighsModelStatus.kTimeLimit:
            if self.h.getInfo().primal_solution_status == 2:  # a feasible plan, not proven optimal
                self.status = "Time limit"
                return True
        self.status = (
            "Optimal"
            if ok
            else (
                "Infeasible" if status == self._hs.HighsModelStatus.kInfeasible else self.h.modelStatusToString(status)
            )
        )
        return ok

    def objective(self) -> float:
        return self.h.getInfo().objective_function_value

    def shares(self) -> np.ndarray:
        return _apply_binaries(self.lp, self.h.getSolution().col_value, self.n, is_mip=self.is_mip)

    def extras(self) -> np.ndarray:
        return np.array(self.h.getSolution().col_value[self.n : self.n_main])

    def limit_time(self, seconds: float) -> None:
        self.time_limit = seconds

    def gap(self) -> float | None:
        """The relative gap of an integer plan: 0 when proven optimal; None for an LP."""
        if not self.is_mip:
            return None
        info = self.h.getInfo()
        return float(info.mip_gap)

    def slacks(self) -> np.ndarray:
        values = self.h.getSolution().col_value
        out = np.zeros(len(self.lp.rows))
        for r, c in self._slack_of.items():
            out[r] = max(0.0, values[c])
        return out

    def slack_values(self) -> np.ndarray:
        """The slack columns' values, in column order."""
        return np.array(self.h.getSolution().col_value)[self._slack_cols]

    def duals(self) -> tuple[dict[int, float], np.ndarray] | None:
        sol = self.h.getSolution()
        if self.is_mip or not sol.dual_valid:
            return None
        row_dual = sol.row_dual
        return {i: float(row_dual[i]) for i in range(len(self.lp.rows))}, np.array(sol.col_dual[: self.n])

    def size(self) -> tuple[int, int]:
        return self.h.getNumCol(), self.h.getNumRow()


# ----------------------------------------------------------------------------- CBC through PuLP


def _cbc(*, mip: bool, time_limit: float | None = None, gap: float = MIP_GAP):
    import pulp

    with warnings.catch_warnings():  # deprecated only in PuLP 4, which pyproject excludes
        warnings.simplefilter("ignore", DeprecationWarning)
        return pulp.PULP_CBC_CMD(msg=False, mip=mip, timeLimit=time_limit, gapRel=gap if mip else None)


class PulpModel:
    """A SolverModel over a PuLP problem (expressions from lists of (variable, coefficient) pairs), solved
    by the CBC that PuLP bundles."""

    def __init__(self, lp: LinearProgram, *, integer: bool, elastic: bool):
        import pulp

        self._pulp = pulp
        self.lp = lp
        self.n = n = len(lp.var_w)
        prob = pulp.LpProblem("planner", pulp.LpMinimize)
        self.x = [prob.add_variable(f"x{j}", lowBound=0.0, upBound=1.0) for j in range(n)]
        ex = lp.extras
        self.e = [
            prob.add_variable(
                f"e_{k}",
                lowBound=float(ex.lower[k]),
                upBound=float(ex.upper[k]),
                cat=pulp.LpInteger if integer and ex.integer[k] else pulp.LpContinuous,
            )
            for k in range(len(ex))
        ]
        self.cols = self.x + self.e  # every column the LP's rows name: shares, then extras
        self.constraints = []
        self._slacks: dict[int, pulp.LpVariable] = {}
        senses = {"<=": pulp.LpConstraintLE, ">=": pulp.LpConstraintGE, "==": pulp.LpConstraintEQ}
        for i, row in enumerate(lp.rows):
            terms = [(self.cols[j], float(c)) for j, c in zip(row.cols.tolist(), row.coefs.tolist())]
            if elastic and row.relax_weight is not None:
                s = prob.add_variable(f"s{i}", lowBound=0)
                self._slacks[i] = s
                terms.append((s, -1.0 if row.sense == "<=" else 1.0))
            con = pulp.LpConstraint(pulp.LpAffineExpression(terms), senses[row.sense], f"r{i}", float(row.rhs))
            prob.addConstraint(con)
            self.constraints.append(con)
        self.binaries = []
        if integer and lp.max_options:
            for g, (_, cols, k) in enumerate(lp.max_options):
                ys = [prob.add_variable(f"y{g}_{j}", 0, 1, cat=pulp.LpBinary) for j in cols]
                self.binaries.append(ys)
                for j, y in zip(cols, ys):
                    prob.addConstraint(
                        pulp.LpConstraint(
                            pulp.LpAffineExpression([(self.x[j], 1.0), (y, -1.0)]),
                            pulp.LpConstraintLE,
                            f"link{g}_{j}",
                            0.0,
                        )
                    )
                prob.addConstraint(
                    pulp.LpConstraint(
                        pulp.LpAffineExpression([(y, 1.0) for y in ys]),
                        pulp.LpConstraintLE,
                        f"max_options{g}",
                        float(k),
                    )
                )
        self.prob = prob
        self.is_mip = bool(self.binaries) or (integer and bool(ex.integer.any()))
        self._added: list = []
        self.status = "Not solved"
        self.seconds = 0.0
        self.time_limit: float | None = None

    def bound_shares(self, lower: np.ndarray, upper: np.ndarray) -> None:
        for v, lo, hi in zip(
            self.cols, np.asarray(lower, dtype=float).tolist(), np.asarray(upper, dtype=float).tolist()
        ):
            v.lowBound, v.upBound = lo, hi

    def set_costs(self, shares: np.ndarray, slacks: np.ndarray | None = None) -> None:
        terms = list(zip(self.cols, np.asarray(shares, dtype=float).tolist()))
        if slacks is not None:
            terms += [(s, float(c)) for s, c in zip(self._slack_list(), slacks)]
        self.prob.setObjective(self._pulp.LpAffineExpression(terms))

    def _slack_list(self) -> list:
        return [self._slacks[i] for i in sorted(self._slacks)]

    def add_cap(self, coefs: np.ndarray, upper: float, *, on_slacks: bool = False) -> int:
        cols = self._slack_list() if on_slacks else self.cols
        con = self._pulp.LpConstraint(
            self._pulp.LpAffineExpression(list(zip(cols, np.asarray(coefs).tolist()))),
            self._pulp.LpConstraintLE,
            f"cap{len(self._added)}",
            float(upper),
        )
        self.prob.addConstraint(con)
        self._added.append(con)
        return len(self._added) - 1

    def loosen(self, handle: int, upper: float) -> None:
        self._added[handle].constant = -float(upper)

    def run(self) -> bool:
        started = time.perf_counter()
        gap = MIP_GAP if self.lp.max_options or not len(self.lp.extras) else CONTRACT_GAP
        limit, cut = run_limit(self.time_limit)
        self.prob.solve(_cbc(mip=self.is_mip, time_limit=limit, gap=gap))
        self.seconds += time.perf_counter() - started
        self.status = self._pulp.LpStatus[self.prob.status]
        stopped = self.prob.sol_status == self._pulp.LpSolutionIntegerFeasible or self.status not in (
            "Optimal",
            "Infeasible",
        )
        if cut and stopped:
            raise OutOfTime  # (CBC through PuLP does not say whether its time limit stopped it)
        if self.is_mip and self.time_limit is not None and self.prob.sol_status == self._pulp.LpSolutionIntegerFeasible:
            self.status = "Time limit"  # a feasible plan, not proven optimal
            return True
        return self.status == "Optimal"

    def extras(self) -> np.ndarray:
        return np.array([v.varValue or 0.0 for v in self.e])

    def limit_time(self, seconds: float) -> None:
        self.time_limit = seconds

    def gap(self) -> float | None:
        """CBC through PuLP does not report the gap it stopped at: None (unknown) unless proven optimal."""
        if not self.is_mip:
            return None
        return 0.0 if self.status == "Optimal" else None

    def objective(self) -> float:
        return float(self._pulp.value(self.prob.objective) or 0.0)

    def shares(self) -> np.ndarray:
        values = [v.varValue or 0.0 for v in self.cols] + [y.varValue or 0.0 for ys in self.binaries for y in ys]
        return _apply_binaries(self.lp, values, self.n, is_mip=self.is_mip)

    def slacks(self) -> np.ndarray:
        out = np.zeros(len(self.lp.rows))
        for i, s in self._slacks.items():
            out[i] = max(0.0, s.varValue or 0.0)
        return out

    def slack_values(self) -> np.ndarray:
        return np.array([s.varValue or 0.0 for s in self._slack_list()])

    def duals(self) -> tuple[dict[int, float], np.ndarray] | None:
        if self.is_mip:
            return None
        pi = {i: float(c.pi) for i, c in enumerate(self.constraints) if c.pi is not None}
        return pi, np.array([v.dj if v.dj is not None else 0.0 for v in self.x], dtype=float)

    def size(self) -> tuple[int, int]:
        return self.prob.numVariables(), self.prob.numConstraints()
