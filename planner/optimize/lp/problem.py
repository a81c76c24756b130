"""The linear program of SPEC section 4 as arrays: its rows (one Row, or a RowBlock of one family's
rows, kept as column indices and coefficients) and the LinearProgram that holds them with its columns.

Kept in array form so that the same problem can be handed to HiGHS or PuLP, made elastic for the
infeasibility diagnosis, restricted to some columns, or re-solved with changed bounds.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from planner.core.arrays import dot
from planner.optimize.lp.contracts import Extras

MONEY_FAMILIES = ("vendor_spend_share", "vendor_spend", "budget")  # rows whose coefficients are spend
PRICED_FAMILIES = (*MONEY_FAMILIES, "committed_spend")  # rows whose share coefficients scale with a price

SENSE_CODE = {"<=": 0, ">=": 1, "==": 2}


@dataclass
class Row:
    """One linear constraint: sum(coefs * share[cols]) <sense> rhs, in scaled units."""

    name: str  # "<family>:<ids>", e.g. "tokens_per_minute:sol-fast"
    family: str
    cols: np.ndarray
    coefs: np.ndarray
    sense: str  # "<=", ">=" or "=="
    rhs: float
    limit: float | None = None  # the limit in the user's units (tokens/min, share, currency...)
    unit: str = ""
    rhs_scale: float = 1.0  # d rhs / d limit; vendor rows: set once the total is known
    relax_weight: float | None = None  # None: never relaxed in the elastic problem


@dataclass
class RowBlock:
    """Rows of one family, one per id, in array form: row k is `prefix + ids[k]` over
    cols[ptr[k]:ptr[k + 1]] (coefficients alike) with right-hand side rhs[k]. The per-workload
    families are built this way, vectorised; Row objects are made only for the rows read."""

    prefix: str
    ids: list[str]
    family: str
    ptr: np.ndarray  # len(ids) + 1 offsets into cols and coefs
    cols: np.ndarray
    coefs: np.ndarray
    sense: str
    rhs: np.ndarray
    limit: np.ndarray | None = None
    unit: str = ""
    rhs_scale: float = 1.0
    relax_weight: float | None = None

    def __len__(self) -> int:
        return len(self.ids)

    def row(self, k: int) -> Row:
        a, b = int(self.ptr[k]), int(self.ptr[k + 1])
        return Row(
            self.prefix + self.ids[k],
            self.family,
            self.cols[a:b],
            self.coefs[a:b],
            self.sense,
            float(self.rhs[k]),
            None if self.limit is None else float(self.limit[k]),
            self.unit,
            self.rhs_scale,
            self.relax_weight,
        )


class Rows(Sequence):
    """An LP's rows from Row objects and RowBlocks, in order: the solver reads the arrays (`entries`,
    `senses`); a Row object is made when a row is read (bindings, reports, break-even prices)."""

    def __init__(self, parts: Iterable):
        self._parts = [p for p in parts if not isinstance(p, RowBlock) or len(p)]
        self._ends = np.cumsum([len(p) if isinstance(p, RowBlock) else 1 for p in self._parts]).tolist()
        self._all: list[Row] | None = None

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __getitem__(self, i):
        if self._all is not None:
            return self._all[i]
        if isinstance(i, slice):
            return list(self)[i]
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        i %= n
        k = bisect.bisect_right(self._ends, i)
        part = self._parts[k]
        return part.row(i - (self._ends[k - 1] if k else 0)) if isinstance(part, RowBlock) else part

    def __iter__(self):
        if self._all is None:
            self._all = [
                r for p in self._parts for r in ((p.row(k) for k in range(len(p))) if isinstance(p, RowBlock) else (p,))
            ]
        return iter(self._all)

    def families(self) -> list[str]:
        return [f for p in self._parts for f in ([p.family] * len(p) if isinstance(p, RowBlock) else [p.family])]

    def entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row index, column, coefficient) per entry, row by row."""
        row_of, cols, coefs, start = [], [], [], 0
        for p in self._parts:
            if isinstance(p, RowBlock):
                row_of.append(np.repeat(np.arange(start, start + len(p)), np.diff(p.ptr)))
                start += len(p)
            else:
                row_of.append(np.full(len(p.cols), start))
                start += 1
            cols.append(p.cols)
            coefs.append(p.coefs)
        return (
            np.concatenate(row_of).astype(int),
            np.concatenate(cols).astype(int),
            np.concatenate(coefs).astype(float),
        )

    def senses(self) -> tuple[np.ndarray, np.ndarray]:
        sense = [
            np.full(len(p) if isinstance(p, RowBlock) else 1, SENSE_CODE[p.sense], dtype=np.int8) for p in self._parts
        ]
        rhs = [
            np.asarray(p.rhs, dtype=float) if isinstance(p, RowBlock) else np.array([p.rhs], dtype=float)
            for p in self._parts
        ]
        return np.concatenate(sense), np.concatenate(rhs)


@dataclass
class LinearProgram:
    var_w: np.ndarray  # workload index per variable
    var_o: np.ndarray  # option index per variable
    spend: np.ndarray  # tasks x cost_per_task per variable, currency per period
    objective: np.ndarray  # scaled spend + latency tie-break
    scale: float
    rows: Sequence[Row]  # a list, or made when first read (restrict)
    max_options: list[tuple[int, np.ndarray, int]] = field(default_factory=list)  # (w, vars, k)
    latency_weight: np.ndarray = field(default_factory=lambda: np.zeros(0))  # task-weighted latency, scaled
    extras: Extras = field(default_factory=Extras.empty)
    settle: Callable | None = None  # (share, extra) -> extra: the continuous extras the shares imply

    @property
    def n(self) -> int:
        """The share columns; the extras follow them."""
        return len(self.var_w)

    @property
    def cost(self) -> np.ndarray:
        """The scaled money of every column (shares, then extras): the objective of the first pass (the
        tie-break pass settles ties)."""
        if not len(self.extras):
            return self.spend / self.scale
        return np.r_[self.spend, self.extras.money] / self.scale

    @property
    def full_objective(self) -> np.ndarray:
        """The objective of every column: scaled money with the latency tie-break on the shares."""
        return np.r_[self.objective, self.extras.money / self.scale] if len(self.extras) else self.objective

    @property
    def full_latency(self) -> np.ndarray:
        return np.r_[self.latency_weight, np.zeros(len(self.extras))] if len(self.extras) else self.latency_weight

    @property
    def integer(self) -> bool:
        return bool(self.max_options) or bool(self.extras.integer.any())

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Every column's bounds as built: shares in [0, 1], extras their own."""
        n = self.n
        return np.r_[np.zeros(n), self.extras.lower], np.r_[np.ones(n), self.extras.upper]

    def money(self, share: np.ndarray, extra: np.ndarray | None = None, *, total_only: bool = False) -> float:
        """The plan's cost in the period's currency: the shares' spend and the extras' money (only what is
        paid to vendors, when total_only)."""
        cost = dot(self.spend, share)
        if len(self.extras) and extra is not None and len(extra):
            paid = self.extras.money * (self.extras.in_total if total_only else 1.0)
            cost += dot(paid, extra)
        return cost

    def x(self, share: np.ndarray, extra: np.ndarray | None = None) -> np.ndarray:
        """One value per column: the shares, then the extras (zero when not given)."""
        if not len(self.extras):
            return share
        return np.r_[share, np.zeros(len(self.extras)) if extra is None or not len(extra) else extra]

    @cached_property
    def matrix(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rows as one coordinate list: (row index, column, coefficient) per entry."""
        if not self.rows:
            return np.zeros(0, dtype=int), np.zeros(0, dtype=int), np.zeros(0)
        if isinstance(self.rows, Rows):
            return self.rows.entries()
        row_of = np.repeat(np.arange(len(self.rows)), [len(r.cols) for r in self.rows])
        return (
            row_of,
            np.concatenate([r.cols for r in self.rows]).astype(int),
            np.concatenate([r.coefs for r in self.rows]).astype(float),
        )

    @cached_property
    def workload_count(self) -> int:
        """One more than the largest workload number of a column (0 without columns): the length of an array
        per workload."""
        return int(self.var_w.max()) + 1 if len(self.var_w) else 0

    @cached_property
    def senses(self) -> tuple[np.ndarray, np.ndarray]:
        """Per row its sense (0 "<=", 1 ">=", 2 "==") and right-hand side."""
        if isinstance(self.rows, Rows) and len(self.rows):
            return self.rows.senses()
        return (
            np.array([SENSE_CODE[r.sense] for r in self.rows], dtype=np.int8),
            np.array([r.rhs for r in self.rows], dtype=float),
        )

    @cached_property
    def families(self) -> list[str]:
        """Each row's family, without making the rows."""
        return self.rows.families() if isinstance(self.rows, Rows) else [r.family for r in self.rows]

    @cached_property
    def priced_entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(row, column, coefficient) of every entry on a share column in a row whose coefficients scale with
        a price (PRICED_FAMILIES), row by row: what a change of prices moves."""
        row_of, cols, coefs = self.matrix
        if not len(row_of):
            return row_of, cols, coefs
        priced = np.isin(np.array(self.families, dtype=object), PRICED_FAMILIES)
        on = (cols < len(self.var_w)) & priced[row_of]
        return row_of[on], cols[on], coefs[on]

    def activities(self, share: np.ndarray, extra: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Every row's activity and gross activity (sum of |coefficient x value|) at once."""
        row_of, cols, coefs = self.matrix
        terms = coefs * self.x(share, extra)[cols]
        n = len(self.rows)
        return np.bincount(row_of, terms, minlength=n), np.bincount(row_of, np.abs(terms), minlength=n)

    def reduced_costs(self, cost: np.ndarray, duals: np.ndarray) -> np.ndarray:
        """cost - A'y for every column (y: a dual per row, the solver's sign): pricing for sifting."""
        row_of, cols, coefs = self.matrix
        return cost - np.bincount(cols, coefs * duals[row_of], minlength=len(self.var_w))

    def restrict(self, keep: np.ndarray, held: Iterable[int] = ()) -> LinearProgram:
        """The same problem over the share columns `keep` (ascending indices) and every extra: the other
        shares are fixed at zero. Rows in `held` become equalities (held at their bound)."""
        pos = np.full(len(self.var_w) + len(self.extras), -1)
        pos[keep] = np.arange(len(keep))
        pos[len(self.var_w) :] = len(keep) + np.arange(len(self.extras))
        row_of, cols, coefs = self.matrix
        kept = pos[cols] >= 0
        row_of, cols, coefs = row_of[kept], pos[cols[kept]], coefs[kept]
        held = sorted(set(held))
        sense, rhs = self.senses
        if held:
            sense = sense.copy()
            sense[held] = SENSE_CODE["=="]
        max_options = [(w, pos[cols_w][pos[cols_w] >= 0], k) for w, cols_w, k in self.max_options]
        sub = LinearProgram(
            self.var_w[keep],
            self.var_o[keep],
            self.spend[keep],
            self.objective[keep],
            self.scale,
            _RestrictedRows(self.rows, row_of, cols, coefs, set(held)),
            max_options,
            self.latency_weight[keep],
            self.extras,
        )
        sub.__dict__["matrix"] = (row_of, cols, coefs)  # already at hand
        sub.__dict__["senses"] = (sense, rhs)
        return sub


def repriced(lp: LinearProgram, factor: np.ndarray, priced: np.ndarray) -> LinearProgram:
    """The same problem with each share column's prices times its factor: its spend, the money in its
    objective and its coefficients in the rows `priced` (bool per row: the rows whose coefficients are
    money) scaled; the latency tie-break kept."""
    sub = lp.restrict(np.arange(lp.n))
    row_of, cols, coefs = sub.matrix  # fresh arrays, shared with sub's rows
    on = (cols < lp.n) & priced[row_of]
    coefs[on] *= factor[cols[on]]
    sub.spend = lp.spend * factor
    sub.objective = lp.objective + lp.spend / lp.scale * (factor - 1.0)
    sub.settle = lp.settle
    return sub


class _RestrictedRows(Sequence):
    """The rows of a restricted LP, made when first read: a solve needs only the arrays (matrix, senses)."""

    def __init__(self, rows: list[Row], row_of: np.ndarray, cols: np.ndarray, coefs: np.ndarray, held: set[int]):
        self._source, self._entries, self._held = rows, (row_of, cols, coefs), held
        self._rows: list[Row] | None = None

    def _all(self) -> list[Row]:
        if self._rows is None:
            row_of, cols, coefs = self._entries
            ends = np.searchsorted(row_of, np.arange(len(self._source) + 1)).tolist()  # entries stay in row order
            self._rows = [
                Row(
                    r.name,
                    r.family,
                    cols[a:b],
                    coefs[a:b],
                    "==" if i in self._held else r.sense,
                    r.rhs,
                    r.limit,
                    r.unit,
                    r.rhs_scale,
                    r.relax_weight,
                )
                for i, (r, a, b) in enumerate(zip(self._source, ends[:-1], ends[1:]))
            ]
        return self._rows

    def __len__(self) -> int:
        return len(self._source)

    def __getitem__(self, i):
        return self._all()[i]

    def __iter__(self):
        return iter(self._all())
