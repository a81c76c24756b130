"""What-if scenarios applied to the inputs (SPEC section 6).

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
from typing import Any

from pydantic import BaseModel

from .errors import InputError
from .load import Inputs, _unwrap, check_against_catalog, check_workloads, parse_value, validate
from .schema import (
    Catalog,
    CatalogEdit,
    Match,
    Offering,
    Policy,
    PolicyEdit,
    Scenario,
    Workload,
    WorkloadEdit,
    WorkloadMatch,
    WorkloadSet,
)

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
    if ws is not None or cat is not None:
        check_against_catalog(new_ws, new_cat, file)
    return Inputs(new_ws, new_cat, inputs.workloads_file, inputs.catalog_file)


def _set_fields(
    targets: list[dict], edits: dict[str, Any], model: type[BaseModel], file: str, loc: str, what: str
) -> None:
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
    values = {
        "id": offering["id"],
        "model": offering["model"],
        "vendor": offering["vendor"],
        "host": offering.get("host") or offering["vendor"],
        "tier": offering["tier"],
    }
    return all(
        fnmatch.fnmatchcase(values[k], pattern) for k, pattern in match.model_dump().items() if pattern is not None
    )


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
                raise InputError.single(
                    file, loc, f"no field '{part}' in {tp.__name__}; expected one of: {', '.join(tp.model_fields)}"
                )
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
            raise InputError.single(
                "--set",
                expr,
                "expected offerings[GLOB].FIELD=VALUE, workloads[GLOB].FIELD=VALUE "
                "or policy.FIELD=VALUE (VALUE: a number, *k, +k, -k, null)",
            )
        kind, glob, is_policy, field, raw = m.groups()
        value = parse_value(raw, f"--set {expr[:60]}") if raw.strip() else None
        if is_policy:
            policy[field] = value
        elif kind == "offerings":
            catalog.append(CatalogEdit(match=Match(id=glob), set={field: value}))
        else:
            workloads.append(WorkloadEdit(match=WorkloadMatch(id=glob), set={field: value}))
    return Scenario(name=name, catalog=catalog, workloads=workloads, policy=PolicyEdit(set=policy) if policy else None)


def without_vendor(company: str, catalog: Catalog) -> Scenario:
    """An outage of one company: every offering it bills (vendor) or serves (host) is removed."""
    name = "without-" + re.sub(r"[^A-Za-z0-9._@/:-]", "_", company)
    literal = re.sub(r"([*?\[])", r"[\1]", company)  # the name, not a glob
    edits = []
    if any(o.vendor == company for o in catalog.offerings):
        edits.append(CatalogEdit(remove=Match(vendor=literal)))
    if any(o.host_name == company and o.vendor != company for o in catalog.offerings):
        edits.append(CatalogEdit(remove=Match(host=literal)))
    return Scenario(name=name, description=f"{company} is unavailable (what it bills or serves)", catalog=edits)
