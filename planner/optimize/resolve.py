"""Sifting, and one LP re-solved many times in HiGHS (frontier points, vendor outages): what the HiGHS
backend registers for RESOLVE (`resolver_of`) and WARM_START (`solve_sifted`) in backends.py, through
which the rest of the planner reaches them.

Sweeps change only column bounds of the same problem, so they keep one model and re-run it
warm: each point costs a few simplex iterations instead of a rebuild from the files.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from planner.core.arrays import dot, per_workload, workload_starts
from planner.core.timing import log
from planner.optimize.highs import add_columns, highs_model, run_settled
from planner.optimize.lp import TIED_DJ, LinearProgram, clean_shares


@dataclass
class Point:
    ok: bool
    share: np.ndarray
    cost: float  # exact spend of the (cleaned) shares


class Resolver:
    """One LP in HiGHS; change which share variables may be used, re-solve, read the cost."""

    def __init__(self, lp: LinearProgram):
        import highspy

        self.lp = lp
        self.h, _ = highs_model(lp)
        self.n = len(lp.var_w)
        self.upper = np.ones(self.n)
        self._ok_status = highspy.HighsModelStatus.kOptimal
        self.moved = Moved(lp)
        self.prices = Prices(lp)

    def set_prices(self, factor: np.ndarray) -> None:
        """The options' prices scaled: per share column a factor on its spend (1: as built), in the
        objective and in every row whose coefficients are its money (budget, spend caps, commitments)."""
        changed, _, cost, rows = self.prices.set(factor)
        if len(changed):
            self.h.changeColsCost(len(changed), changed.astype(np.int32), cost)
        for row, cols, values in rows:
            self.set_coefs(row, cols, values)

    def set_upper(self, upper: np.ndarray) -> None:
        """Upper bounds of the share variables (0 removes an option from the plan)."""
        changed = np.flatnonzero(upper != self.upper)
        if len(changed):
            self.h.changeColsBounds(
                len(changed), changed.astype(np.int32), np.zeros(len(changed)), upper[changed].astype(float)
            )
            self.upper = upper.copy()

    def set_coefs(self, row: int, cols: np.ndarray, values: np.ndarray) -> None:
        """One row's coefficients on the columns `cols` (a sweep moving which options count toward it)."""
        for j, v in self.moved.set_coefs(row, cols, values):
            self.h.changeCoeff(row, j, v)

    def set_row_bounds(self, row: int, lower: float, upper: float) -> None:
        """A row's bounds (an outage frees a workload left with no option from its cover row)."""
        self.h.changeRowBounds(row, lower, upper)

    def set_row_lower(self, row: int, lower: float) -> None:
        """The lower bound of a '>=' row (a sweep moving a floor)."""
        self.moved.row_lower[row] = lower
        self.h.changeRowBounds(row, lower, _inf())

    def run(self) -> Point:
        if self.lp.integer:
            self.h.clearSolver()  # HiGHS can keep a stale MIP incumbent across bound changes
        run_settled(self.h)
        if self.h.getModelStatus() != self._ok_status:
            return Point(False, np.zeros(self.n), float("nan"))
        values = self.h.getSolution().col_value
        share = clean_shares(self.lp, np.array(values[: self.n]))
        if not len(self.lp.extras):
            return Point(True, share, dot(self.lp.spend, share))
        extra = np.array(values[self.n : self.n + len(self.lp.extras)])
        if self.lp.settle is not None:
            extra = self.lp.settle(share, extra)
        return Point(True, share, self.lp.money(share, extra, total_only=True))


def _inf() -> float:
    import highspy

    return highspy.kHighsInf


class Prices:
    """The price factor of each share column a re-solve holds, and what a change of it moves: the
    columns' costs (scaled money times the factor, the latency tie-break kept) and their entries in the
    rows whose coefficients are money (PRICED_FAMILIES), as the built coefficient times the factor."""

    def __init__(self, lp: LinearProgram):
        self.lp = lp
        self.factor = np.ones(len(lp.var_w))
        self.objective = lp.objective.copy()

    def set(
        self, factor: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[tuple[int, np.ndarray, np.ndarray]]]:
        """Record the new factors: the columns whose factor changed, their costs before and after, and per
        money row (row, columns, coefficients) for those columns."""
        factor = np.asarray(factor, dtype=float)
        changed = np.flatnonzero(factor != self.factor)
        if not len(changed):
            return changed, np.zeros(0), np.zeros(0), []
        lp = self.lp
        before = self.objective[changed]
        self.objective[changed] = lp.objective[changed] + lp.spend[changed] / lp.scale * (factor[changed] - 1.0)
        self.factor = factor.copy()
        row_of, cols, coefs = self.lp.priced_entries
        pick = np.zeros(max(len(factor), int(cols.max()) + 1 if len(cols) else 0), dtype=bool)
        pick[changed] = True  # share columns only: an extra (units, contracts) has no price to scale
        at = np.flatnonzero(pick[cols])
        rows = [
            (int(r), cols[at[row_of[at] == r]], coefs[at[row_of[at] == r]] * factor[cols[at[row_of[at] == r]]])
            for r in np.unique(row_of[at]).tolist()
        ]
        return changed, before, self.objective[changed], rows


class Moved:
    """The rows a sweep moves away from the LP as built: coefficients per row (on the columns given)
    and lower bounds. What a sifted model and its pricing need to see the LP as it now stands."""

    def __init__(self, lp: LinearProgram):
        self.lp = lp
        self.coefs: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}  # row -> (cols, built, now)
        self.row_lower: dict[int, float] = {}

    def set_coefs(self, row: int, cols: np.ndarray, values: np.ndarray) -> list[tuple[int, float]]:
        """Record the row's new coefficients on the columns given (any of the row's columns, extras
        included, a different set from call to call); the (column, value) pairs that changed."""
        if row not in self.coefs:
            row_of, all_cols, coefs = self.lp.matrix
            size = max(self.lp.n, int(all_cols.max()) + 1 if len(all_cols) else 0)
            built = np.zeros(size)
            at = row_of == row
            built[all_cols[at]] = coefs[at]
            self.coefs[row] = (np.zeros(0, dtype=int), built, built.copy())
        touched, built, now = self.coefs[row]
        cols, values = np.asarray(cols, dtype=int), np.asarray(values, dtype=float)
        changed = np.flatnonzero(values != now[cols])
        now[cols[changed]] = values[changed]
        self.coefs[row] = (np.union1d(touched, cols), built, now)
        return list(zip(cols[changed].tolist(), values[changed].tolist()))

    def rows(self):
        """Per moved row: (row, the columns it moved, their coefficients as built, as they now stand)."""
        for row, (cols, built, now) in self.coefs.items():
            yield row, cols, built[cols], now[cols]

    def correct(self, dj: np.ndarray, duals: np.ndarray) -> None:
        """Reduced costs priced with the built rows, corrected to the moved ones (in place)."""
        for row, cols, built, now in self.rows():
            on = cols < len(dj)  # the share columns priced (extras are always in the model)
            dj[cols[on]] -= (now[on] - built[on]) * duals[row]


SIFT_ROUNDS = 30  # a sifted solve that has not settled by then is solved whole
ENTERING_AT_MOST = 50_000  # columns a sifting round adds, when that is also more than the LP's rows


def sift(
    h,
    lp: LinearProgram,
    cost: np.ndarray,
    outside: np.ndarray,
    add: Callable[[np.ndarray], None],
    moved: Moved | None = None,
    price: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
):
    """Sifting on a HiGHS model of some of lp's columns: run it, price every column with its duals
    (cost - A'y), hand the columns of `outside` (bool per column, updated) with a negative reduced
    cost to `add` (which puts them in the model), and repeat until none is left. Then the model's
    optimum is the whole LP's over the columns in and outside it: returns (solution, duals,
    reduced costs). None when the model has no optimal solution with duals or the rounds run out.
    price(cost, duals): the reduced costs as built (lp.reduced_costs unless given: a Pricing's)."""
    import highspy

    for _ in range(SIFT_ROUNDS):
        run_settled(h)
        sol = h.getSolution()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal or not sol.dual_valid:
            return None
        y = np.array(sol.row_dual[: len(lp.rows)])
        dj = (price or lp.reduced_costs)(cost, y)
        if moved is not None and moved.coefs:
            dj = dj.copy()  # (a Pricing's is its own)
            moved.correct(dj, y)
        entering = np.flatnonzero(outside & (dj < -TIED_DJ))
        if not len(entering):
            return sol, y, dj
        if len(entering) > max(len(lp.rows), ENTERING_AT_MOST):  # far more than a basis: each workload's best
            entering = _most_negative(entering, dj[entering], lp.var_w[entering])
        outside[entering] = False
        add(entering)
    return None


def _most_negative(cols: np.ndarray, dj: np.ndarray, var_w: np.ndarray) -> np.ndarray:
    """Of the columns `cols` (ascending, so grouped by workload), each workload's one with the most
    negative reduced cost (the first on a tie). A first round priced with the duals of a model short of
    some limit (its slacks in use, at SLACK_COST) finds nearly every column negative: adding them all
    makes the small model the whole LP, and HiGHS stalls on it (benchmarks/RESULTS.md, issue 29)."""
    least = per_workload(np.minimum, dj, var_w)
    first = np.minimum.reduceat(np.where(dj == least, np.arange(len(cols)), len(cols)), workload_starts(var_w))
    return cols[first]


class Pricing:
    """lp.reduced_costs (cost - A'y for every column) kept from one call to the next and updated for what
    changed: the duals of a few rows (their entries only) and the costs of a few columns. Between two
    points of a break-even search most duals stay as they were (benchmarks/RESULTS.md, issue 29), so a
    point is priced in a fraction of a full pass; when more than a quarter of the entries move, or every
    REFRESH updates (rounding kept from piling up), it prices from scratch.
    A sifted re-solve uses it only to choose the columns that enter: the optimum it settles on is the
    small model's, and the columns left out are priced within far less than TIED_DJ."""

    REFRESH = 50

    def __init__(self, lp: LinearProgram):
        self.lp = lp
        self.row_of, self.cols, self.coefs = lp.matrix
        row_of = self.row_of
        self.bounds = np.searchsorted(row_of, np.arange(len(lp.rows) + 1)) if len(row_of) else np.zeros(1, dtype=int)
        self.sorted = bool(np.all(row_of[1:] >= row_of[:-1])) if len(row_of) else True
        self.y: np.ndarray | None = None
        self.dj: np.ndarray | None = None
        self.updates = 0

    def costs(self, cols: np.ndarray, before: np.ndarray, after: np.ndarray) -> None:
        """The costs of columns `cols` moved from `before` to `after` (before the next call's `cost`)."""
        if self.dj is not None and len(cols):
            self.dj[cols] += after - before

    def __call__(self, cost: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The reduced costs at `cost` (every change since the last call told to `costs`) and duals y: an
        array the caller must not change."""
        rows = np.flatnonzero(y != self.y) if self.dj is not None else None
        size = 0 if rows is None else int((self.bounds[rows + 1] - self.bounds[rows]).sum())
        if rows is None or not self.sorted or size * 4 > len(self.cols) or self.updates >= self.REFRESH:
            self.dj, self.updates = self.lp.reduced_costs(cost, y), 0
        elif size:
            self.updates += 1
            lengths = self.bounds[rows + 1] - self.bounds[rows]
            at = np.repeat(self.bounds[rows] - np.cumsum(np.r_[0, lengths[:-1]]), lengths) + np.arange(size)
            np.subtract.at(self.dj, self.cols[at], self.coefs[at] * (y - self.y)[self.row_of[at]])
        self.y = y.copy()
        return self.dj


class SiftedResolver(Resolver):
    """A Resolver that solves each point by sifting: a small model over the columns that carried an
    earlier point and each workload's cheapest allowed column, every allowed column priced with its
    duals, those with a negative reduced cost added, until none is left; then the point is optimal for
    the whole LP. The model only grows, so later points start warm from a few thousand columns
    instead of re-running HiGHS over every one (a run over every column costs time even with nothing to
    pivot). Capacity, spend-share and other relaxable rows get a slack column at a
    high cost in the small model, so that it always has a plan and duals to price with; a point that
    ends with a slack in use is solved whole (it may be infeasible). Plain LPs only."""

    SLACK_COST = 1e4  # per unit of a row's (scaled) shortfall; the objective's total is of order one

    def __init__(self, lp: LinearProgram, start: np.ndarray | None = None):
        self.lp = lp
        self.n = len(lp.var_w)
        self.upper = np.ones(self.n)
        self._start = start  # columns of a known optimum (bool per column): in the first small model
        self._in = np.zeros(self.n, dtype=bool)  # columns in the small model
        self._idx = np.zeros(0, dtype=int)  # its share columns (LP column numbers) ...
        self._pos = np.zeros(0, dtype=np.int32)  # ... and where they are in the model
        self._slacks = np.zeros(0, dtype=np.int32)
        self._model = None
        self._whole = None
        self._where = np.full(self.n, -1, dtype=np.int64)  # each LP column's place in the small model
        self._sorted = (np.zeros(0, dtype=int), np.zeros(0, dtype=np.int32))  # (_idx, _pos) by column number
        self._stale = np.zeros(0, dtype=int)  # columns whose upper bound the small model does not have yet
        self._reshaped = True  # bounds or coefficients moved since the last point (not prices alone)
        self._allowed = np.bincount(lp.var_w, minlength=lp.workload_count)  # per workload: its columns allowed
        self._present = self._allowed > 0  # per workload number: it has columns (one with no eligible option has none)
        self._pricing = Pricing(lp)
        self.moved = Moved(lp)
        self.row_bounds: dict[int, tuple[float, float]] = {}  # rows whose bounds an outage moved
        self.prices = Prices(lp)

    def set_prices(self, factor: np.ndarray) -> None:
        """As Resolver.set_prices: the columns in the small model get their new costs; the rest are priced
        with them when the next point runs."""
        changed, before, cost, rows = self.prices.set(factor)
        self._pricing.costs(changed, before, cost)
        if self._model is not None and len(changed):
            inside = self._where[changed] >= 0
            self._model.changeColsCost(int(inside.sum()), self._where[changed][inside].astype(np.int32), cost[inside])
        for row, cols, values in rows:
            self.set_coefs(row, cols, values)
        if self._whole is not None:
            self._whole.set_prices(self.prices.factor)

    def set_upper(self, upper: np.ndarray) -> None:
        upper = np.asarray(upper, dtype=float)
        changed = np.flatnonzero(upper != self.upper)
        if not len(changed):
            return
        was, now = self.upper[changed] > 0, upper[changed] > 0
        step = now.astype(int) - was.astype(int)
        w = self.lp.var_w[changed]
        np.add.at(self._allowed, w, step)
        self.upper = upper.copy()
        self._stale = np.union1d(self._stale, changed[self._in[changed]])
        self._reshaped = True

    def set_coefs(self, row: int, cols: np.ndarray, values: np.ndarray) -> None:
        self._reshaped = True
        for j, v in self.moved.set_coefs(row, cols, values):
            if self._model is not None and self._where[j] >= 0:
                self._model.changeCoeff(row, int(self._where[j]), v)
        if self._whole is not None:
            self._whole.set_coefs(row, cols, values)

    def set_row_bounds(self, row: int, lower: float, upper: float) -> None:
        """A row's bounds (an outage frees a workload left with no option from its cover row): in the
        small model when it is made, and kept for the whole LP's should a point need it."""
        self.row_bounds[row] = (lower, upper)
        self._reshaped = True
        if self._model is not None:
            self._model.changeRowBounds(row, lower, upper)
        if self._whole is not None:
            self._whole.set_row_bounds(row, lower, upper)

    def set_row_lower(self, row: int, lower: float) -> None:
        self.moved.row_lower[row] = lower
        self._reshaped = True
        if self._model is not None:
            self._model.changeRowBounds(row, lower, _inf())
        if self._whole is not None:
            self._whole.set_row_lower(row, lower)

    def _add(self, new: np.ndarray) -> None:
        if self._model is None:
            h, slack_of = highs_model(self.lp.restrict(new), integer=False, elastic=True)
            self._slacks = np.array(sorted(slack_of.values()), dtype=np.int32)
            h.changeColsCost(len(self._slacks), self._slacks, np.full(len(self._slacks), self.SLACK_COST))
            h.changeColsCost(len(new), np.arange(len(new), dtype=np.int32), self.prices.objective[new])
            self._model, pos = h, np.arange(len(new), dtype=np.int32)
        else:
            pos = np.arange(len(new), dtype=np.int32) + self._model.getNumCol()
            add_columns(self._model, self.lp, new, self.prices.objective[new], self.upper[new])
        self._idx, self._pos = np.r_[self._idx, new], np.r_[self._pos, pos]
        order = np.argsort(self._idx, kind="stable")
        self._sorted = (self._idx[order], self._pos[order])
        if len(new) == len(self._idx):  # a model just made has its columns at [0, 1]
            self._stale = np.union1d(self._stale, new)
        self._in[new] = True
        self._where[new] = pos
        for row, cols, built, now in self.moved.rows():  # the new columns as the rows now stand
            share = cols < len(self._in)
            cols, built, now = cols[share], built[share], now[share]
            fresh = self._in[cols] & (now != built) & np.isin(cols, new)
            for j, v in zip(cols[fresh].tolist(), now[fresh].tolist()):
                self._model.changeCoeff(row, int(self._where[j]), v)
        if len(new) == len(self._idx):  # the model was just made: the moved bounds too
            for row, lower in self.moved.row_lower.items():
                self._model.changeRowBounds(row, lower, _inf())
            for row, (lower, upper) in self.row_bounds.items():
                self._model.changeRowBounds(row, lower, upper)

    def run(self) -> Point:
        lp = self.lp
        if not self.n or (self._present & (self._allowed == 0)).any():  # a workload with every option off
            return Point(False, np.zeros(self.n), float("nan"))
        allowed = self.upper > 0
        if self._model is None or self._reshaped:
            fresh = self._first_columns(allowed) if self._model is None else self._columns_for_the_short(allowed)
            if len(fresh):
                self._add(fresh)
            self._reshaped = False
        h = self._model
        if len(self._stale):  # the bounds `upper` changed since the model last had them
            pos = self._where[self._stale].astype(np.int32)
            h.changeColsBounds(len(pos), pos, np.zeros(len(pos)), self.upper[self._stale])
            self._stale = np.zeros(0, dtype=int)
        settled = sift(h, lp, self.prices.objective, allowed & ~self._in, self._add, self.moved, self._pricing)
        if settled is None:
            return self._solve_whole()
        sol = settled[0]
        values = np.array(sol.col_value)
        if len(self._slacks) and values[self._slacks].max() > 1e-9:  # short of some row: no plan, or a dearer one
            return self._solve_whole()
        cols, pos = self._sorted
        share = clean_shares(lp, values[pos], cols)
        return Point(True, share, dot(lp.spend[cols], share[cols]))  # (every other share is zero)

    def _first_columns(self, allowed: np.ndarray) -> np.ndarray:
        """The first small model's columns: each workload's cheapest allowed ones, and the known optimum's
        (its basis is a few pivots away)."""
        price = np.where(allowed, self.prices.objective, np.inf)
        fresh = allowed & (price <= per_workload(np.minimum, price, self.lp.var_w))
        if self._start is not None:
            fresh |= allowed & self._start
        return np.flatnonzero(fresh)

    def _columns_for_the_short(self, allowed: np.ndarray) -> np.ndarray:
        """After bounds or rows moved: the cheapest allowed columns of each workload left with no allowed
        column in the small model (else its cover row has no plan there). The others keep theirs (the model
        only grows), and sifting prices in the rest; a hold (`forced`) leaves none short, so no pass over
        every column is made."""
        var_w = self.lp.var_w
        inside = np.bincount(var_w[self._idx], allowed[self._idx], minlength=self.lp.workload_count)
        short = (inside == 0) & self._present  # (one with none allowed at all has no plan: run() said so)
        if not short.any():
            return np.zeros(0, dtype=int)
        cols = np.flatnonzero(allowed & short[var_w])
        price = self.prices.objective[cols]
        return cols[price <= per_workload(np.minimum, price, var_w[cols])]

    def _solve_whole(self) -> Point:
        """The point solved over every column; the columns it uses join the small model."""
        log.debug("re-solve: point solved over the whole LP")
        if self._whole is None:
            self._whole = Resolver(self.lp)
            for row, cols, _, now in self.moved.rows():
                self._whole.set_coefs(row, cols, now)
            for row, lower in self.moved.row_lower.items():
                self._whole.set_row_lower(row, lower)
            for row, (lower, upper) in self.row_bounds.items():
                self._whole.set_row_bounds(row, lower, upper)
            self._whole.set_prices(self.prices.factor)
        self._whole.set_upper(self.upper)
        point = self._whole.run()
        if point.ok:
            new = np.flatnonzero((point.share > 0) & ~self._in)
            if len(new):
                self._add(new)
        return point


@dataclass
class Sifted:
    """An LP's optimum found by sifting: the shares, a dual per row (by row number) and a reduced cost per
    share column, all of the whole LP."""

    share: np.ndarray
    pi: dict[int, float]
    dj: np.ndarray


def solve_sifted(lp: LinearProgram, start: np.ndarray) -> Sifted | None:
    """The LP (HiGHS, no integer groups) solved from a guess of its optimal columns (sifting): solve
    the LP over the guessed columns and each workload's cheapest, price every other column with that
    solution's duals, add those with a negative reduced cost, repeat. When none is left the restricted
    optimum is optimal for the whole LP (its duals are feasible for every column), so the answer, its
    duals and the reduced costs over all columns are those of the whole LP (solver.solve_warm runs the
    tie-break pass on its optimal face). None when the guess gives no feasible restricted LP or the
    rounds run out: the caller solves the whole LP."""
    n = len(lp.var_w)
    keep = start | _cheapest_columns(lp)  # every workload has a column
    cost = lp.cost
    idx = np.flatnonzero(keep)  # the model's columns, in the model's order
    h, _ = highs_model(lp.restrict(idx), integer=False)
    h.changeColsCost(len(idx), np.arange(len(idx), dtype=np.int32), cost[idx])

    def add(new: np.ndarray) -> None:  # later rounds add a few columns: the simplex goes on from where it stopped
        nonlocal idx
        add_columns(h, lp, new, cost[new], np.ones(len(new)))
        idx = np.r_[idx, new]

    settled = sift(h, lp, cost, ~keep, add)
    if settled is None:
        return None
    sol, y, dj = settled
    share = np.zeros(n)
    share[idx] = np.array(sol.col_value[: len(idx)])
    dj[idx] = np.array(sol.col_dual[: len(idx)])  # the solver's own, where it has them
    return Sifted(share, {i: float(y[i]) for i in range(len(lp.rows))}, dj)


def resolver_of(lp: LinearProgram, *, sifted: bool = False, start: np.ndarray | None = None) -> Resolver:
    """The LP held in HiGHS for warm re-solves: each point by sifting (SiftedResolver) when asked and the
    LP has no integer columns, its first small model holding the columns of `start` (bool per column, a
    known optimum's), else solved whole (Resolver)."""
    return SiftedResolver(lp, start) if sifted and not lp.integer else Resolver(lp)


def _cheapest_columns(lp: LinearProgram) -> np.ndarray:
    """Per workload, its cheapest column(s)."""
    if not len(lp.var_w):
        return np.zeros(0, dtype=bool)
    return lp.spend <= per_workload(np.minimum, lp.spend, lp.var_w)
