"""Two plans side by side: cost in total, by workload and vendor, routing changes and the changes
behind them, bindings started and stopped, price, speed and capability changes of the offerings both
plans carry, and capability metrics put on a new scale (`planner compare`, and each what-if scenario
against its base)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel

from planner.core.fmt import figure, in_unit, money, money_change, option, ordinal
from planner.core.records import trusted
from planner.model.rescale import Rescale, matched, rounding_of, score_changes
from planner.plan.model import Plan, WorkloadPlan

OFFERING_FIELDS = ("price_input", "price_output", "output_tps", "ttft_s")  # offerings[] figures compared
UNITS = {  # how a changed figure is written: (before, after) the number
    "price_input": ("$", " per 1M input tokens"),
    "price_output": ("$", " per 1M output tokens"),
    "output_tps": ("", " tokens/s"),
    "ttft_s": ("", " s to first token"),
}


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
    field: str  # price_input, price_output, output_tps, ttft_s or capability.<metric>
    before: float | None
    after: float | None
    mode: str = "default"  # a capability change: the option's mode
    note: str | None = None  # "differs from the rescale ..." for a score off a rescale's factor

    @property
    def option(self) -> str:
        return option(self.id, self.mode)

    def text(self) -> str:
        note = f" ({self.note})" if self.note else ""
        unit = UNITS.get(self.field, ("", ""))
        before, after = (f"{unit[0]}{figure(x, 6)}{unit[1]}" for x in (self.before, self.after))
        return f"{self.option}: {self.field} {before} → {after}{note}"


class KeptFloor(BaseModel):
    """A workload's capability floor that kept its number across a rescale of its metric."""

    workload: str
    metric: str
    floor: float
    old_scale: float  # what the floor asks, on the earlier plan's scale: floor / factor

    def text(self) -> str:
        return (
            f"{self.workload}: floor {self.floor:g} on {self.metric} kept across the rescale; "
            f"on the earlier scale it asks {self.old_scale:.3g}"
        )


class BridgeStep(BaseModel):
    """One part of the change in total cost (SPEC v1.3, "The cost bridge")."""

    key: str  # volumes | prices | catalog | routing
    label: str
    amount: float
    detail: list[str] = []  # the largest contributors, by workload


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
    binding_started: list[str]  # the limits that bind in the later plan only, in plain words
    binding_stopped: list[str]
    offering_changes: list[OfferingChange]
    catalogs: tuple[str, str]
    rescales: list[Rescale] = []  # capability metrics on a new scale (declared or found from the scores)
    reasons: dict[str, list[str]] = {}  # per rerouted workload: the changes of the options on its routes
    kept_floors: list[KeptFloor] = []
    comparable: bool = True  # both plans feasible: only then is a change in cost shown
    lacks_before: str = ""  # what an infeasible plan lacks, in a line
    lacks_after: str = ""
    bridge: list[BridgeStep] = []  # the change in total cost in four parts; empty unless comparable
    bridge_note: str = ""
    notes: list[str] = []  # what to keep in mind reading it (an earlier plan on a later catalog)

    @property
    def delta(self) -> float | None:
        return self.total_after - self.total_before if self.comparable else None

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
    return [_route(a.option, a.share) for a in allocations]


@lru_cache(maxsize=65536)
def _route(label: str, share: float) -> str:
    return f"{label} {share:.0%}"


def labels(old: Plan, new: Plan, given: list[str] | None = None) -> tuple[str, str]:
    """What the two plans are called: the labels given, else each plan's catalog and its date, made
    distinct by the scenario or workloads file when both name the same catalog, else before/after."""
    if given:
        return given[0], given[1]

    def name(p: Plan, *, detail: bool) -> str:
        if detail:  # the same catalog: the scenario or the workloads file tells them apart
            return p.inputs.scenario or Path(p.inputs.workloads_file).name
        return f"{p.inputs.catalog} ({p.inputs.as_of})" if p.inputs.as_of else p.inputs.catalog

    a, b = name(old, detail=False), name(new, detail=False)
    if a == b:
        a, b = name(old, detail=True), name(new, detail=True)
    return (a, b) if a != b else ("before", "after")


def shortfall(plan: Plan) -> str:
    """What an infeasible plan lacks, in a line: the workloads with no eligible option, then each
    limit its smallest relaxation moves, from what to what ("dropped" when it goes entirely)."""
    if plan.status != "infeasible":
        return ""
    parts = []
    lost = [w.id for w in plan.workloads if w.status != "ok"]
    if lost:
        names = ", ".join(lost[:6]) + (f" and {len(lost) - 6} more" if len(lost) > 6 else "")
        parts.append(f"an option for {names}")
    for r in plan.relaxation[:4]:
        move = f"{in_unit(r.limit, r.unit, plan.currency)} → {in_unit(r.needed, r.unit, plan.currency)}"
        extra = " (dropped)" if r.removes else f" (alone: {money(r.alone, plan.currency)})" if r.alone else ""
        parts.append(f"{r.label or r.constraint} {move}{extra}")
    if len(plan.relaxation) > 4:
        parts.append(f"{len(plan.relaxation) - 4} more limits moved")
    return "; ".join(parts) or "a plan that meets every rule"


def compare_plans(
    old: Plan,
    new: Plan,
    label_before: str = "before",
    label_after: str = "after",
    old_routing: dict[str, list[str]] | None = None,
    old_scores: dict[tuple[str, str, str], float] | None = None,
) -> Comparison:
    """Cost change in total, by workload and vendor; routing changes and, per rerouted workload, what
    changed on its routes; bindings; price, speed and capability changes; rescaled metrics and the
    floors that kept their number across one.
    old_routing, old_scores: routings(old) and scores(old), when many plans are compared with the same
    one (a what-if batch)."""
    sides = _Sides.of(old, new)
    workloads = _workload_changes(sides, routings(old) if old_routing is None else old_routing)
    offering_changes = _figure_changes(old, new)
    rescales, capability_changes = _capability(old, new, old_scores)
    if capability_changes:
        offering_changes = sorted(offering_changes + capability_changes, key=_order)
    kept_floors = _kept_floors(sides.old_w, sides.new_w, rescales)
    evidence = _Evidence.of(sides, offering_changes, rescales, kept_floors)
    reasons, causes = _reasons(sides, workloads, evidence)
    comparable = "infeasible" not in (old.status, new.status)  # (a feasible plan, not proven optimal, is a plan)
    bridge, note = _bridge(sides, causes, workloads) if comparable else ([], "")
    started, stopped = _bindings(old, new)
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
        vendors=_vendor_changes(old, new),
        binding_started=started,
        binding_stopped=stopped,
        offering_changes=offering_changes,
        catalogs=(f"{old.inputs.catalog} ({old.inputs.as_of})", f"{new.inputs.catalog} ({new.inputs.as_of})"),
        rescales=list(rescales.values()),
        reasons=reasons,
        kept_floors=kept_floors,
        comparable=comparable,
        lacks_before=shortfall(old),
        lacks_after=shortfall(new),
        bridge=bridge,
        bridge_note=note,
        notes=_notes(old, new),
    )


@dataclass(frozen=True)
class _Sides:
    """The two plans compared, and their workloads by id."""

    old: Plan
    new: Plan
    old_w: dict[str, WorkloadPlan]
    new_w: dict[str, WorkloadPlan]

    @staticmethod
    def of(old: Plan, new: Plan) -> _Sides:
        return _Sides(old, new, {w.id: w for w in old.workloads}, {w.id: w for w in new.workloads})


def _workload_changes(sides: _Sides, old_routing: dict[str, list[str]]) -> list[WorkloadChange]:
    """Every workload of either plan (the earlier plan's order, then the later one's new ones): its
    status, cost and routing on each side, and whether its routing changed."""
    old_w, new_w = sides.old_w, sides.new_w
    ids = [w.id for w in sides.old.workloads] + [w.id for w in sides.new.workloads if w.id not in old_w]
    out = []
    for i in ids:
        a, b = old_w.get(i), new_w.get(i)
        ra = old_routing[i] if a else []
        rb = ra if a and b and b.allocations == a.allocations else _routing(b) if b else []  # (equal allocations)
        out.append(
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
    return out


def _vendor_changes(old: Plan, new: Plan) -> list[Change]:
    """Spend per company on each side, the largest changes first."""
    va = {v.vendor: v.spend for v in old.vendors}
    vb = {v.vendor: v.spend for v in new.vendors}
    vendors = [Change(key=v, before=va.get(v, 0.0), after=vb.get(v, 0.0)) for v in sorted(set(va) | set(vb))]
    vendors.sort(key=lambda c: (-abs(c.delta or 0), c.key))
    return vendors


def _bindings(old: Plan, new: Plan) -> tuple[list[str], list[str]]:
    """The limits that bind in the later plan only, and in the earlier one only, in plain words."""
    ba = {b.constraint: b.label or b.constraint for b in old.binding}
    bb = {b.constraint: b.label or b.constraint for b in new.binding}
    return [bb[k] for k in sorted(set(bb) - set(ba))], [ba[k] for k in sorted(set(ba) - set(bb))]


def _figure_changes(old: Plan, new: Plan) -> list[OfferingChange]:
    """The price and speed changes (OFFERING_FIELDS) of the offerings both plans carry."""
    out = []
    oa = {o.id: o for o in old.offerings}
    ob = {o.id: o for o in new.offerings}
    for oid in sorted(set(oa) & set(ob)):
        for field in OFFERING_FIELDS:
            x, y = getattr(oa[oid], field), getattr(ob[oid], field)
            if x is not None and y is not None and x != y:
                out.append(OfferingChange(id=oid, field=field, before=x, after=y))
    return out


def _notes(old: Plan, new: Plan) -> list[str]:
    """Warnings about the pair itself: the earlier plan's catalog dated after the later one's."""
    a, b = old.inputs.as_of, new.inputs.as_of
    if a and b and a > b:
        return [f"the earlier plan's catalog ({old.inputs.catalog}, {a}) is dated after the later one's ({b})"]
    return []


def _order(c: OfferingChange) -> tuple:
    """Offering changes by offering, then mode, price and speed figures before scores."""
    field = OFFERING_FIELDS.index(c.field) if c.field in OFFERING_FIELDS else len(OFFERING_FIELDS)
    return (c.id, c.mode != "default", c.mode, field, c.field)


def scores(plan: Plan) -> dict[tuple[str, str, str], float]:
    """Every capability score a plan carries, by (offering, mode, metric): the offerings' scores
    (offerings[], default mode) and each workload's allocations and rejected options in its metric."""
    out: dict[tuple[str, str, str], float] = {}
    for o in plan.offerings:
        for metric, score in o.capability.items():
            out[(o.id, "default", metric)] = score
    for w in plan.workloads:  # (one option's score in one metric is the same wherever the plan names it)
        metric = w.metric
        for rows in (w.allocations, w.rejected):
            for a in rows:
                score = a.capability
                if score is not None:
                    out[a.offering, a.mode, metric] = score
    return out


def _capability(old: Plan, new: Plan, old_scores: dict | None) -> tuple[dict[str, Rescale], list[OfferingChange]]:
    """The metrics put on a new scale between the plans and the capability changes of the options
    both carry (rescale.score_changes over every score both carry, and the metrics' scale labels). The
    rescale is found over the models both plans' catalogs score (`model_scores`, as `catalog diff`
    does), else, for plans of an older planner without them, over the options' scores."""
    sa, sb = scores(old) if old_scores is None else old_scores, scores(new)
    by_metric: dict[str, dict[str, tuple[str, str, float, float]]] = {}
    for (offering, mode, metric), x in sa.items():
        y = sb.get((offering, mode, metric))
        if y is not None:
            by_metric.setdefault(metric, {})[option(offering, mode)] = (offering, mode, x, y)
    rescales: dict[str, Rescale] = {}
    changes = []
    for metric in sorted(set(by_metric) | set(old.metrics) | set(new.metrics)):
        ma, mb = old.metrics.get(metric), new.metrics.get(metric)
        rows = by_metric.get(metric, {})
        found, listed = score_changes(
            metric,
            [(key, x, y) for key, (_, _, x, y) in rows.items()],
            rounding_of(ma.rounding if ma else None, mb.rounding if mb else None),
            ma.scale if ma else None,
            mb.scale if mb else None,
            models=matched(old.model_scores.get(metric), new.model_scores.get(metric))
            if old.model_scores and new.model_scores
            else None,
        )
        if found is not None:
            rescales[metric] = found
        for key, note in listed.items():
            offering, mode, x, y = rows[key]
            changes.append(
                OfferingChange(id=offering, field=f"capability.{metric}", before=x, after=y, mode=mode, note=note)
            )
    return rescales, changes


CATALOG_CAUSES = {"speed", "capability", "catalog"}  # what a catalog change is, for the bridge


@dataclass(frozen=True)
class _Evidence:
    """What a rerouted workload's reasons are read from: the offerings' changes by offering, the
    metrics put on a new scale and the floors kept across one (by workload), both plans' catalog
    figures and the later plan's relaxations (by limit)."""

    by_offering: dict[str, list[OfferingChange]]
    rescales: dict[str, Rescale]
    kept: dict[str, KeptFloor]
    index_before: dict
    index_after: dict
    relaxed: dict

    @staticmethod
    def of(
        sides: _Sides, offering_changes: list[OfferingChange], rescales: dict[str, Rescale], kept: list[KeptFloor]
    ) -> _Evidence:
        by_offering: dict[str, list[OfferingChange]] = {}
        for c in offering_changes:
            by_offering.setdefault(c.id, []).append(c)
        return _Evidence(
            by_offering,
            rescales,
            {k.workload: k for k in kept},
            sides.old.catalog_index,
            sides.new.catalog_index,
            {r.constraint: r for r in sides.new.relaxation},
        )


@dataclass
class _Why:
    """A rerouted workload's reasons, in words, and their kinds (for the bridge)."""

    reasons: list[str]
    kinds: set[str]

    def add(self, text: str, kind: str | None = None) -> None:
        self.reasons.append(text)
        if kind is not None:
            self.kinds.add(kind)


def _reasons(
    sides: _Sides, workloads: list[WorkloadChange], evidence: _Evidence
) -> tuple[dict[str, list[str]], dict[str, set[str]]]:
    """Per rerouted workload in both plans, what changed about it and the options on its routes
    before and after: their offerings' prices and speeds, leaving or joining the catalog, their
    capacity, their scores in its metric, a rescale of its metric (and its floor kept across it),
    its own rules and volume; when none did, the shared limits that started or stopped binding.
    Also the kinds of those causes (price, speed, capability, catalog, rule, shared), for the bridge."""
    out: dict[str, list[str]] = {}
    kinds: dict[str, set[str]] = {}
    for row in workloads:
        a, b = sides.old_w.get(row.id), sides.new_w.get(row.id)
        if a is None or b is None:
            out[row.id] = ["a workload new in the later plan" if a is None else "a workload the later plan drops"]
            kinds[row.id] = {"volume"}
            continue
        if not row.changed:
            continue
        why = _rerouted(row.id, a, b, sides, evidence)
        out[row.id] = why.reasons
        kinds[row.id] = why.kinds
    return out, kinds


def _rerouted(wid: str, a, b, sides: _Sides, evidence: _Evidence) -> _Why:
    """Why workload wid (a before, b after) moved: what changed on each offering of its routes, in
    its metric and in its own rules; the relaxations that concern it; else a tie, else the shared
    limits."""
    options = {(x.offering, x.mode) for x in (*a.allocations, *b.allocations)}
    offerings = sorted({o for o, _ in options})
    why = _Why([], set())
    for offering in offerings:
        _figure_reasons(why, offering, options, b.metric, evidence)
        _catalog_reasons(why, offering, a, evidence)
    _metric_reasons(why, wid, a, b, evidence)
    for text in _own_rules(a, b, sides.old, sides.new):
        why.add(text, "rule")
    companies = {c for x in (*a.allocations, *b.allocations) for c in (x.vendor, x.host)}
    mine = [r for name, r in evidence.relaxed.items() if _concerns(name, wid, set(offerings), companies)]
    for r in mine:
        why.add(f"the later plan is a relaxation: {r.label or r.constraint} {_move(r, sides.new.currency)}", "rule")
    if not why.reasons and abs(b.cost - a.cost) <= 1e-6 * max(1.0, abs(a.cost)) and a.tasks == b.tasks:
        why.add("a tie: an option of the same cost per task took its place", "tie")
    if not why.reasons:
        shared = _shared_limits(sides.old, sides.new, wid, set(offerings), companies)
        why.add(
            "nothing about it or its routes changed: "
            + (f"shared limits moved it ({shared})" if shared else "another workload's move took its place"),
            "shared",
        )
    return why


def _figure_reasons(why: _Why, offering: str, options: set[tuple[str, str]], metric: str, evidence: _Evidence) -> None:
    """The offering's price and speed changes, and the score changes in the workload's metric of the
    options on its routes."""
    score = f"capability.{metric}"
    for c in evidence.by_offering.get(offering, ()):
        if c.field in OFFERING_FIELDS or (c.field == score and (c.id, c.mode) in options):
            kind = "price" if c.field.startswith("price") else "speed" if c.field in OFFERING_FIELDS else "capability"
            why.add(c.text(), kind)


def _catalog_reasons(why: _Why, offering: str, a, evidence: _Evidence) -> None:
    """The offering leaving or joining the catalog (a forced move when a route of the earlier plan
    used it), or its capacity changing; only when both plans carry their catalog's figures."""
    ia, ib = evidence.index_before, evidence.index_after
    if not (ia and ib):
        return
    if offering in ia and offering not in ib:
        why.add(
            f"{offering} left the catalog", "left" if any(x.offering == offering for x in a.allocations) else "catalog"
        )
    elif offering in ib and offering not in ia:
        why.add(f"{offering} is new in the catalog", "catalog")
    elif offering in ia and offering in ib:
        said = {c.field for c in evidence.by_offering.get(offering, ())}  # (from offerings[]: both plans use it)
        for field in ("price_input", "price_output"):  # a route's offering that one of the plans no longer uses
            x, y = getattr(ia[offering], field), getattr(ib[offering], field)
            if x != y and field not in said:
                why.add(OfferingChange(id=offering, field=field, before=x, after=y).text(), "price")
        for field in ("tokens_per_minute", "requests_per_minute"):
            x, y = getattr(ia[offering], field), getattr(ib[offering], field)
            if x != y:
                why.add(f"{offering}: {field.replace('_', ' ')} {_num(x)} → {_num(y)}", "catalog")


def _metric_reasons(why: _Why, wid: str, a, b, evidence: _Evidence) -> None:
    """A rescale of the workload's metric (in short: the comparison shows the rescale's line once),
    and its floor kept across it."""
    rescale = evidence.rescales.get(b.metric) if a.metric == b.metric else None
    if rescale is not None and rescale.moves:
        why.add(f"capability.{rescale.metric} rescaled x{rescale.factor:.3g}", "capability")
    if wid in evidence.kept:
        kept = evidence.kept[wid]
        why.add(f"floor {kept.floor:g} kept across it (asks {kept.old_scale:.3g} on the earlier scale)")


def _move(r, currency: str) -> str:
    move = f"{in_unit(r.limit, r.unit, currency)} → {in_unit(r.needed, r.unit, currency)}"
    return move + (" (dropped)" if r.removes else "")


def _concerns(constraint: str, workload: str, offerings: set[str], companies: set[str]) -> bool:
    """Whether a limit (by its row name) bears on a workload: its own rows, the caps of the
    companies and the capacity of the offerings on its routes, and the budget."""
    family, _, ident = constraint.partition(":")
    if family == "budget":
        return True
    if family in ("latency_share", "mean_capability"):
        return ident == workload
    if family == "workload_vendor_share":
        return ident.rsplit(":", 1)[0] == workload
    if family in ("vendor_share", "vendor_spend_share", "vendor_spend"):
        return ident in companies
    if family in ("tokens_per_minute", "requests_per_minute"):
        return ident in offerings
    return False


def _own_rules(a, b, old: Plan, new: Plan) -> list[str]:
    """A workload's own changes between two plans: its floor (with a caveat when the two catalogs'
    scales for its metric are not known to be the same), budget, share within budget, volume."""
    out = []
    if a.capability_min != b.capability_min:
        text = f"floor {_num(a.capability_min)} → {_num(b.capability_min)} on {b.metric}"
        ma, mb = old.metrics.get(b.metric), new.metrics.get(b.metric)
        if old.inputs.catalog != new.inputs.catalog and (ma is None or mb is None or ma.scale != mb.scale):
            text += " (the two catalogs' scales for it differ or are not stated)"
        out.append(text)
    if a.budget_s != b.budget_s:
        out.append(f"budget {_num(a.budget_s)} s → {_num(b.budget_s)} s")
    if a.within_budget_share_required != b.within_budget_share_required:
        out.append(f"share within budget {a.within_budget_share_required:.0%} → {b.within_budget_share_required:.0%}")
    if a.tasks != b.tasks:
        out.append(f"tasks {a.tasks:,.0f} → {b.tasks:,.0f} a period")
    samples = [None if d is None else (d.samples, d.file) for d in (a.distribution, b.distribution)]
    if samples[0] != samples[1]:
        said = ["the mean task" if s is None else f"{s[0]:,} sample tasks from {s[1]}" for s in samples]
        out.append(f"budget judged on {said[0]} → {said[1]}")
    judged = [None if j is None else j.percentile for j in (a.percentile, b.percentile)]
    if judged[0] != judged[1]:
        said = ["the medians" if j is None else f"the {ordinal(j)} percentile" for j in judged]
        out.append(f"latency judged at {said[0]} → {said[1]}")
    return out


def _shared_limits(old: Plan, new: Plan, workload: str, offerings: set[str], companies: set[str]) -> str:
    """The limits bearing on a workload (_concerns) that started or stopped binding, in words."""
    la = {x.constraint: x.label or x.constraint for x in old.binding}
    lb = {x.constraint: x.label or x.constraint for x in new.binding}
    started = [lb[k] for k in sorted(set(lb) - set(la)) if _concerns(k, workload, offerings, companies)]
    stopped = [la[k] for k in sorted(set(la) - set(lb)) if _concerns(k, workload, offerings, companies)]
    parts = ([f"binding now: {', '.join(started)}"] if started else []) + (
        [f"no longer binding: {', '.join(stopped)}"] if stopped else []
    )
    return "; ".join(parts)


BRIDGE_LABELS = {
    "volumes": "volumes (tasks and tokens per task; workloads added or removed)",
    "prices": "prices (the earlier routes at the later prices)",
    "catalog": "catalog changes (offerings added or removed, speed, capability, capacity)",
    "routing": "routing (rules, shared limits and price moves that rerouted workloads)",
    "contracts": "contracts and price tiers (units, fees, discounts; shares on batch, flex or priority)",
}


def _bridge(sides: _Sides, causes: dict[str, set[str]], rows: list[WorkloadChange]) -> tuple[list[BridgeStep], str]:
    """The change in total cost in four parts (five with contracts: SPEC v1.6) that add up to it exactly
    (SPEC v1.3): per workload in
    both plans, volumes = the change in tasks at the earlier cost per task; prices = the earlier
    routes repriced at the later catalog's prices, on the later tasks; the rest is the rerouting,
    counted as a catalog change when an offering on its routes left, joined or changed speed,
    capability or capacity, else as routing (with unchanged routes the rest is tokens per task: a
    volume). Workloads in one plan only count as volumes."""
    old, new, old_w, new_w = sides.old, sides.new, sides.old_w, sides.new_w
    parts = {k: {} for k in BRIDGE_LABELS}
    note = ""
    repriceable = bool(new.catalog_index)
    fees = {c.id: c.cost for c in new.commitments or ()}
    for c in old.commitments or ():
        fees[c.id] = fees.get(c.id, 0.0) - c.cost
    parts["contracts"] = {f"commitment {k}": x for k, x in fees.items() if x}
    for row in rows:
        a, b = old_w.get(row.id), new_w.get(row.id)
        if a is None or b is None:
            parts["volumes"][row.id] = (b.cost if b else 0.0) - (a.cost if a else 0.0)
            continue
        cpt0 = a.cost / a.tasks if a.tasks else 0.0
        volume = (b.tasks - a.tasks) * cpt0
        if _sold(a) or _sold(b):  # a tier or a contract prices a route: the list prices cannot reprice it
            for k, x in (("volumes", volume), ("contracts", b.cost - a.cost - volume)):
                parts[k][row.id] = parts[k].get(row.id, 0.0) + x
            continue
        repriced = _repriced(a, new.catalog_index) if repriceable else None
        if repriced is None:
            repriced, note = cpt0, "prices are not separated: a plan file from before v1.3 carries no token counts"
        price = b.tasks * (repriced - cpt0)
        rest = b.cost - a.cost - volume - price
        key = "volumes" if not row.changed else _bridge_part(causes.get(row.id, set()))
        for k, x in (("volumes", volume), ("prices", price), (key, rest)):
            parts[k][row.id] = parts[k].get(row.id, 0.0) + x
    if not parts["contracts"]:
        del parts["contracts"]  # (plans without tiers or contracts: the four parts, as before)
    steps = []
    for k, by in parts.items():
        amount = sum(by.values())
        top = sorted((x for x in by.items() if abs(x[1]) >= 0.005), key=lambda x: (-abs(x[1]), x[0]))[:3]
        steps.append(
            BridgeStep(
                key=k,
                label=BRIDGE_LABELS[k],
                amount=amount,
                detail=[f"{w} {money_change(x, new.currency)}" for w, x in top],
            )
        )
    return steps, note


def _sold(w) -> bool:
    """Whether a workload's routes include a price tier, a reservation or a contract's discount."""
    return any(a.price_tier or a.reserved or a.discounted for a in w.allocations)


def _bridge_part(why: set[str]) -> str:
    """Where a rerouted workload's rest goes: to the catalog when an offering it used left (the move
    was forced), else to routing when its own rules changed, else to the catalog when an offering on
    its routes joined or changed speed, capability or capacity, else to routing."""
    if "left" in why:
        return "catalog"
    if "rule" in why:
        return "routing"
    return "catalog" if why & CATALOG_CAUSES else "routing"


def _repriced(w, index) -> float | None:
    """Workload w's cost per task on its routes at the prices of `index` (offerings that left keep
    their price: their move is the catalog's), or None without token counts."""
    total = 0.0
    for a in w.allocations:
        if a.input_tokens is None or a.output_tokens is None:
            return None
        entry = index.get(a.offering)
        if entry is None:
            total += a.share * a.cost_per_task
            continue
        cached = entry.price_input if entry.price_cached_input is None else entry.price_cached_input
        c = w.cached_input_share
        cpt = (a.input_tokens * ((1 - c) * entry.price_input + c * cached) + a.output_tokens * entry.price_output) / 1e6
        total += a.share * cpt
    return total


def _num(x: float | None) -> str:
    return "none" if x is None else figure(x, 6)


def _kept_floors(old_w, new_w, rescales: dict[str, Rescale]) -> list[KeptFloor]:
    """The workloads in both plans whose floor kept its number while its metric was rescaled."""
    out: list[KeptFloor] = []
    if not rescales:
        return out
    for wid, b in new_w.items():
        a = old_w.get(wid)
        rescale = rescales.get(b.metric)
        if a is None or a.metric != b.metric or rescale is None or not rescale.moves:
            continue
        if b.capability_min and a.capability_min == b.capability_min:
            floor = b.capability_min
            out.append(
                KeptFloor(workload=wid, metric=b.metric, floor=floor, old_scale=round(floor / rescale.factor, 6))
            )
    return out
