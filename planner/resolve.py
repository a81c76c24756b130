"""The LP handed to HiGHS as arrays, and re-solved many times (frontiers, vendor outages).

`highs_model` builds the highspy model straight from the LP's rows (no modelling layer); solve.py
uses it for `--solver highs`. Sweeps change only column bounds of the same problem, so they
keep one model and re-run it warm: each point costs a few simplex iterations instead of a
rebuild from the files.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .model import LinearProgram, dot


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


@dataclass
class Point:
    ok: bool
    share: np.ndarray
    cost: float  # exact spend of the (cleaned) shares


def highs_model(lp: LinearProgram, *, integer: bool = True, elastic: bool = False):
    """The LP (with max_options binaries, and elastic slack columns if asked) as a highspy model.

    Columns: the share variables, then the binaries, then one slack per relaxable row. Returns the
    Highs object and the slack column of each relaxed row.
    """
    import highspy

    n = len(lp.var_w)
    groups = lp.max_options if integer else []
    n_y = sum(len(cols) for _, cols, _ in groups)
    inf = highspy.kHighsInf
    row_of, row_cols, row_coefs = lp.matrix  # the rows' entries, as the self-check reads them
    rows_i, cols_j, vals = [row_of], [row_cols], [row_coefs]
    sense, rhs = lp.senses  # 0 "<=", 1 ">=", 2 "=="
    lower = np.where(sense == 0, -inf, rhs).tolist()
    upper = np.where(sense == 1, inf, rhs).tolist()
    relaxed = [r for r, row in enumerate(lp.rows) if row.relax_weight is not None] if elastic else []
    slack_cols = n + n_y + np.arange(len(relaxed))  # one slack column per relaxable row, after the binaries
    slack_of: dict[int, int] = dict(zip(relaxed, slack_cols.tolist()))
    if relaxed:
        rows_i.append(np.array(relaxed))
        cols_j.append(slack_cols)
        vals.append(np.array([-1.0 if lp.rows[r].sense == "<=" else 1.0 for r in relaxed]))
    col = n + n_y + len(relaxed)
    r = len(lp.rows)
    y = n
    for _, cols, k in groups:  # x_j - y_j <= 0; sum y <= k
        ys = np.arange(y, y + len(cols))
        rows_i.append(np.repeat(np.arange(r, r + len(cols)), 2))
        cols_j.append(np.column_stack([cols, ys]).ravel())
        vals.append(np.tile([1.0, -1.0], len(cols)))
        lower += [-inf] * len(cols)
        upper += [0.0] * len(cols)
        r += len(cols)
        rows_i.append(np.full(len(ys), r))
        cols_j.append(ys)
        vals.append(np.ones(len(ys)))
        lower.append(-inf)
        upper.append(float(k))
        r += 1
        y += len(cols)
    n_cols = col
    ri = np.concatenate(rows_i) if rows_i else np.zeros(0, dtype=int)
    cj = np.concatenate(cols_j).astype(int) if cols_j else np.zeros(0, dtype=int)
    va = np.concatenate(vals) if vals else np.zeros(0)
    # row-wise: the rows' own entries, in row order (lp.matrix already is, when nothing was added)
    order = np.argsort(ri, kind="stable") if len(rows_i) > 1 else slice(None)
    model = highspy.HighsLp()
    model.num_col_ = n_cols
    model.num_row_ = r
    cost = np.zeros(n_cols)
    cost[:n] = lp.objective
    model.col_cost_ = cost
    model.col_lower_ = np.zeros(n_cols)
    col_upper = np.ones(n_cols)
    col_upper[n + n_y:] = inf
    model.col_upper_ = col_upper
    model.row_lower_ = np.array(lower, dtype=float)
    model.row_upper_ = np.array(upper, dtype=float)
    model.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    model.a_matrix_.num_col_ = n_cols
    model.a_matrix_.num_row_ = r
    model.a_matrix_.start_ = np.r_[0, np.cumsum(np.bincount(ri, minlength=r))].astype(np.int32)
    model.a_matrix_.index_ = cj[order].astype(np.int32)
    model.a_matrix_.value_ = va[order]
    if n_y:
        model.integrality_ = ([highspy.HighsVarType.kContinuous] * n + [highspy.HighsVarType.kInteger] * n_y
                              + [highspy.HighsVarType.kContinuous] * (n_cols - n - n_y))
    with _quiet_stdout():
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.setOptionValue("mip_rel_gap", 1e-9)  # integer plans are optimal, not within HiGHS's default 0.01%
    if not n_y:
        # A pruned assignment-shaped LP has little for presolve to remove, and presolve cost 3 times the
        # simplex itself on the benchmark instances (0.54 s against 0.18 s at 3000 x 300, same optimum).
        h.setOptionValue("presolve", "off")
    h.passModel(model)
    return h, slack_of


def run_settled(h) -> None:
    """Run HiGHS; should the simplex without presolve end anywhere but optimal or infeasible
    (numerical trouble), run it again from scratch with presolve on."""
    import highspy

    h.run()
    settled = (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kInfeasible)
    if h.getModelStatus() not in settled and h.getOptionValue("presolve")[1] == "off":
        h.setOptionValue("presolve", "on")
        h.clearSolver()
        h.run()


class Resolver:
    """One LP in HiGHS; change which share variables may be used, re-solve, read the cost."""

    def __init__(self, lp: LinearProgram):
        import highspy

        self.lp = lp
        self.h, _ = highs_model(lp)
        self.n = len(lp.var_w)
        self.upper = np.ones(self.n)
        self._ok_status = highspy.HighsModelStatus.kOptimal

    def set_upper(self, upper: np.ndarray) -> None:
        """Upper bounds of the share variables (0 removes an option from the plan)."""
        changed = np.flatnonzero(upper != self.upper)
        if len(changed):
            self.h.changeColsBounds(len(changed), changed.astype(np.int32), np.zeros(len(changed)),
                                    upper[changed].astype(float))
            self.upper = upper.copy()

    def run(self) -> Point:
        from .solve import clean_shares

        if self.lp.integer:
            self.h.clearSolver()  # HiGHS can keep a stale MIP incumbent across bound changes
        run_settled(self.h)
        if self.h.getModelStatus() != self._ok_status:
            return Point(False, np.zeros(self.n), float("nan"))
        x = np.array(self.h.getSolution().col_value[: self.n])
        share = clean_shares(self.lp, x)
        return Point(True, share, dot(self.lp.spend, share))


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


SIFT_ROUNDS = 30  # a sifted solve that has not settled by then is solved whole


def sift(h, lp: LinearProgram, cost: np.ndarray, outside: np.ndarray, add: Callable[[np.ndarray], None]):
    """Sifting on a HiGHS model of some of lp's columns: run it, price every column with its duals
    (cost - A'y), hand the columns of `outside` (bool per column, updated) with a negative reduced
    cost to `add` (which puts them in the model), and repeat until none is left. Then the model's
    optimum is the whole LP's over the columns in and outside it: returns (solution, duals,
    reduced costs). None when the model has no optimal solution with duals or the rounds run out."""
    import highspy

    from .solve import TIED_DJ

    for _ in range(SIFT_ROUNDS):
        run_settled(h)
        sol = h.getSolution()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal or not sol.dual_valid:
            return None
        y = np.array(sol.row_dual[:len(lp.rows)])
        dj = lp.reduced_costs(cost, y)
        entering = np.flatnonzero(outside & (dj < -TIED_DJ))
        if not len(entering):
            return sol, y, dj
        outside[entering] = False
        add(entering)
    return None


class SiftedResolver(Resolver):
    """A Resolver that solves each point by sifting: a small model over the columns that carried an
    earlier point and each workload's cheapest allowed column, every allowed column priced with its
    duals, those with a negative reduced cost added, until none is left; then the point is optimal for
    the whole LP. The model only grows, so later points start warm from a few thousand columns
    instead of re-running HiGHS over every one (a run costs milliseconds per ten thousand columns even
    with nothing to pivot). Capacity, spend-share and other relaxable rows get a slack column at a
    high cost in the small model, so that it always has a plan and duals to price with; a point that
    ends with a slack in use is solved whole (it may be infeasible). Plain LPs only."""

    SLACK_COST = 1e4  # per unit of a row's (scaled) shortfall; the objective's total is of order one

    def __init__(self, lp: LinearProgram):
        self.lp = lp
        self.n = len(lp.var_w)
        self.upper = np.ones(self.n)
        self._in = np.zeros(self.n, dtype=bool)  # columns in the small model
        self._idx = np.zeros(0, dtype=int)  # its share columns (LP column numbers) ...
        self._pos = np.zeros(0, dtype=np.int32)  # ... and where they are in the model
        self._slacks = np.zeros(0, dtype=np.int32)
        self._model = None
        self._whole = None

    def set_upper(self, upper: np.ndarray) -> None:
        self.upper = np.asarray(upper, dtype=float).copy()

    def _add(self, new: np.ndarray) -> None:
        if self._model is None:
            h, slack_of = highs_model(self.lp.restrict(new), integer=False, elastic=True)
            self._slacks = np.array(sorted(slack_of.values()), dtype=np.int32)
            h.changeColsCost(len(self._slacks), self._slacks, np.full(len(self._slacks), self.SLACK_COST))
            self._model, pos = h, np.arange(len(new), dtype=np.int32)
        else:
            pos = np.arange(len(new), dtype=np.int32) + self._model.getNumCol()
            add_columns(self._model, self.lp, new, self.lp.objective[new], self.upper[new])
        self._idx, self._pos = np.r_[self._idx, new], np.r_[self._pos, pos]
        self._in[new] = True

    def run(self) -> Point:
        from .model import per_workload
        from .solve import clean_shares

        lp = self.lp
        allowed = self.upper > 0
        if not self.n or not per_workload(np.maximum, allowed, lp.var_w).all():  # a workload with every option off
            return Point(False, np.zeros(self.n), float("nan"))
        price = np.where(allowed, lp.objective, np.inf)
        fresh = np.flatnonzero(allowed & (price <= per_workload(np.minimum, price, lp.var_w)) & ~self._in)
        if len(fresh):
            self._add(fresh)
        h = self._model
        h.changeColsBounds(len(self._pos), self._pos, np.zeros(len(self._pos)), self.upper[self._idx])
        settled = sift(h, lp, lp.objective, allowed & ~self._in, self._add)
        if settled is None:
            return self._solve_whole()
        sol = settled[0]
        values = np.array(sol.col_value)
        if len(self._slacks) and values[self._slacks].max() > 1e-9:  # short of some row: no plan, or a dearer one
            return self._solve_whole()
        x = np.zeros(self.n)
        x[self._idx] = values[self._pos]
        share = clean_shares(lp, x)
        return Point(True, share, dot(lp.spend, share))

    def _solve_whole(self) -> Point:
        """The point solved over every column; the columns it uses join the small model."""
        if self._whole is None:
            self._whole = Resolver(self.lp)
        self._whole.set_upper(self.upper)
        point = self._whole.run()
        if point.ok:
            new = np.flatnonzero((point.share > 0) & ~self._in)
            if len(new):
                self._add(new)
        return point
