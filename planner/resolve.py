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
