"""What the catalog's commitments do in a plan: the factor on each LP column's list spend, one record per
commitment (units, use, fees, shortfall), and what each vendor is paid beyond its tokens."""

from __future__ import annotations

import numpy as np

from planner.model.load import Inputs
from planner.optimize.lp import LinearProgram
from planner.optimize.pairs import Pairs
from planner.plan.model import (
    CommitmentUse,
)


def commitment_terms(
    inputs: Inputs, pairs: Pairs, lp: LinearProgram, share: np.ndarray, extra: np.ndarray | None
) -> tuple[np.ndarray, list[CommitmentUse] | None, dict[str, float]]:
    """What the catalog's commitments do in the plan: per LP column the factor on its list spend (1 - d
    under a signed committed-spend contract, else 1), one record per commitment (units, use, fees,
    shortfall; savings and break-evens come later from re-solves), and the money each vendor is paid
    beyond its tokens (fees and shortfalls)."""
    factor = np.ones(len(lp.var_w))
    if not inputs.catalog.commitments:
        return factor, None, {}
    ex = lp.extras
    value = (
        (lambda kind, ref: 0.0)
        if extra is None or not len(extra)
        else (lambda kind, ref: float(extra[k]) if (k := ex.index(kind, ref)) is not None else 0.0)
    )
    records: list[CommitmentUse] = []
    paid: dict[str, float] = {}
    for c in inputs.catalog.commitments:
        if c.reserved:
            record = _reserved(inputs, pairs, lp, share, c, int(round(value("units", c.id))))
        else:
            record = _spend(inputs, pairs, lp, share, c, factor, signed=value("signed", c.id) > 0.5)
        records.append(record)
        paid[c.vendor] = paid.get(c.vendor, 0.0) + record.cost
    return factor, records, paid


def _columns(pairs: Pairs, lp: LinearProgram, share: np.ndarray, of: list, ref: str) -> np.ndarray:
    """The LP columns in use whose option is under commitment `ref` (of: opts.reserved or opts.discounted)."""
    return np.flatnonzero(np.array([of[o] == ref for o in lp.var_o.tolist()], dtype=bool) & (share > 0))


def _reserved(inputs: Inputs, pairs: Pairs, lp: LinearProgram, share: np.ndarray, c, units: int) -> CommitmentUse:
    """A reservation's record: units bought, the throughput it serves (average and peak), its use and
    the use below which a unit costs more than it saves."""
    ws, wa = inputs.workloads, pairs.workloads
    cols = _columns(pairs, lp, share, pairs.options.reserved, c.id)
    w_of, o_of = lp.var_w[cols], lp.var_o[cols]
    fee = c.per_period(c.unit.fee, ws.period)
    tokens = pairs.task_tokens[w_of, o_of] * wa.tasks[w_of] * share[cols]
    avg_tpm = float(tokens.sum()) / ws.minutes
    capacity = units * c.unit.tokens_per_minute
    # the list price of the tokens it serves, and what each saves: (1 - factor) of it
    list_value = sum(
        float(wa.tasks[w] * share[j] * _list_cost(pairs, w, o))
        for j, w, o in zip(cols.tolist(), w_of.tolist(), o_of.tolist())
    )
    per_token = (1.0 - c.factor) * list_value / float(tokens.sum()) if tokens.sum() > 0 else None
    full = c.unit.tokens_per_minute * ws.minutes  # tokens one unit serves in the period at 100%
    return CommitmentUse(
        id=c.id,
        vendor=c.vendor,
        kind="reserved",
        signed=units > 0,
        period=c.period or ws.period,
        offerings=[o.id for o in inputs.catalog.offerings if c.covers(o)],
        units=units,
        max_units=c.max_units,
        fee=fee,
        price_factor=c.factor,
        capacity_tpm=capacity,
        used_tpm=avg_tpm,
        peak_tpm=float((pairs.peak_tpm[w_of, o_of] * share[cols]).sum()),
        utilization=avg_tpm / capacity if capacity > 0 else None,
        break_even_utilization=fee / (full * per_token) if per_token else None,
        cost=units * fee,
        tasks=float((wa.tasks[w_of] * share[cols]).sum()),
    )


def _spend(
    inputs: Inputs, pairs: Pairs, lp: LinearProgram, share: np.ndarray, c, factor: np.ndarray, *, signed: bool
) -> CommitmentUse:
    """A committed-spend contract's record: the list spend it discounts and the shortfall paid when
    signed (its columns' factor set to 1 - discount)."""
    ws, wa = inputs.workloads, pairs.workloads
    cols = _columns(pairs, lp, share, pairs.options.discounted, c.id)
    list_spend = float((lp.spend[cols] * share[cols]).sum())
    minimum = c.per_period(c.min_spend, ws.period)
    shortfall = max(0.0, minimum - (1.0 - c.discount) * list_spend) if signed else 0.0
    if signed:
        factor[cols] = 1.0 - c.discount
    return CommitmentUse(
        id=c.id,
        vendor=c.vendor,
        kind="spend",
        signed=signed,
        period=c.period or ws.period,
        offerings=[o.id for o in inputs.catalog.offerings if c.covers(o)],
        min_spend=minimum,
        discount=c.discount,
        list_spend=list_spend,
        shortfall=shortfall,
        break_even_spend=minimum,
        cost=shortfall,
        tasks=float((wa.tasks[lp.var_w[cols]] * share[cols]).sum()),
    )


def _list_cost(pairs: Pairs, w: int, o: int) -> float:
    """A task's cost on an option at its list price as you go: for a share inside reserved capacity, the
    same offering and mode outside it."""
    opts = pairs.options
    if opts.reserved[o] is None:
        return float(pairs.cost_per_task[w, o])
    twin = next(
        j
        for j in range(len(opts))
        if opts.offering_index[j] == opts.offering_index[o] and opts.mode[j] == opts.mode[o] and opts.listed[j]
    )
    return float(pairs.cost_per_task[w, twin])
