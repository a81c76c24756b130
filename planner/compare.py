"""Two plans side by side: cost in total, by workload and vendor, routing changes, bindings started
and stopped, and price and speed changes of the offerings both use (`planner compare`, and each
what-if scenario against its base)."""

from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel

from .plan import Plan, trusted


class Change(BaseModel):
    key: str
    before: float | None
    after: float | None

    @property
    def delta(self) -> float | None:
        if self.before is None or self.after is None:
            return None
        return self.after - self.before


class WorkloadChange(BaseModel):
    id: str
    status_before: str | None
    status_after: str | None
    cost_before: float | None
    cost_after: float | None
    routing_before: list[str]
    routing_after: list[str]
    changed: bool


class OfferingChange(BaseModel):
    id: str
    field: str
    before: float | None
    after: float | None


class Comparison(BaseModel):
    label_before: str
    label_after: str
    status_before: str
    status_after: str
    total_before: float
    total_after: float
    currency: str
    period: str
    workloads: list[WorkloadChange]
    vendors: list[Change]
    binding_started: list[str]
    binding_stopped: list[str]
    offering_changes: list[OfferingChange]
    catalogs: tuple[str, str]

    def notable(self, limit: int = 60) -> list[WorkloadChange]:
        """The workloads a report shows (in file order): all of them when few, else the rerouted ones
        and those whose status changed, then the largest cost changes, up to `limit`."""
        if len(self.workloads) <= limit:
            return self.workloads

        def key(i: int):
            w = self.workloads[i]
            moved = w.changed or w.status_before != w.status_after
            return (not moved, -abs((w.cost_after or 0.0) - (w.cost_before or 0.0)), i)

        keep = sorted(sorted(range(len(self.workloads)), key=key)[:limit])
        return [self.workloads[i] for i in keep]


def routings(plan: Plan) -> dict[str, list[str]]:
    """Each workload's routing as a comparison shows it ("offering@mode 70%", largest share first)."""
    return {w.id: _routing(w) for w in plan.workloads}


def _routing(w) -> list[str]:
    allocations = (
        w.allocations if len(w.allocations) < 2 else sorted(w.allocations, key=lambda a: (-a.share, a.offering, a.mode))
    )
    return [_route(a.offering, a.mode, a.share) for a in allocations]


@lru_cache(maxsize=65536)
def _route(offering: str, mode: str, share: float) -> str:
    return f"{offering}{'' if mode == 'default' else '@' + mode} {share:.0%}"


def compare_plans(
    old: Plan,
    new: Plan,
    label_before: str = "before",
    label_after: str = "after",
    old_routing: dict[str, list[str]] | None = None,
) -> Comparison:
    """Cost change in total, by workload and vendor; routing changes; bindings; price and speed changes.
    old_routing: routings(old), when many plans are compared with the same one (a what-if batch)."""
    old_w = {w.id: w for w in old.workloads}
    new_w = {w.id: w for w in new.workloads}
    old_routing = routings(old) if old_routing is None else old_routing
    ids = [w.id for w in old.workloads] + [w.id for w in new.workloads if w.id not in old_w]
    workloads = []
    for i in ids:
        a, b = old_w.get(i), new_w.get(i)
        ra = old_routing[i] if a else []
        rb = ra if a and b and b.allocations == a.allocations else _routing(b) if b else []  # (equal allocations)
        workloads.append(
            trusted(
                WorkloadChange,
                {
                    "id": i,
                    "status_before": a.status if a else None,
                    "status_after": b.status if b else None,
                    "cost_before": a.cost if a else None,
                    "cost_after": b.cost if b else None,
                    "routing_before": ra,
                    "routing_after": rb,
                    "changed": ra != rb,
                },
            )
        )
    va = {v.vendor: v.spend for v in old.vendors}
    vb = {v.vendor: v.spend for v in new.vendors}
    vendors = [Change(key=v, before=va.get(v, 0.0), after=vb.get(v, 0.0)) for v in sorted(set(va) | set(vb))]
    vendors.sort(key=lambda c: (-abs(c.delta or 0), c.key))
    ba = {b.constraint for b in old.binding}
    bb = {b.constraint for b in new.binding}
    offering_changes = []
    oa = {o.id: o for o in old.offerings}
    ob = {o.id: o for o in new.offerings}
    for oid in sorted(set(oa) & set(ob)):
        for field in ("price_input", "price_output", "output_tps", "ttft_s"):
            x, y = getattr(oa[oid], field), getattr(ob[oid], field)
            if x is not None and y is not None and x != y:
                offering_changes.append(OfferingChange(id=oid, field=field, before=x, after=y))
    return Comparison(
        label_before=label_before,
        label_after=label_after,
        status_before=old.status,
        status_after=new.status,
        total_before=old.total_cost,
        total_after=new.total_cost,
        currency=new.currency,
        period=new.period,
        workloads=workloads,
        vendors=vendors,
        binding_started=sorted(bb - ba),
        binding_stopped=sorted(ba - bb),
        offering_changes=offering_changes,
        catalogs=(f"{old.inputs.catalog} ({old.inputs.as_of})", f"{new.inputs.catalog} ({new.inputs.as_of})"),
    )
