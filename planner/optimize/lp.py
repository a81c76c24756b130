"""The linear program of SPEC section 4, built from arrays.

Variables are share[w, o] for the candidate (eligible, not dominated) pairs. Each constraint
family is one small function that returns rows; `build_problem` walks the registry. Rows are
kept in array form (column indices, coefficients) so the same problem can be handed to PuLP,
made elastic for the infeasibility diagnosis, or re-solved with changed bounds.

Scaling: money is divided by `scale` (a lower bound on the optimal cost), capacity rows by
their limit and capability rows by 100, so every row and the objective are of order one.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from planner.core.arrays import dot, per_workload, workload_starts
from planner.model.schema import WorkloadSet
from planner.optimize.pairs import Pairs, tie_latency, vendor_caps

TIE_BREAK = (
    1e-7  # latency term in `objective` (elastic solves, frontier re-solves); plans break ties exactly (solver.py)
)
SHARE_EPS = 1e-9  # allocations below this share are dropped
FEAS_TOL = 1e-6  # tolerance of the self-check on every row (scaled units)
TIED_DJ = 1e-9  # reduced costs and duals up to this (scaled cost, total >= 1) count as zero


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


@dataclass(frozen=True)
class Extras:
    """The columns after the shares (SPEC v1.6): units of reserved throughput bought (integer), whether
    a committed-spend contract is signed (binary), the list spend it discounts and the shortfall under
    its minimum (continuous, money), and whether a workload moves off its routes (binary). Column k of
    these is the LP's column n + k, n the number of share columns."""

    name: list[str]  # "<kind>:<id>"
    kind: list[str]  # units, signed, discounted, shortfall, switch
    ref: list[str]  # the commitment's or the workload's id
    lower: np.ndarray
    upper: np.ndarray
    integer: np.ndarray  # bool
    money: np.ndarray  # currency per period per unit of the column, part of the plan's cost
    company: list[str | None]  # who is paid that money (vendor caps and spend shares count it); None: nobody
    in_total: np.ndarray  # bool: paid to a vendor (in the total spend and the budget); a switch is not

    def __len__(self) -> int:
        return len(self.name)

    @staticmethod
    def empty() -> Extras:
        z = np.zeros(0)
        return Extras([], [], [], z, z, np.zeros(0, dtype=bool), z, [], np.zeros(0, dtype=bool))

    def index(self, kind: str, ref: str) -> int | None:
        for k, (a, b) in enumerate(zip(self.kind, self.ref)):
            if a == kind and b == ref:
                return k
        return None


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


SENSE_CODE = {"<=": 0, ">=": 1, "==": 2}


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


@dataclass(frozen=True)
class Switching:
    """What moving a workload off its routes costs (SPEC v1.6): per workload its switch cost (nan: none)
    and, per option, whether the previous plan routed the workload there (its offering, mode and price
    tier; a share inside reserved capacity is the same route as its list price)."""

    cost: np.ndarray  # per workload, currency per period; nan: no switch cost
    old: np.ndarray  # W x O bool
    known: np.ndarray  # per workload: the previous plan routed it (else it has no route to leave)

    def applies(self, w: int) -> bool:
        return bool(self.known[w]) and not np.isnan(self.cost[w]) and self.cost[w] > 0


def switching_of(inputs, pairs: Pairs) -> Switching | None:
    """What moving each workload off the previous plan's routes costs (solve --from): its own switch_cost,
    else the policy's (which --switch-cost sets). None without a previous plan."""
    if inputs.previous is None:
        return None
    ws, opts = inputs.workloads, pairs.options
    default = ws.policy.switch_cost
    cost = np.array(
        [
            np.nan
            if (w.switch_cost if w.switch_cost is not None else default) is None
            else (w.switch_cost if w.switch_cost is not None else default)
            for w in ws.workloads
        ],
        dtype=float,
    )
    routes = list(zip(opts.offering_id, opts.mode, opts.sale))
    old = np.zeros(pairs.shape, dtype=bool)
    known = np.zeros(len(ws.workloads), dtype=bool)
    for w, wl in enumerate(ws.workloads):
        before = inputs.previous.get(wl.id)
        if before:
            known[w] = True
            old[w] = [r in before for r in routes]
    return Switching(cost, old, known)


@dataclass(frozen=True)
class Context:
    ws: WorkloadSet
    pairs: Pairs
    var_w: np.ndarray
    var_o: np.ndarray
    spend: np.ndarray
    scale: float
    workloads: np.ndarray  # indices of the workloads in the LP
    offerings: list  # the catalog's offerings, for capacity limits
    commitments: list = field(default_factory=list)  # the catalog's commitments
    extras: Extras = field(default_factory=Extras.empty)
    switching: Switching | None = None

    def extra_col(self, kind: str, ref: str) -> int:
        k = self.extras.index(kind, ref)
        assert k is not None, (kind, ref)
        return len(self.var_w) + k

    def paid_extras(self, company: str | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The extra columns paid to vendors (to `company` alone, when given) and their scaled money."""
        ex = self.extras
        pick = [
            k
            for k in range(len(ex))
            if ex.in_total[k] and ex.money[k] != 0 and (company is None or ex.company[k] == company)
        ]
        return len(self.var_w) + np.array(pick, dtype=int), ex.money[pick] / self.scale

    @cached_property
    def _starts(self) -> list[int]:
        return np.searchsorted(self.var_w, np.arange(self.pairs.shape[0] + 1)).tolist()

    @cached_property
    def _columns(self) -> np.ndarray:
        return np.arange(len(self.var_w))

    def vars_of(self, w: int) -> np.ndarray:
        return self._columns[self._starts[w] : self._starts[w + 1]]

    @cached_property
    def by_offering(self) -> tuple[np.ndarray, list[int]]:
        """The columns of offerings with a capacity limit, ordered by offering (ascending within each),
        and where each offering's start among them."""
        limited = np.array([off.capacity is not None for off in self.offerings], dtype=bool)
        off = self.pairs.options.offering_index[self.var_o]
        cols = np.flatnonzero(limited[off] & self.pairs.options.in_capacity[self.var_o])
        off = off[cols]
        return (
            cols[np.argsort(off, kind="stable")],
            np.r_[0, np.cumsum(np.bincount(off, minlength=len(self.offerings)))].tolist(),
        )


def _per_workload_rows(
    ctx: Context, ws: np.ndarray, inside: np.ndarray | None = None
) -> tuple[list[str], np.ndarray, np.ndarray]:
    """For one row per workload of `ws` (in that order) over its columns (those `inside`, when given):
    the workloads' ids, the offsets of each row's entries, and the columns, row after row."""
    var_w = ctx.var_w if inside is None else ctx.var_w[inside]
    columns = ctx._columns if inside is None else np.flatnonzero(inside)
    n_w = ctx.pairs.shape[0]
    counts = np.bincount(var_w, minlength=n_w)
    first = np.r_[0, np.cumsum(counts)]  # where each workload's columns start among `columns` (var_w ascends)
    lengths = counts[ws]
    ptr = np.r_[0, np.cumsum(lengths)]
    at = np.repeat(first[ws] - ptr[:-1], lengths) + np.arange(ptr[-1])
    ids = ctx.pairs.workloads.ids
    return [ids[w] for w in ws.tolist()], ptr, columns[at]


def define_cover(ctx: Context) -> Iterable[RowBlock]:
    """Every task is routed: for each w, sum_o share[w, o] == 1."""
    ids, ptr, cols = _per_workload_rows(ctx, ctx.workloads)
    yield RowBlock("cover:", ids, "cover", ptr, cols, np.ones(len(cols)), "==", np.ones(len(ids)))


def define_latency_share(ctx: Context) -> Iterable[RowBlock]:
    """For each w with within_budget_share q < 1: sum_o share x (the share of w's tasks option o serves
    within budget) >= q; that share is 1 or 0 but for a workload judged on sample tasks."""
    wa = ctx.pairs.workloads
    ws = ctx.workloads[(wa.within_budget_share[ctx.workloads] < 1) & ~np.isnan(wa.budget_s[ctx.workloads])]
    if not len(ws):
        return
    inside = ctx.pairs.within_share[ctx.var_w, ctx.var_o]
    ids, ptr, cols = _per_workload_rows(ctx, ws, inside > 0)
    q = wa.within_budget_share[ws]
    yield RowBlock(
        "latency_share:",
        ids,
        "latency_share",
        ptr,
        cols,
        inside[cols],
        ">=",
        q,
        limit=q,
        unit="share of tasks",
        relax_weight=1.0,
    )


def define_mean_capability(ctx: Context) -> Iterable[RowBlock]:
    """For each w with mean_min: sum_o share x capability[metric] >= mean_min (scaled by 1/100)."""
    wa = ctx.pairs.workloads
    ws = ctx.workloads[~np.isnan(wa.cap_mean_min[ctx.workloads])]
    if not len(ws):
        return
    ids, ptr, cols = _per_workload_rows(ctx, ws)
    m = wa.cap_mean_min[ws]
    yield RowBlock(
        "mean_capability:",
        ids,
        "mean_capability",
        ptr,
        cols,
        ctx.pairs.capability[ctx.var_w[cols], ctx.var_o[cols]] / 100.0,
        ">=",
        m / 100.0,
        limit=m,
        unit="capability points",
        rhs_scale=0.01,
        relax_weight=100.0,  # the row is in hundreds of points: one point of relaxation weighs 1 (SPEC 5)
    )


def _capacity(ctx: Context, attr: str, load: np.ndarray) -> Iterable[Row]:
    order, starts = ctx.by_offering
    for i, off in enumerate(ctx.offerings):
        limit = getattr(off.capacity, attr) if off.capacity else None
        if limit is None or starts[i] == starts[i + 1]:
            continue
        cols = order[starts[i] : starts[i + 1]]
        yield Row(
            f"{attr}:{off.id}",
            attr,
            cols,
            load[ctx.var_w[cols], ctx.var_o[cols]] / limit,
            "<=",
            1.0,
            limit=limit,
            unit=attr.replace("_", " "),
            rhs_scale=1.0 / limit,
            relax_weight=1.0,
        )


def define_tokens_per_minute(ctx: Context) -> Iterable[Row]:
    """For each offering with a limit: sum over its options of peak_tpm x share <= tokens_per_minute."""
    return _capacity(ctx, "tokens_per_minute", ctx.pairs.peak_tpm)


def define_requests_per_minute(ctx: Context) -> Iterable[Row]:
    """For each offering with a limit: sum over its options of peak_rpm x share <= requests_per_minute."""
    return _capacity(ctx, "requests_per_minute", ctx.pairs.peak_rpm)


MONEY_FAMILIES = ("vendor_spend_share", "vendor_spend", "budget")  # rows whose coefficients are spend
CONTRACT_FAMILIES = ("reserved", "committed_spend", "switch")  # rows tying shares to the extra columns
SHARE_UNIT = {"tokens": "share of tokens", "tasks": "share of tasks", "spend": "share of spend"}


def company_columns(ctx: Context) -> dict[str, np.ndarray]:
    """Each company's columns: the options it bills or serves (an option of a vendor served by another
    company counts for both), in ascending order."""
    opts = ctx.pairs.options
    out = {}
    for c in sorted({c for cs in opts.companies for c in cs}):
        cols = np.flatnonzero(opts.involving(c)[ctx.var_o])
        if len(cols):
            out[c] = cols
    return out


def traffic(ws: WorkloadSet, pairs: Pairs, basis: str) -> np.ndarray:
    """Per workload the traffic a share cap measures, as the workloads file states it (so that no
    choice of option changes it): tasks, or tokens (tasks x turns x stated input + reasoning + output)."""
    wa = pairs.workloads
    if basis == "tasks":
        return wa.tasks.copy()
    return wa.tasks * wa.turns * (wa.input + wa.reasoning + wa.output)


def define_vendor_share(ctx: Context) -> Iterable[Row]:
    """For each company c with a share cap s < 1 (vendor_share, else max_vendor_share): c's share of
    the portfolio's traffic (policy.share_of: tokens or tasks) <= s. With share_of: spend, spend on c -
    s x total spend <= 0 (money scaled), a cap that buying dearer options elsewhere can meet."""
    by_company = company_columns(ctx)
    basis = ctx.ws.policy.share_of
    if basis == "spend":
        paid_cols, paid_money = ctx.paid_extras()
        money = np.r_[ctx.spend / ctx.scale, paid_money]
        columns = np.r_[ctx._columns, paid_cols]
        paid_to = [ctx.extras.company[j - len(ctx.var_w)] for j in paid_cols.tolist()]
        for c, s in vendor_caps(ctx.ws, by_company).items():
            if s >= 1:
                continue
            on_c = np.zeros(len(money))
            on_c[by_company[c]] = 1.0
            on_c[len(ctx.var_w) :] = [1.0 if x == c else 0.0 for x in paid_to]
            yield Row(
                f"vendor_share:{c}",
                "vendor_spend_share",
                columns,
                money * (on_c - s),
                "<=",
                0.0,
                limit=s,
                unit=SHARE_UNIT[basis],
                relax_weight=1.0,
            )
        return
    weight = traffic(ctx.ws, ctx.pairs, basis)
    total = float(weight[ctx.workloads].sum())
    if total <= 0:
        return
    for c, s in vendor_caps(ctx.ws, by_company).items():
        if s >= 1:
            continue
        cols = by_company[c]
        yield Row(
            f"vendor_share:{c}",
            "vendor_share",
            cols,
            weight[ctx.var_w[cols]] / total,
            "<=",
            s,
            limit=s,
            unit=SHARE_UNIT[basis],
            relax_weight=1.0,
        )


def define_vendor_spend(ctx: Context) -> Iterable[Row]:
    """For each company c with policy.vendor_spend[c]: spend on the options c bills or serves <= the cap."""
    caps = ctx.ws.policy.vendor_spend
    if not caps:
        return
    by_company = company_columns(ctx)
    for c in sorted(caps):
        if c not in by_company:
            continue
        yield _spend_cap(ctx, f"vendor_spend:{c}", "vendor_spend", by_company[c], caps[c], company=c)


def define_workload_vendor_share(ctx: Context) -> Iterable[Row]:
    """For each w with max_vendor_share m, each company c: sum of share on the options c bills or serves <= m."""
    wa = ctx.pairs.workloads
    companies = ctx.pairs.options.companies
    for w in ctx.workloads:
        m = wa.max_vendor_share[w]
        if np.isnan(m) or m >= 1:
            continue
        cols = ctx.vars_of(w)
        names = [companies[o] for o in ctx.var_o[cols]]
        for c in sorted({x for n in names for x in n}):
            sel = cols[np.array([c in n for n in names])]
            yield Row(
                f"workload_vendor_share:{wa.ids[w]}:{c}",
                "workload_vendor_share",
                sel,
                np.ones(len(sel)),
                "<=",
                m,
                limit=m,
                unit="share of tasks",
                relax_weight=1.0,
            )


def define_budget(ctx: Context) -> Iterable[Row]:
    """Total spend <= policy.budget (money scaled)."""
    budget = ctx.ws.policy.budget
    if budget is not None:
        yield _spend_cap(ctx, "budget", "budget", np.arange(len(ctx.spend)), budget)


def _spend_cap(ctx: Context, name: str, family: str, cols: np.ndarray, limit: float, company: str | None = None) -> Row:
    """Spend over the columns (and the commitments' fees, discounts and shortfalls paid to the company, or
    to anyone) <= limit, in scaled money; relaxed by its raise as a fraction of the limit."""
    paid_cols, paid_money = ctx.paid_extras(company)
    return Row(
        name,
        family,
        np.r_[cols, paid_cols],
        np.r_[ctx.spend[cols] / ctx.scale, paid_money],
        "<=",
        limit / ctx.scale,
        limit=limit,
        unit="currency",
        rhs_scale=1.0 / ctx.scale,
        relax_weight=ctx.scale / limit,
    )


def define_reserved(ctx: Context) -> Iterable[Row]:
    """For each reserved-throughput commitment c: the peak tokens a minute of the shares inside its
    capacity <= units bought x tokens_per_minute of a unit (in units: the row divided by a unit's)."""
    reserved = ctx.pairs.options.reserved
    for c in ctx.commitments:
        if not c.reserved:
            continue
        cols = np.flatnonzero(np.array([reserved[o] == c.id for o in ctx.var_o.tolist()], dtype=bool))
        if not len(cols):
            continue
        load = ctx.pairs.peak_tpm[ctx.var_w[cols], ctx.var_o[cols]] / c.unit.tokens_per_minute
        yield Row(
            f"reserved:{c.id}",
            "reserved",
            np.r_[cols, ctx.extra_col("units", c.id)],
            np.r_[load, -1.0],
            "<=",
            0.0,
            unit="units of reserved throughput",
        )


def define_committed_spend(ctx: Context) -> Iterable[Row]:
    """For each committed-spend commitment c (discount d, minimum m a period), with columns z (signed),
    s (the list spend it discounts) and g (the shortfall under m), money scaled: s <= the list spend on
    the options it covers; s <= (bound) x z; m x z - (1 - d) x s - g <= 0. The plan pays -d x s + g
    on top of list prices: max(m, (1 - d) x list) when signed, list when not."""
    discounted = ctx.pairs.options.discounted
    period = ctx.ws.period
    for c in ctx.commitments:
        if c.reserved:
            continue
        z, sc, g = (ctx.extra_col(k, c.id) for k in ("signed", "discounted", "shortfall"))
        cols = np.flatnonzero(np.array([discounted[o] == c.id for o in ctx.var_o.tolist()], dtype=bool))
        bound = float(ctx.extras.upper[sc - len(ctx.var_w)])
        yield Row(
            f"discount:{c.id}",
            "committed_spend",
            np.r_[sc, cols],
            np.r_[1.0, -ctx.spend[cols] / ctx.scale],
            "<=",
            0.0,
            unit="currency",
        )
        yield Row(f"signed:{c.id}", "committed_spend", np.array([sc, z]), np.array([1.0, -bound]), "<=", 0.0)
        minimum = c.per_period(c.min_spend, period) / ctx.scale
        yield Row(
            f"min_spend:{c.id}",
            "committed_spend",
            np.array([z, sc, g]),
            np.array([minimum, -(1.0 - c.discount), -1.0]),
            "<=",
            0.0,
            unit="currency",
        )


def define_switch(ctx: Context) -> Iterable[Row]:
    """For each workload w with a switch cost and a previous route: its share on routes the previous plan
    did not use <= m_w (binary; m_w = 1 pays the switch cost)."""
    sw = ctx.switching
    if sw is None:
        return
    for w in ctx.workloads.tolist():
        if not sw.applies(w):
            continue
        cols = ctx.vars_of(w)
        new = cols[~sw.old[w, ctx.var_o[cols]]]
        yield Row(
            f"switch:{ctx.pairs.workloads.ids[w]}",
            "switch",
            np.r_[new, ctx.extra_col("switch", ctx.pairs.workloads.ids[w])],
            np.r_[np.ones(len(new)), -1.0],
            "<=",
            0.0,
            unit="share of tasks",
        )


CONSTRAINT_FAMILIES: tuple[Callable[[Context], Iterable[Row | RowBlock]], ...] = (
    define_cover,
    define_latency_share,
    define_mean_capability,
    define_tokens_per_minute,
    define_requests_per_minute,
    define_vendor_share,
    define_vendor_spend,
    define_workload_vendor_share,
    define_budget,
    define_reserved,
    define_committed_spend,
    define_switch,
)


def build_problem(
    ws: WorkloadSet,
    catalog,
    pairs: Pairs,
    workloads: np.ndarray,
    candidates: np.ndarray | None = None,
    switching: Switching | None = None,
) -> LinearProgram:
    """The LP over the given workloads; candidates (W x O bool) default to the eligible pairs.
    switching: what moving off the previous plan's routes costs (solve --from)."""
    mask = pairs.eligible if candidates is None else candidates
    sub = np.zeros(mask.shape[0], dtype=bool)
    sub[workloads] = True
    var_w, var_o = np.nonzero(mask & sub[:, None])
    wa = pairs.workloads
    spend = wa.tasks[var_w] * pairs.cost_per_task[var_w, var_o]
    scale = _scale(spend, var_w)
    workloads = np.asarray(workloads, dtype=int)
    commitments = list(getattr(catalog, "commitments", []))
    extras = _extras(ws, pairs, commitments, switching, workloads, var_w, var_o, spend, scale)
    ctx = Context(ws, pairs, var_w, var_o, spend, scale, workloads, catalog.offerings, commitments, extras, switching)
    rows = Rows(part for family in CONSTRAINT_FAMILIES for part in family(ctx))

    objective = spend / scale + _tie_break(pairs, var_w, var_o)
    max_options = []
    for w in np.asarray(workloads, dtype=int)[wa.max_options[workloads] > 0].tolist():
        k = int(wa.max_options[w])
        cols = ctx.vars_of(w)
        if k < len(cols):
            max_options.append((w, cols, k))
    lat = tie_latency(pairs, var_w, var_o)
    tasks = wa.tasks[var_w]
    weight = tasks * lat / max(float((tasks * lat).max()), 1e-300) if len(lat) else np.zeros(0)
    lp = LinearProgram(var_w, var_o, spend, objective, scale, rows, max_options, weight, extras)
    if len(extras):
        lp.settle = _settler(ctx)
    return lp


def _extras(ws, pairs: Pairs, commitments, switching, workloads, var_w, var_o, spend, scale) -> Extras:
    """The extra columns of the commitments and switches that can take part: a reserved commitment whose
    capacity serves a candidate; a committed-spend one (even with nothing it covers in the plan: then it
    is never signed); a switch for each workload with a cost and a previous route."""
    opts = pairs.options
    rows: list[tuple] = []  # (kind, ref, lower, upper, integer, money, company, in_total)
    used_reserved = {opts.reserved[o] for o in set(var_o.tolist())} - {None}
    for c in commitments:
        if c.reserved:
            if c.id in used_reserved:
                rows.append(
                    ("units", c.id, 0.0, float(c.max_units), True, c.per_period(c.unit.fee, ws.period), c.vendor, True)
                )
            continue
        covered = np.array([opts.discounted[o] == c.id for o in var_o.tolist()], dtype=bool)
        # the most list spend it could discount: each workload on its dearest covered candidate
        most = np.zeros(len(pairs.workloads.ids))
        if covered.any():
            np.maximum.at(most, var_w[covered], spend[covered])
        bound = max(float(most.sum()) / scale, 1e-9)
        minimum = c.per_period(c.min_spend, ws.period) / scale
        rows.append(("signed", c.id, 0.0, 1.0, True, 0.0, c.vendor, True))
        rows.append(("discounted", c.id, 0.0, bound, False, -c.discount * scale, c.vendor, True))
        rows.append(("shortfall", c.id, 0.0, max(minimum, 0.0), False, scale, c.vendor, True))
    if switching is not None:
        for w in workloads.tolist():
            if switching.applies(w):
                rows.append(("switch", pairs.workloads.ids[w], 0.0, 1.0, True, float(switching.cost[w]), None, False))
    if not rows:
        return Extras.empty()
    return Extras(
        name=[f"{r[0]}:{r[1]}" for r in rows],
        kind=[r[0] for r in rows],
        ref=[r[1] for r in rows],
        lower=np.array([r[2] for r in rows]),
        upper=np.array([r[3] for r in rows]),
        integer=np.array([r[4] for r in rows], dtype=bool),
        money=np.array([r[5] for r in rows], dtype=float),
        company=[r[6] for r in rows],
        in_total=np.array([r[7] for r in rows], dtype=bool),
    )


def _settler(ctx: Context) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The extras that cleaned shares imply, the integer decisions kept: a signed contract discounts the
    whole list spend it covers (the optimum's s, exactly) and pays the shortfall under its minimum; a
    workload pays its switch when some share is on a new route; units stay as bought."""
    ex = ctx.extras
    opts = ctx.pairs.options
    covered = {
        c.id: np.flatnonzero(np.array([opts.discounted[o] == c.id for o in ctx.var_o.tolist()], dtype=bool))
        for c in ctx.commitments
        if not c.reserved
    }
    by_id = {c.id: c for c in ctx.commitments}
    new_routes = {}
    if ctx.switching is not None:
        for w in ctx.workloads.tolist():
            if ctx.switching.applies(w):
                cols = ctx.vars_of(w)
                new_routes[ctx.pairs.workloads.ids[w]] = cols[~ctx.switching.old[w, ctx.var_o[cols]]]

    def settle(share: np.ndarray, extra: np.ndarray) -> np.ndarray:
        out = np.asarray(extra, dtype=float).copy()
        out[ex.integer] = np.round(out[ex.integer])
        for k, (kind, ref) in enumerate(zip(ex.kind, ex.ref)):
            if kind == "discounted":
                c = by_id[ref]
                z = out[ex.index("signed", ref)]
                s = z * min(float(ex.upper[k]), dot(ctx.spend[covered[ref]], share[covered[ref]]) / ctx.scale)
                out[k] = s
                minimum = c.per_period(c.min_spend, ctx.ws.period) / ctx.scale
                out[ex.index("shortfall", ref)] = max(0.0, z * minimum - (1.0 - c.discount) * s)
            elif kind == "switch":
                out[k] = 1.0 if float(share[new_routes[ref]].sum()) > 0 else 0.0
        return out

    return settle


def _scale(spend: np.ndarray, var_w: np.ndarray) -> float:
    """A lower bound on the optimum: each workload on its cheapest candidate."""
    if len(spend) == 0:
        return 1.0
    bound = float(np.minimum.reduceat(spend, workload_starts(var_w)).sum())
    if bound > 0:
        return bound
    top = float(spend.max())
    return top if top > 0 else 1.0


def _tie_break(pairs: Pairs, var_w: np.ndarray, var_o: np.ndarray) -> np.ndarray:
    """A tiny cost per unit of latency, so that equal-cost plans prefer the faster option.

    Weighted so that its sum over any feasible plan is at most TIE_BREAK (the scaled cost is >= 1).
    """
    if len(var_w) == 0:
        return np.zeros(0)
    lat = tie_latency(pairs, var_w, var_o)
    tasks = pairs.workloads.tasks
    share_of_tasks = tasks[var_w] / tasks[var_w[workload_starts(var_w)]].sum()  # (var_w is sorted)
    worst = per_workload(np.maximum, lat, var_w)
    return TIE_BREAK * share_of_tasks * lat / np.where(worst > 0, worst, 1.0)


def clean_shares(lp: LinearProgram, share: np.ndarray) -> np.ndarray:
    """Drop dust, renormalise each workload to exactly one, round away solver noise."""
    share = np.clip(share, 0.0, 1.0)
    share[share < SHARE_EPS] = 0.0
    totals = np.bincount(lp.var_w, share, minlength=int(lp.var_w.max()) + 1) if len(lp.var_w) else np.zeros(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(totals[lp.var_w] > 0, share / totals[lp.var_w], 0.0)
    return np.round(share, 12)


def check_rows(
    lp: LinearProgram,
    share: np.ndarray,
    slack: np.ndarray | None = None,
    activities: tuple[np.ndarray, np.ndarray] | None = None,
    extra: np.ndarray | None = None,
) -> list[str]:
    """Every row the plan claims to meet, checked on the cleaned shares: a list of violations.

    The tolerance is relative to the row's gross activity (sum of |coefficient x share|), the size
    that rounding in the solver's answer scales with: a spend-share row whose terms cancel can
    carry terms a thousand times its limit when the optimum is far above the scaling bound."""
    bad = []
    acts, grosses = lp.activities(share, extra) if activities is None else activities
    if lp.rows:
        sense, rhs = lp.senses
        give = np.zeros(len(lp.rows)) if slack is None else np.asarray(slack, dtype=float)
        tol = FEAS_TOL * np.maximum.reduce([np.ones(len(rhs)), np.abs(rhs), np.abs(give), grosses])
        over = (
            ((sense == 0) & (acts > rhs + give + tol))
            | ((sense == 1) & (acts < rhs - give - tol))
            | ((sense == 2) & (np.abs(acts - rhs) > tol))
        )
        for i in np.flatnonzero(over).tolist():
            row, act = lp.rows[i], float(acts[i])
            limit = row.rhs + give[i] if row.sense == "<=" else row.rhs - give[i] if row.sense == ">=" else row.rhs
            op = {"<=": ">", ">=": "<", "==": "!="}[row.sense]
            bad.append(f"{row.name}: {act:.9g} {op} {limit:.9g}")
    for w, cols, k in lp.max_options:
        if int((share[cols] > 0).sum()) > k:
            bad.append(f"max_options:{w}: more than {k} options")
    return bad
