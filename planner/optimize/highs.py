"""The HiGHS backend: the LP handed to highspy as arrays (no modelling layer), run quietly on one thread
within the command's deadline, and HighsModel, the SolverModel (backends.py) over it. The warm re-solves
of resolve.py build on the same model."""

from __future__ import annotations

import contextlib
import os
import sys
import time
from dataclasses import dataclass

import numpy as np

from planner.core.timing import OutOfTime, run_limit
from planner.optimize.lp import CONTRACT_GAP, MIP_GAP, LinearProgram, apply_binaries


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


def _relaxed_rows(lp: LinearProgram, *, elastic: bool) -> list[int]:
    """The rows with a slack column: the relaxable ones, when elastic."""
    return [r for r, row in enumerate(lp.rows) if row.relax_weight is not None] if elastic else []


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
    contract = bool(columns.mip and columns.n_e and not lp.max_options)
    h.setOptionValue("mip_rel_gap", CONTRACT_GAP if contract else MIP_GAP)
    if contract:
        # a restart (presolve again once reduced costs fix a fifth of the integers) repeats the root's cut
        # rounds, which is where the time goes (benchmarks/RESULTS.md, issue 29)
        h.setOptionValue("mip_allow_restart", False)
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
    """A SolverModel (backends.py) over highspy."""

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
        return apply_binaries(self.lp, self.h.getSolution().col_value, self.n, is_mip=self.is_mip)

    def extras(self) -> np.ndarray:
        return np.array(self.h.getSolution().col_value[self.n : self.n_main])

    def limit_time(self, seconds: float) -> None:
        self.time_limit = seconds

    def start_from(self, values: np.ndarray) -> None:
        """The plan as HiGHS's first incumbent (after the costs are set: changing them drops it). With it in
        hand the search runs none of the heuristics that look for better incumbents (sub-MIPs, feasibility
        jump) and goes on to prove the bound; should the plan be refused, it runs unstarted."""
        solution = self._hs.HighsSolution()
        col = np.zeros(self.h.getNumCol())
        col[: len(values)] = values
        solution.col_value = col
        solution.value_valid = True
        self.h.setSolution(solution)
        for heuristic in ("rins", "rens", "root_reduced_cost", "feasibility_jump"):
            self.h.setOptionValue(f"mip_heuristic_run_{heuristic}", False)

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
