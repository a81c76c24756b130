"""The page's controls as a what-if scenario (SPEC "The live review").

Each control is one typed change: a price change of a company (what it bills) or of one offering, a
workload's latency budget, its share of tasks within budget, its traffic, a company's share cap, a
company's outage. A list of them is checked against the loaded inputs with the rules of `--set` and
`--without-vendor` (a name the inputs lack, a value out of range: an input error naming the change),
then made into one Scenario of ordinary edits, which `planner whatif` reads from the file the page saves.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from planner.core.errors import InputError
from planner.core.fmt import figure, percent, seconds
from planner.model.load import Inputs, validate
from planner.model.schema import (
    Catalog,
    CatalogEdit,
    Match,
    Offering,
    PolicyEdit,
    Scenario,
    WorkloadEdit,
    WorkloadMatch,
)

SOURCE = "changes"  # what an input error about a request names as its file
MAX_CHANGES = 200
PRICES = ("input", "output", "cached_input")  # the figures of a price (and of its long-context price)


class _Change(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


class PriceChange(_Change):
    """Every price of the offerings a company bills, or of one offering, moved by `percent` (list prices,
    cached input, long-context prices and the batch, flex and priority tiers alike)."""

    kind: Literal["price"]
    company: str | None = Field(None, min_length=1, max_length=500, description="who bills the offerings")
    offering: str | None = Field(None, min_length=1, max_length=200, description="one offering's id")
    percent: float = Field(ge=-100, le=10_000, description="the change in percent: -20 is a 20% cut")

    @model_validator(mode="after")
    def _one_target(self) -> PriceChange:
        if (self.company is None) == (self.offering is None):
            raise ValueError("a price change names a company or an offering, not both")
        return self


class BudgetChange(_Change):
    """A workload's latency budget, in seconds (it replaces a named threshold)."""

    kind: Literal["budget"]
    workload: str = Field(min_length=1, max_length=200)
    budget_s: float = Field(gt=0, le=1e7)


class WithinChange(_Change):
    """The share of a workload's tasks that must meet its budget, (0, 1]."""

    kind: Literal["within"]
    workload: str = Field(min_length=1, max_length=200)
    share: float = Field(gt=0, le=1)


class TrafficChange(_Change):
    """A workload's traffic multiplied: its tasks, and its stated peak when it states one."""

    kind: Literal["traffic"]
    workload: str = Field(min_length=1, max_length=200)
    factor: float = Field(gt=0, le=1e6)


class CapChange(_Change):
    """A cap on one company's share of the traffic (policy.vendor_share), or with no company on any one
    company's (policy.max_vendor_share), in the unit of policy.share_of."""

    kind: Literal["cap"]
    company: str | None = Field(None, min_length=1, max_length=500)
    share: float = Field(gt=0, le=1)


class OutageChange(_Change):
    """A company out: every offering it bills or serves, or that only it serves behind an aggregator."""

    kind: Literal["outage"]
    company: str = Field(min_length=1, max_length=500)


Change = Annotated[
    PriceChange | BudgetChange | WithinChange | TrafficChange | CapChange | OutageChange, Field(discriminator="kind")
]


class Changes(_Change):
    """A request's changes, in the order the page made them."""

    changes: list[Change] = Field(max_length=MAX_CHANGES)


def parse_changes(data: object) -> list[Change]:
    """The request's changes, validated (types, ranges, finite numbers); each control once, the last
    value given for it in the place of its first."""
    changes = validate(Changes, data, SOURCE).changes
    latest: dict[tuple, Change] = {}
    for c in changes:
        latest[key(c)] = c
    return list(latest.values())


def key(c: Change) -> tuple:
    """What a change controls: a second change of it replaces the first."""
    if isinstance(c, PriceChange):
        return ("price", "company" if c.company is not None else "offering", c.company or c.offering)
    if isinstance(c, CapChange | OutageChange):
        return (c.kind, c.company)
    return (c.kind, c.workload)


def label(c: Change, share_of: str = "tokens") -> str:
    """A change in words, as the page lists it and the saved scenario's description reads."""
    if isinstance(c, PriceChange):
        sign = "+" if c.percent > 0 else "±" if c.percent == 0 else "-"
        change = f"{sign}{figure(abs(c.percent), 4)}%"
        return f"{c.company} prices {change} (what it bills)" if c.company else f"{c.offering} prices {change}"
    if isinstance(c, BudgetChange):
        return f"{c.workload}: budget {seconds(c.budget_s)}"
    if isinstance(c, WithinChange):
        return f"{c.workload}: {percent(c.share)} within budget"
    if isinstance(c, TrafficChange):
        return f"{c.workload}: traffic ×{figure(c.factor, 4)}"
    if isinstance(c, CapChange):
        return f"{c.company or 'any one company'}: at most {percent(c.share)} of the {share_of}"
    return f"{c.company} out"


def check(changes: list[Change], inputs: Inputs) -> None:
    """Every name a change gives is one the inputs have, and each change means something for it."""
    ws, catalog = inputs.workloads, inputs.catalog
    workloads = {w.id: w for w in ws.workloads}
    offerings = {o.id for o in catalog.offerings}
    billing = sorted({o.vendor for o in catalog.offerings})
    companies = sorted({c for o in catalog.offerings for c in o.companies})
    budgeted = {w.workload for w in changes if isinstance(w, BudgetChange)}
    for i, c in enumerate(changes):
        at = f"changes[{i}]"
        if isinstance(c, PriceChange) and c.company is not None and c.company not in billing:
            _unknown(at + ".company", f"no offering billed by '{c.company}'", billing)
        elif isinstance(c, PriceChange) and c.offering is not None and c.offering not in offerings:
            _unknown(at + ".offering", f"no offering '{c.offering}' in the catalog", [])
        elif isinstance(c, CapChange | OutageChange) and c.company is not None and c.company not in companies:
            _unknown(at + ".company", f"no company '{c.company}' bills or serves an offering", companies)
        elif isinstance(c, CapChange) and c.company is not None and "." in c.company:
            raise InputError.single(SOURCE, at + ".company", f"'{c.company}' has a dot: cap it in a scenario file")
        elif isinstance(c, BudgetChange | WithinChange | TrafficChange) and c.workload not in workloads:
            _unknown(at + ".workload", f"no workload '{c.workload}'", list(workloads))
        elif isinstance(c, WithinChange) and c.workload not in budgeted and _budget(workloads[c.workload], ws) is None:
            raise InputError.single(
                SOURCE, at + ".share", f"workload '{c.workload}' has no latency budget: give it one first"
            )


def _unknown(path: str, what: str, names: list[str]) -> None:
    shown = ", ".join(names[:40]) + (f" and {len(names) - 40} more" if len(names) > 40 else "")
    raise InputError.single(SOURCE, path, f"{what}; expected one of: {shown}" if names else what)


def _budget(w, ws) -> float | None:
    if w.latency.budget_s is not None:
        return w.latency.budget_s
    return ws.all_thresholds.get(w.latency.threshold) if w.latency.threshold else None


def scenario_of(changes: list[Change], inputs: Inputs, name: str = "live") -> Scenario:
    """The changes as one scenario of ordinary edits: price changes in order, then the outages (an edit
    that removes what another changes would match nothing), then the workloads and the policy."""
    catalog: list[CatalogEdit] = []
    workloads: list[WorkloadEdit] = []
    policy: dict[str, float] = {}
    share_of = inputs.workloads.policy.share_of
    for c in changes:
        if isinstance(c, PriceChange):
            company, name = c.company is not None, c.company or c.offering
            match = Match(vendor=literal(name)) if company else Match(id=literal(name))
            hits = [o for o in inputs.catalog.offerings if (o.vendor if company else o.id) == name]
            catalog += price_edits(match, hits, scale(1 + c.percent / 100))
        elif isinstance(c, BudgetChange | WithinChange | TrafficChange):
            workloads.append(WorkloadEdit(match=WorkloadMatch(id=c.workload), set=_workload_set(c, inputs)))
        elif isinstance(c, CapChange):
            policy["max_vendor_share" if c.company is None else f"vendor_share.{c.company}"] = c.share
    catalog += outage_edits([c.company for c in changes if isinstance(c, OutageChange)], inputs.catalog)
    return Scenario(
        name=name,
        description="; ".join(label(c, share_of) for c in changes),
        catalog=catalog,
        workloads=workloads,
        policy=PolicyEdit(set=policy) if policy else None,
    )


def _workload_set(c: BudgetChange | WithinChange | TrafficChange, inputs: Inputs) -> dict:
    if isinstance(c, BudgetChange):
        return {"latency.budget_s": c.budget_s}
    if isinstance(c, WithinChange):
        return {"latency.within_budget_share": c.share}
    w = next(w for w in inputs.workloads.workloads if w.id == c.workload)
    by = scale(c.factor)
    return {"tasks": by} | ({"peak_tasks_per_minute": by} if w.peak_tasks_per_minute is not None else {})


def scale(factor: float) -> str:
    """A factor as a scenario's scale ("*0.8"): twelve significant digits, so 1 - 20/100 reads 0.8."""
    return f"*{factor:.12g}"


def literal(name: str) -> str:
    """A name as a glob that matches only itself."""
    return re.sub(r"([*?\[])", r"[\1]", name)


def price_paths(o: Offering) -> list[str]:
    """Every price figure an offering states: list, cached input, long context, and each price tier's."""
    out = []
    for prefix, price in [("price", o.price), *((f"price_tiers.{t.name}.price", t.price) for t in o.price_tiers)]:
        out += [f"{prefix}.{f}" for f in PRICES if getattr(price, f) is not None]
        lc = price.long_context
        if lc is not None:
            out += [f"{prefix}.long_context.{f}" for f in PRICES if getattr(lc, f) is not None]
    return out


def price_edits(match: Match, offerings: list[Offering], scale: str) -> list[CatalogEdit]:
    """Scale every price of the matched offerings: one edit of the figures they all state, then one per
    offering for the figures only it states (a scenario may not scale a figure that is not set)."""
    paths = [price_paths(o) for o in offerings]
    common = [p for p in paths[0] if all(p in other for other in paths[1:])]
    edits = [CatalogEdit(match=match, set=dict.fromkeys(common, scale))]
    for o, own in zip(offerings, paths):
        extra = [p for p in own if p not in common]
        if extra:
            edits.append(CatalogEdit(match=Match(id=literal(o.id)), set=dict.fromkeys(extra, scale)))
    return edits


def outage_edits(companies: list[str], catalog: Catalog) -> list[CatalogEdit]:
    """Remove what the companies' outages take down together: what any of them bills or serves, and what
    only they serve behind an aggregator (one outage alone leaves an aggregator the others). Each edit
    removes something still there, so none matches nothing."""
    out = set(companies)
    left = list(catalog.offerings)
    edits: list[CatalogEdit] = []
    for c in dict.fromkeys(companies):
        if any(o.vendor == c for o in left):
            edits.append(CatalogEdit(remove=Match(vendor=literal(c))))
            left = [o for o in left if o.vendor != c]
        if any(o.host_name == c for o in left):
            edits.append(CatalogEdit(remove=Match(host=literal(c))))
            left = [o for o in left if o.host_name != c]
    for o in left:
        if o.served_by and set(o.served_by) <= out:
            edits.append(CatalogEdit(remove=Match(id=literal(o.id))))
    return edits
