"""What-if scenarios applied to the inputs (SPEC section 6).

A scenario edits validated inputs (SPEC section 6): offerings matched by glob on id, model,
vendor, host or tier get fields set ("900"), scaled ("*0.8") or shifted ("+5", "-5"); offerings
are removed or added; workloads and the policy change the same way. A match that selects
nothing, or a field that does not exist, is an input error, never a silent no-op.
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

from planner.core.errors import InputError, Setting
from planner.model.edits import apply_catalog_edits, set_fields
from planner.model.load import (
    Inputs,
    check_against_catalog,
    check_workloads,
    load_distributions,
    parse_value,
    revalidate,
)
from planner.model.schema import (
    Catalog,
    CatalogEdit,
    Match,
    Policy,
    PolicyEdit,
    Scenario,
    Workload,
    WorkloadEdit,
    WorkloadMatch,
    WorkloadSet,
)

# ----------------------------------------------------------------------------- scenarios


def apply_scenario(inputs: Inputs, scenario: Scenario, file: str) -> Inputs:
    """A new Inputs with the scenario's edits applied and what they touch validated again (a part
    the scenario leaves alone, the catalog or the workloads file, is shared with `inputs`)."""
    cat = inputs.catalog.model_dump(mode="json") if scenario.catalog else None
    ws = inputs.workloads.model_dump(mode="json") if scenario.workloads or scenario.policy is not None else None
    if cat is not None:
        apply_catalog_edits(cat, scenario.catalog, file)
    for i, edit in enumerate(scenario.workloads):
        loc = f"workloads[{i}]"
        hits = [w for w in ws["workloads"] if edit.match.id is None or fnmatch.fnmatchcase(w["id"], edit.match.id)]
        if not hits:
            raise InputError.single(file, f"{loc}.match", f"matches no workload (id '{edit.match.id}')")
        set_fields(hits, edit.set, Workload, file, loc, "workload")
    if scenario.policy is not None:
        set_fields([ws["policy"]], scenario.policy.set, Policy, file, "policy", "policy")
    new_cat = inputs.catalog if cat is None else revalidate(Catalog, cat, file, "catalog after the scenario")
    new_ws = inputs.workloads if ws is None else revalidate(WorkloadSet, ws, file, "workloads after the scenario")
    if ws is not None:
        check_workloads(new_ws, file)
    if ws is not None or cat is not None:
        check_against_catalog(new_ws, new_cat, file)
    distributions = inputs.distributions
    if ws is not None:  # a scenario may name another distribution file (relative to the workloads file)
        distributions = load_distributions(new_ws, inputs.workloads_file, inputs.distributions, file)
    return Inputs(new_ws, new_cat, inputs.workloads_file, inputs.catalog_file, inputs.overlays, distributions)


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
                Setting("set"),
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
    return Scenario(
        name=name,
        description="--set " + " --set ".join(expressions),
        catalog=catalog,
        workloads=workloads,
        policy=PolicyEdit(set=policy) if policy else None,
    )


def without_vendor(company: str, catalog: Catalog) -> Scenario:
    """An outage of one company: every offering it bills (vendor) or serves (host, or as the only company
    behind an aggregator: served_by) is removed."""
    name = "without-" + re.sub(r"[^A-Za-z0-9._@/:-]", "_", company)
    literal = re.sub(r"([*?\[])", r"[\1]", company)  # the name, not a glob
    edits = []
    if any(o.vendor == company for o in catalog.offerings):
        edits.append(CatalogEdit(remove=Match(vendor=literal)))
    if any(o.host_name == company and o.vendor != company for o in catalog.offerings):
        edits.append(CatalogEdit(remove=Match(host=literal)))
    for o in catalog.offerings:  # served behind an aggregator by this company alone
        if o.down_without(company) and company not in (o.vendor, o.host_name):
            edits.append(CatalogEdit(remove=Match(id=re.sub(r"([*?\[])", r"[\1]", o.id))))
    return Scenario(name=name, description=f"{company} is unavailable (what it bills or serves)", catalog=edits)
