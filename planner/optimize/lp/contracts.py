"""The columns after the shares (SPEC v1.6): the commitments' units, signatures, discounted spend and
shortfalls, and the switches off a previous plan's routes; what each costs and how it is bounded.
The rows that tie them to the shares are constraint families (families.py)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.optimize.pairs import Pairs


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


def extras_of(ws, pairs: Pairs, commitments, switching, workloads, var_w, var_o, spend, scale) -> Extras:
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
