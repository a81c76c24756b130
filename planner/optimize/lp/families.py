"""The constraint families of SPEC section 4: one small function per family, its inequality in its
docstring, returning the family's rows; CONSTRAINT_FAMILIES lists them in the order build_problem walks.
Context is what they read: the workloads, the pairs, the columns and the extra columns."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from planner.model.schema import WorkloadSet
from planner.optimize.lp.contracts import Extras, Switching
from planner.optimize.lp.problem import Row, RowBlock
from planner.optimize.pairs import Pairs, vendor_caps


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
