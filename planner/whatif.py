"""What-if runs: scenarios applied to the inputs, and comparisons of two plans.

A scenario edits validated inputs (SPEC section 6): offerings matched by glob on id, model,
vendor, host or tier get fields set ("900"), scaled ("*0.8") or shifted ("+5", "-5"); offerings
are removed or added; workloads and the policy change the same way. A match that selects
nothing, or a field that does not exist, is an input error, never a silent no-op.
"""

from __future__ import annotations

import copy
import fnmatch
import re
import typing
from typing import Any, Optional

import yaml
from pydantic import BaseModel

from .errors import InputError
from .load import Inputs, _unwrap, check_workloads, validate
from .plan import Plan, trusted
from .schema import Catalog, CatalogEdit, Match, Offering, Policy, PolicyEdit, Scenario, Workload, WorkloadEdit, \
    WorkloadMatch, WorkloadSet

_OP = re.compile(r"^\s*([*+-])\s*([0-9.eE+-]+)\s*$")


# ----------------------------------------------------------------------------- scenarios


def apply_scenario(inputs: Inputs, scenario: Scenario, file: str) -> Inputs:
    """A new Inputs with the scenario's edits applied and what they touch validated again (a part
    the scenario leaves alone, the catalog or the workloads file, is shared with `inputs`)."""
    cat = inputs.catalog.model_dump(mode="json") if scenario.catalog else None
    ws = inputs.workloads.model_dump(mode="json") if scenario.workloads or scenario.policy is not None else None
    for i, edit in enumerate(scenario.catalog):
        loc = f"catalog[{i}]"
        if edit.set is not None:
            hits = [o for o in cat["offerings"] if _matches(o, edit.match)]
            if not hits:
                raise InputError.single(file, f"{loc}.match", f"matches no offering ({_describe(edit.match)})")
            _set_fields(hits, edit.set, Offering, file, loc, "offering")
        elif edit.remove is not None:
            keep = [o for o in cat["offerings"] if not _matches(o, edit.remove)]
            if len(keep) == len(cat["offerings"]):
                raise InputError.single(file, f"{loc}.remove", f"matches no offering ({_describe(edit.remove)})")
            if not keep:
                raise InputError.single(file, f"{loc}.remove", "would remove every offering")
            cat["offerings"] = keep
        else:
            cat["offerings"].extend(copy.deepcopy(edit.add))
    for i, edit in enumerate(scenario.workloads):
        loc = f"workloads[{i}]"
        hits = [w for w in ws["workloads"] if edit.match.id is None or fnmatch.fnmatchcase(w["id"], edit.match.id)]
        if not hits:
            raise InputError.single(file, f"{loc}.match", f"matches no workload (id '{edit.match.id}')")
        _set_fields(hits, edit.set, Workload, file, loc, "workload")
    if scenario.policy is not None:
        _set_fields([ws["policy"]], scenario.policy.set, Policy, file, "policy", "policy")
    new_cat = inputs.catalog if cat is None else _revalidate(Catalog, cat, file, "catalog after the scenario")
    new_ws = inputs.workloads if ws is None else _revalidate(WorkloadSet, ws, file, "workloads after the scenario")
    if ws is not None:
        check_workloads(new_ws, file)
    return Inputs(new_ws, new_cat, inputs.workloads_file, inputs.catalog_file)


def _set_fields(targets: list[dict], edits: dict[str, Any], model: type[BaseModel], file: str, loc: str,
                what: str) -> None:
    """Apply every `path: value` of one edit to each matched object (offering, workload or policy)."""
    for path, value in edits.items():
        for obj in targets:
            label = f"{what} '{obj['id']}'" if "id" in obj else what
            _apply(obj, path, value, model, file, f"{loc}.set.{path}", label)


def _revalidate(model, data, file: str, what: str):
    try:
        return validate(model, data, file)
    except InputError as exc:
        for p in exc.problems:
            object.__setattr__(p, "message", f"{p.message} ({what})")
        raise


def _matches(offering: dict, match: Match) -> bool:
    values = {"id": offering["id"], "model": offering["model"], "vendor": offering["vendor"],
              "host": offering.get("host") or offering["vendor"], "tier": offering["tier"]}
    return all(fnmatch.fnmatchcase(values[k], pattern) for k, pattern in match.model_dump().items()
               if pattern is not None)


def _describe(match: BaseModel) -> str:
    return ", ".join(f"{k} '{v}'" for k, v in match.model_dump().items() if v is not None) or "everything"


def _apply(obj: dict, path: str, value: Any, model: type[BaseModel], file: str, loc: str, what: str) -> None:
    """Set, scale or shift the field at a dotted path, checking the path against the schema."""
    parts = path.split(".")
    tp: Any = model
    target = obj
    for k, part in enumerate(parts):
        tp = _unwrap(tp)
        last = k == len(parts) - 1
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            if part not in tp.model_fields:
                raise InputError.single(file, loc, f"no field '{part}' in {tp.__name__}; expected one of: "
                                                   f"{', '.join(tp.model_fields)}")
            next_tp = tp.model_fields[part].annotation
        elif typing.get_origin(tp) is dict:
            next_tp = typing.get_args(tp)[1]
        else:
            raise InputError.single(file, loc, f"'{'.'.join(parts[:k])}' has no field '{part}'")
        if last:
            target[part] = _new_value(target.get(part), value, file, loc, what)
            if model is Workload and parts[0] == "latency" and part in ("budget_s", "threshold") and value is not None:
                target["threshold" if part == "budget_s" else "budget_s"] = None
            return
        if target.get(part) is None:
            target[part] = {}
        target = target[part]
        tp = next_tp


def _new_value(current: Any, value: Any, file: str, loc: str, what: str) -> Any:
    if isinstance(value, str):
        m = _OP.match(value)
        if m:
            op, number = m.group(1), float(m.group(2))
            if current is None:
                raise InputError.single(file, loc, f"'{value}' needs a current value, but it is not set for {what}")
            if isinstance(current, bool) or not isinstance(current, (int, float)):
                raise InputError.single(file, loc, f"'{value}' needs a number, found {current!r} for {what}")
            result = current * number if op == "*" else current + number if op == "+" else current - number
            return int(result) if isinstance(current, int) and float(result).is_integer() else result
    return value


_SET = re.compile(r"^(?:(offerings|workloads)\[([^\]]+)\]|(policy))\.([A-Za-z0-9_.]+)=(.*)$", re.S)


def scenario_from_sets(expressions: list[str], name: str = "set") -> Scenario:
    """--set PATH=VALUE: offerings[GLOB].FIELD=V, workloads[GLOB].FIELD=V or policy.FIELD=V."""
    catalog: list[CatalogEdit] = []
    workloads: list[WorkloadEdit] = []
    policy: dict[str, Any] = {}
    for expr in expressions:
        m = _SET.match(expr)
        if not m:
            raise InputError.single("--set", expr, "expected offerings[GLOB].FIELD=VALUE, workloads[GLOB].FIELD=VALUE "
                                                   "or policy.FIELD=VALUE (VALUE: a number, *k, +k, -k, null)")
        kind, glob, is_policy, field, raw = m.groups()
        try:
            value = yaml.safe_load(raw) if raw.strip() else None
        except yaml.YAMLError:
            value = raw
        if is_policy:
            policy[field] = value
        elif kind == "offerings":
            catalog.append(CatalogEdit(match=Match(id=glob), set={field: value}))
        else:
            workloads.append(WorkloadEdit(match=WorkloadMatch(id=glob), set={field: value}))
    return Scenario(name=name, catalog=catalog, workloads=workloads,
                    policy=PolicyEdit(set=policy) if policy else None)


def without_vendor(vendor: str) -> Scenario:
    name = "without-" + re.sub(r"[^A-Za-z0-9._@/:-]", "_", vendor)
    return Scenario(name=name, description=f"{vendor} is unavailable",
                    catalog=[CatalogEdit(remove=Match(vendor=vendor))])


# ----------------------------------------------------------------------------- comparisons


class Change(BaseModel):
    key: str
    before: Optional[float]
    after: Optional[float]

    @property
    def delta(self) -> Optional[float]:
        if self.before is None or self.after is None:
            return None
        return self.after - self.before


class WorkloadChange(BaseModel):
    id: str
    status_before: Optional[str]
    status_after: Optional[str]
    cost_before: Optional[float]
    cost_after: Optional[float]
    routing_before: list[str]
    routing_after: list[str]
    changed: bool


class OfferingChange(BaseModel):
    id: str
    field: str
    before: Optional[float]
    after: Optional[float]


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


def _routing(w) -> list[str]:
    allocations = w.allocations if len(w.allocations) < 2 else sorted(
        w.allocations, key=lambda a: (-a.share, a.offering, a.mode))
    return [f"{a.offering}{'' if a.mode == 'default' else '@' + a.mode} {a.share:.0%}" for a in allocations]


def packed(cmp: Comparison, unchanged: list[WorkloadChange]) -> tuple[dict, list[Optional[tuple]]]:
    """A comparison as its fields and its workload rows as tuples, a row that is the base's unchanged
    one (`unchanged_rows`) as None: what a batch worker sends back (unpickling a thousand models
    per scenario cost the parent CPU beside its workers). unpacked() makes it again."""
    rows = [None if k < len(unchanged) and w is unchanged[k] else tuple(w.__dict__.values())
            for k, w in enumerate(cmp.workloads)]
    return {k: v for k, v in cmp.__dict__.items() if k != "workloads"}, rows


def unpacked(head: dict, rows: list[Optional[tuple]], unchanged: list[WorkloadChange]) -> Comparison:
    """The comparison packed() took apart, its None rows the shared unchanged ones."""
    fields = list(WorkloadChange.model_fields)
    workloads = [unchanged[k] if row is None else trusted(WorkloadChange, dict(zip(fields, row)))
                 for k, row in enumerate(rows)]
    return trusted(Comparison, {k: workloads if k == "workloads" else head[k] for k in Comparison.model_fields})


def unchanged_rows(plan: Plan, old_routing: dict[str, list[str]]) -> list[WorkloadChange]:
    """Per workload of `plan`, its comparison row against a plan that keeps its record as it is (a
    what-if batch makes these once and shares them among its scenarios' comparisons)."""
    return [trusted(WorkloadChange, {
        "id": w.id, "status_before": w.status, "status_after": w.status, "cost_before": w.cost,
        "cost_after": w.cost, "routing_before": old_routing[w.id], "routing_after": old_routing[w.id],
        "changed": False}) for w in plan.workloads]


def routings(plan: Plan) -> dict[str, list[str]]:
    """Each workload's routing as compare_plans shows it ("offering@mode 70%", largest share first)."""
    return {w.id: _routing(w) for w in plan.workloads}


def compare_plans(old: Plan, new: Plan, label_before: str = "before", label_after: str = "after",
                  old_routing: Optional[dict[str, list[str]]] = None,
                  unchanged: Optional[list[WorkloadChange]] = None) -> Comparison:
    """Cost change in total, by workload and vendor; routing changes; bindings; price and speed changes.
    old_routing: routings(old), and unchanged: unchanged_rows(old, old_routing), when comparing many
    plans with the same one (a what-if batch): a workload whose record `new` took from `old` as it
    is gets that row."""
    old_w = {w.id: w for w in old.workloads}
    new_w = {w.id: w for w in new.workloads}
    old_routing = routings(old) if old_routing is None else old_routing
    ids = [w.id for w in old.workloads] + [w.id for w in new.workloads if w.id not in old_w]
    workloads = []
    for k, i in enumerate(ids):
        a, b = old_w.get(i), new_w.get(i)
        if (unchanged is not None and a is not None and b is not None and b.allocations is a.allocations
                and b.cost == a.cost and b.status == a.status):
            workloads.append(unchanged[k])
            continue
        ra = old_routing[i] if a else []
        rb = _routing(b) if b else []
        workloads.append(trusted(WorkloadChange, {
            "id": i, "status_before": a.status if a else None, "status_after": b.status if b else None,
            "cost_before": a.cost if a else None, "cost_after": b.cost if b else None,
            "routing_before": ra, "routing_after": rb, "changed": ra != rb}))
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
    return Comparison(label_before=label_before, label_after=label_after, status_before=old.status,
                      status_after=new.status, total_before=old.total_cost, total_after=new.total_cost,
                      currency=new.currency, period=new.period, workloads=workloads, vendors=vendors,
                      binding_started=sorted(bb - ba), binding_stopped=sorted(ba - bb),
                      offering_changes=offering_changes,
                      catalogs=(f"{old.inputs.catalog} ({old.inputs.as_of})", f"{new.inputs.catalog} ({new.inputs.as_of})"))
