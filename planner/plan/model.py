"""The Plan object and its JSON form (SPEC section 5).

Reports, exports and comparisons read only this object, never solver internals. The models
ignore unknown keys on reading, so a newer plan file still loads.

A plan file read back (replay, export, compare, solve --from) may have been edited by hand, so the
models carry its rules (SPEC "Plans read back and importers"): every number finite, the figures
copied from an input in that input's ranges (speeds, times, tasks, budgets, prices, shares), the
names and ids under the rule of the workloads file's (schema.OfferingId), a workload's shares adding
up to 1, ids unique. The planner's own plans are built as trusted records (see core.records.trusted) and meet
them: tests/plan/test_hostile_plans.py reads back the golden plans and others.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from planner.core.errors import InputError
from planner.core.files import plan_text, read_input
from planner.model.schema import Name, OfferingId, Period, _check_unique

PLAN_VERSION = 1
SHARE_SUM_TOLERANCE = 1e-6  # a workload's shares add up to 1 within this (the planner writes them to 12 places)

# The ranges of a plan's figures: where one is an input's copied into the plan, the input schema's
# plausibility limits (SPEC "Input rules made explicit"); elsewhere finite, and not negative where the
# quantity cannot be (PlanModel refuses NaN and infinity everywhere).
Share = Annotated[float, Field(ge=0, le=1)]
Fraction = Annotated[float, Field(ge=0, le=1 + SHARE_SUM_TOLERANCE)]  # a share summed or averaged: rounding aside
Required = Annotated[float, Field(gt=0, le=1)]  # a share that must be within budget, (0, 1]
Tasks = Annotated[float, Field(ge=0, le=1e13)]  # per period
Budget = Annotated[float, Field(gt=0, le=1e7)]  # s
Seconds = Annotated[float, Field(ge=0)]
OutputTps = Annotated[float, Field(gt=0, le=1e7)]
TtftS = Annotated[float, Field(ge=0, le=1e5)]
PrefillTps = Annotated[float, Field(gt=0, le=1e9)]
ThinkingTokens = Annotated[float, Field(ge=0, le=1e12)]  # per call: up to 10^5 s of thinking at 10^7 tokens/s
Factor = Annotated[float, Field(ge=0, le=1e3)]  # a mode's reasoning_factor
Count = Annotated[float, Field(ge=0)]  # tokens, tasks a minute, capacity used
Price = Annotated[float, Field(ge=0, le=1e6)]  # per 1M tokens
Cost = Annotated[float, Field(ge=0)]
Whole = Annotated[int, Field(ge=0)]
Tier = Literal["batch", "flex", "priority"]


class PlanModel(BaseModel):
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)


def _absent(value: Any) -> bool:
    return value is None


def _zero(value: Any) -> bool:
    return value == 0


def optional(**kwargs: Any) -> Any:
    """A field a plan file carries only when it applies (an input feature is used): absent, not null,
    otherwise, so plans of inputs without the feature read as before, byte for byte."""
    return Field(None, exclude_if=_absent, **kwargs)


class InputFiles(PlanModel):
    """What a plan was solved from."""

    workloads_file: str
    catalog_file: str
    catalog: str
    as_of: str | None = None
    scenario: str | None = None


class SolverInfo(PlanModel):
    name: str
    status: str
    seconds: Seconds
    variables: Whole
    constraints: Whole
    integer: bool
    gap: float | None = optional()  # an integer plan stopped by --time-limit: its relative gap (None: unknown)
    time_limit: float | None = optional()  # the --time-limit it ran under, s


class LatencySummary(PlanModel):
    mean: Seconds
    max: Seconds


InputLength = Annotated[int, Field(gt=0, le=10**9)]  # input tokens per call of a measured prompt length


class SpeedAt(PlanModel):
    """An option's median speed measured at one prompt length (SPEC "Speeds by prompt length")."""

    output_tps: OutputTps | None = optional()
    ttft_s: TtftS | None = optional()


def _at_length(a: Allocation, name: str, x: float) -> float | None:
    points = sorted((k, getattr(v, name)) for k, v in (a.speed_by_input or {}).items() if getattr(v, name) is not None)
    if len(points) < 2:
        return getattr(a, name)
    if x <= points[0][0]:
        return points[0][1]
    if x >= points[-1][0]:
        return points[-1][1]
    j = next(j for j in range(len(points) - 1) if points[j][0] <= x < points[j + 1][0])
    (x0, y0), (x1, y1) = points[j], points[j + 1]
    return y0 + (math.log(x) - math.log(x0)) / (math.log(x1) - math.log(x0)) * (y1 - y0)


class Allocation(PlanModel):
    """One route: a share of a workload on one option, who bills and serves it, and its figures."""

    offering: OfferingId
    mode: OfferingId
    share: Share
    tasks: Tasks
    cost_per_task: Cost
    cost: Cost
    latency_s: Seconds
    capability: float | None
    vendor: str
    host: str
    served_by: list[str] | None = optional()  # the companies behind an aggregator host (catalog served_by)
    tier: str
    model: str = ""
    within_budget: bool = True
    input_tokens: Count | None = None  # per task, cached and uncached (what the price bridge reprices)
    output_tokens: Count | None = None  # per task, reasoning included (billed as output)
    within_budget_share: Fraction | None = optional()  # with sample tasks: the share of them within budget
    # the option's speed and thinking (its mode's when the mode has its own), so that `planner replay`
    # can time logged tasks on it with SPEC 3's formula without the catalog (v1.5)
    output_tps: OutputTps | None = None
    ttft_s: TtftS | None = None
    prefill_tps: PrefillTps | None = None  # None: folded into ttft_s
    # the medians at every prompt length measured, by input tokens per call, the catalog's input_tokens
    # (output_tps and ttft_s above) included (v1.8); absent: the catalog states no length
    speed_by_input: dict[InputLength, SpeedAt] | None = optional()
    thinking_tokens: ThinkingTokens | None = None  # measured thinking per call; None: none measured
    reasoning_factor: Factor = 1.0
    price_tier: Tier | None = optional()  # batch, flex or priority; absent: the list price (SPEC v1.6)
    reserved: OfferingId | None = optional()  # the commitment whose reserved capacity serves this share
    discounted: OfferingId | None = optional()  # the signed committed-spend contract whose discount its cost has

    @property
    def option(self) -> str:
        """The option as people read it: offering, mode, price tier, reservation."""
        from planner.core.fmt import option

        return option(self.offering, self.mode, self.price_tier or "list", self.reserved)

    def speeds_at(self, input_tokens: float) -> tuple[float | None, float | None]:
        """(output_tps, ttft_s) at `input_tokens` per call (SPEC "Speeds by prompt length"): straight lines in
        log(input tokens) between the lengths of speed_by_input, the nearest one's figure outside them; the
        allocation's own figure where fewer than two lengths measure it."""
        return _at_length(self, "output_tps", input_tokens), _at_length(self, "ttft_s", input_tokens)

    @property
    def route(self) -> tuple[str, str, str]:
        """What a switch is judged on (SPEC v1.6): offering, mode and price tier (a reservation of the list
        price is the same route as the list price)."""
        return self.offering, self.mode, self.price_tier or "list"

    @property
    def who(self) -> str:
        """Who bills and who serves it, as a route's company column reads: "openrouter · openai"."""
        from planner.core.fmt import who

        return who(self.vendor, self.host, self.served_by or ())


class Rejection(PlanModel):
    offering: OfferingId
    mode: OfferingId
    reasons: list[str]
    cost_per_task: float | None = None
    latency_s: float | None = None
    capability: float | None = None
    price_tier: Tier | None = optional()  # batch, flex or priority; absent: the list price (SPEC v1.9)
    reserved: OfferingId | None = optional()  # inside this commitment's reservation

    @property
    def option(self) -> str:
        from planner.core.fmt import option

        return option(self.offering, self.mode, self.price_tier or "list", self.reserved)


class NearMiss(PlanModel):
    offering: OfferingId
    mode: OfferingId
    latency_s: float
    capability: float | None
    cost_per_task: float


class Diagnosis(PlanModel):
    summary: str
    fastest_meeting_floor: NearMiss | None = None  # the budget it would need: its latency_s
    most_capable_within_budget: NearMiss | None = None


class BreakEven(PlanModel):
    """How far an offering's prices (input and output together) would have to move for w."""

    offering: OfferingId
    mode: OfferingId
    used: bool
    cost_per_task: float
    break_even_cost_per_task: float | None  # None: no price change wins it
    price_change: float | None  # fraction: -0.2 = a 20% cut wins it; +0.1 = used until +10%
    price_tier: Tier | None = optional()  # batch, flex or priority; absent: the list price (SPEC v1.6)
    reserved: OfferingId | None = optional()  # inside this commitment's reservation
    plan_cost: float | None = optional()  # the plan's total at the break-even price, re-solved (SPEC v1.9)

    @property
    def option(self) -> str:
        from planner.core.fmt import option

        return option(self.offering, self.mode, self.price_tier or "list", self.reserved)


class CompanyBreakEven(PlanModel):
    """The smallest uniform rise of everything a company bills or serves at which traffic moves off it
    (SPEC v1.9), and where it goes."""

    company: str
    spend: float  # what the plan spends with it now, a period
    price_change: float | None  # fraction, to half a point; None: no rise up to +100% moves traffic
    plan_cost: float | None = None  # the plan's total at that rise, re-solved
    workload: str | None = None  # the workload that moves most at that rise
    moved_share: float | None = None  # of its tasks, off the company's options
    moves_to: list[str] = []  # the options its traffic moves to, most first (three at most)
    text: str


class Compounding(PlanModel):
    """Task latency against agent turns, for the chosen option and the cheapest standard-tier one."""

    turns: list[int]
    chosen: str
    chosen_latency_s: list[float]
    standard: str | None = None
    standard_latency_s: list[float] | None = None


class BaselineChoice(PlanModel):
    workload: str
    option: str | None
    cost: float
    misses: list[str]


class Baseline(PlanModel):
    """What the same workloads would cost on a simple rule people compare with."""

    key: str
    label: str
    total_cost: float
    misses: int  # workloads whose budget, floor or other rule the rule breaks
    choices: list[BaselineChoice]
    choices_omitted: Whole = Field(0, exclude_if=_zero)  # left out of the plan file (SPEC v1.10 "Plan size")


class VendorOutage(PlanModel):
    """The plan without one vendor: its cost and the workloads left with no eligible option."""

    vendor: str
    spend: float
    feasible: bool  # the remaining workloads can still be planned within every limit
    cost_without: float | None  # total cost of the remaining workloads' plan
    change: float | None  # cost_without minus the plan's cost of those same workloads
    lost_workloads: list[str]


class DistributionInfo(PlanModel):
    """The sample tasks a workload's budget was judged on (SPEC "Traffic as a distribution")."""

    file: str  # as the workloads file names it
    samples: int


class PercentileInfo(PlanModel):
    """The percentile a workload's options were judged at, and where the catalog measures too little."""

    percentile: float  # of task latency
    output_tps_percentile: float  # 100 - percentile: the slow calls' speed
    ttft_percentile: float  # = percentile: the slow calls' first token
    at_median: list[str] = []  # allocated options judged at a median: no percentiles measured for a figure
    at_median_eligible: int = 0  # of the workload's eligible options, those judged at a median
    at_limit: list[str] = []  # allocated options measured short of it: judged at their last measured point


class WorkloadPlan(PlanModel):
    id: OfferingId
    status: Literal["ok", "infeasible"]
    description: str | None = None
    tasks: Tasks
    turns: Annotated[int, Field(ge=1, le=10000)] = 1
    budget_s: Budget | None
    threshold: str | None
    metric: str = "overall"
    capability_min: float | None = None
    cost: Cost
    cost_per_task: Cost | None
    latency_s: LatencySummary | None
    within_budget_share: Fraction | None
    within_budget_share_required: Required = 1.0
    capability_mean: float | None
    peak_tasks_per_minute: Count = 0.0
    peak_assumed: bool = False
    eligible: Whole = 0
    allocations: list[Allocation]
    rejected: list[Rejection]
    rejected_far: Whole = 0  # cheaper options left out of `rejected`: they miss by a mile (SPEC v1.3)
    cached_input_share: Share = 0.0
    break_even: list[BreakEven] = []
    tool_latency_s: Annotated[float, Field(ge=0, le=1e6)] = 0.0
    streaming: bool = False
    compounding: Compounding | None = None
    diagnosis: Diagnosis | None = None
    distribution: DistributionInfo | None = optional()  # the sample tasks its budget was judged on
    percentile: PercentileInfo | None = optional()  # the speeds' percentile its options were judged at
    # Left out of the plan file's `rejected` and `break_even` (written only when not 0; SPEC v1.9 "Plan size"):
    rejected_omitted: Whole = Field(0, exclude_if=_zero)
    break_even_omitted: Whole = Field(0, exclude_if=_zero)

    @field_validator("allocations")
    @classmethod
    def _one_split(cls, allocations: list[Allocation]) -> list[Allocation]:
        """Each option once, and the shares of a routed workload adding up to 1: every task takes one route."""
        _check_unique([a.option for a in allocations], "option")
        total = sum(a.share for a in allocations)
        if allocations and abs(total - 1.0) > SHARE_SUM_TOLERANCE:
            raise ValueError(f"the shares add up to {total:.9g}; expected 1 (every task takes one route)")
        return allocations


class OfferingUse(PlanModel):
    id: OfferingId
    vendor: str = ""
    host: str = ""
    tier: str = ""
    spend: float
    tasks: Count
    peak_tpm: Count
    tokens_per_minute: Count | None
    peak_rpm: Count = 0.0
    requests_per_minute: Count | None = None
    utilization: Count | None
    source: str | None = None
    price_input: Price | None = None  # per 1M tokens
    price_output: Price | None = None
    output_tps: OutputTps | None = None
    ttft_s: TtftS | None = None
    capability: dict[str, float] = {}  # the offering's scores (default mode), per metric


class VendorSpend(PlanModel):
    """A company the plan depends on: it bills or serves at least one option in use."""

    vendor: str
    spend: float  # on the options it bills or serves
    share: float  # of total spend
    cap: float | None = None  # its share cap, in the unit of policy.share_of
    billed: float = 0.0  # spend it bills
    traffic_share: float = 0.0  # its share of the portfolio's traffic (tokens, or tasks with share_of: tasks)
    spend_cap: float | None = None  # policy.vendor_spend


class Binding(PlanModel):
    constraint: str
    shadow_price: float | None  # the period's currency per unit of the limit
    limit: float | None = None
    unit: str = ""
    meaning: str = ""
    label: str = ""  # the constraint in plain words ("ticket-triage: share of tasks within budget")
    worth: float | None = None  # what one step of the limit (see meaning) is worth a period


class Relaxation(PlanModel):
    constraint: str
    limit: float
    needed: float
    by: float
    unit: str = ""
    meaning: str = ""
    label: str = ""
    removes: bool = False  # the relaxation takes the requirement away entirely (a share or floor to 0)
    alone: float | None = None  # the budget: what it must be when no other limit moves (None: others must)


class Risk(PlanModel):
    """One thing that could hurt the plan, what it puts at stake and what to do about it (SPEC v1.3)."""

    kind: str  # single_source | concentration | capacity | near_budget | estimated | unpriced
    severity: str  # high | medium
    subject: str  # the company, offering or workload it is about
    spend: float  # the spend per period it concerns
    text: str
    action: str


class CommitmentBreakEven(PlanModel):
    """What an unsigned commitment would need to pay (from re-solves), or where a signed one stops paying."""

    fee: float | None = None  # reserved: the fee per unit (in the commitment's period) at which buying pays
    discount: float | None = None  # committed spend: the discount at which signing pays
    min_spend: float | None = None  # committed spend: the minimum (per the plan's period) at which it pays
    units: int | None = None  # reserved: the units the plan would then buy
    exact: bool = True  # False: the re-solves stopped before settling (the figure is then a bound that pays)
    text: str = ""


class CommitmentUse(PlanModel):
    """One commitment of the catalog and what the plan does with it (SPEC v1.6)."""

    id: str
    vendor: str
    kind: str  # reserved | spend
    signed: bool
    period: str  # what its fee or minimum is per, as the catalog states it
    offerings: list[str]  # the offerings it covers
    # reserved throughput
    units: int | None = None
    max_units: int | None = None
    fee: float | None = None  # per unit, per the plan's period
    price_factor: float | None = None
    capacity_tpm: float | None = None  # units x tokens_per_minute
    used_tpm: float | None = None  # the average tokens a minute it serves (tasks / minutes of the period)
    peak_tpm: float | None = None  # at the workloads' peaks: at most capacity_tpm
    utilization: float | None = None  # used_tpm / capacity_tpm
    break_even_utilization: float | None = None  # below this average use, the units cost more than they save
    # committed spend
    min_spend: float | None = None  # per the plan's period
    discount: float | None = None
    list_spend: float | None = None  # list price of what it covers in the plan
    shortfall: float | None = None  # paid for the minimum beyond the discounted spend
    break_even_spend: float | None = None  # list spend with the vendor below which signing stops paying
    # both
    cost: float  # what the plan pays for it beyond its tokens: fees, or the shortfall
    saving: float | None = None  # the plan's cost without it (re-solved) minus the plan's cost; None: not computed
    tasks: float = 0.0  # tasks whose shares it serves or discounts
    needs: CommitmentBreakEven | None = None  # unsigned: what would make it pay
    text: str = ""


class SwitchMove(PlanModel):
    """A workload that moved off its routes in the --from plan, or a move the plan declined."""

    workload: str
    switch_cost: float
    saving: float | None  # a period's cost on the previous routes minus on the new ones; None: not computed
    before: list[str]  # the previous plan's routes (options as people read them)
    after: list[str]


class SwitchInfo(PlanModel):
    """Switching from a previous plan (solve --from): what moved, what stayed and why (SPEC v1.6)."""

    from_plan: str  # the plan file
    moved: list[SwitchMove] = []
    declined: list[SwitchMove] = []  # moves that would save, but less than their switch cost
    forced: list[str] = []  # workloads whose previous routes are gone or no longer eligible
    new: list[str] = []  # workloads the previous plan did not route
    cost: float = 0.0  # switch costs paid this period (not in total_cost: paid to no vendor)


class Deployability(PlanModel):
    """policy.deployable_on (SPEC v1.8): only options the gateway can address entered the LP; what that
    costs against the cheapest plan on every option (a review figure: the plan re-solved without it)."""

    gateway: Literal["litellm", "openrouter"]
    options_excluded: Whole  # options of the catalog the gateway cannot address
    unrestricted_cost: Cost | None = None  # the cheapest plan meeting every rule on any option; None: none exists
    premium: float | None = None  # total_cost - unrestricted_cost; None when either plan does not exist
    premium_share: float | None = None  # premium / unrestricted_cost
    computed: bool = True  # False: the time limit left the unrestricted plan out
    text: str = ""


class CatalogEntry(PlanModel):
    """An offering of the catalog the plan was solved against: what a comparison reprices with and
    what it tells added and removed offerings and capacity changes by."""

    price_input: Price
    price_output: Price
    price_cached_input: Price | None = None  # None: billed at the input price
    tokens_per_minute: Count | None = None
    requests_per_minute: Count | None = None


ESTIMATE_AFFECTS = {  # a catalog field that is an estimate, and the plan figures it enters
    "thinking": ("cost", "latency"),
    "price": ("cost",),
    "speed": ("latency",),
    "capability": ("capability",),
    "context_window": (),
    "capacity": (),
}


def estimated_fields(info: OfferingInfo | None, mode: str) -> list[str]:
    """The catalog fields of one option that are estimates: the offering's own, and its mode's
    (`modes.<mode>.<field>`, named here without the prefix)."""
    out: list[str] = []
    for path in info.estimated if info else ():
        parts = path.split(".")
        if parts[0] == "modes":
            if len(parts) < 3 or parts[1] != mode:
                continue
            parts = parts[2:]
        field = ".".join(parts)
        if field not in out:
            out.append(field)
    return out


def estimated_figures(info: OfferingInfo | None, mode: str) -> set[str]:
    """Which of an option's plan figures (cost, latency, capability) rest on an estimate in the catalog."""
    return {f for path in estimated_fields(info, mode) for f in ESTIMATE_AFFECTS.get(path.split(".")[0], ())}


class OverlayChange(PlanModel):
    offering: str
    field: str  # a field path, or "removed" / "added"
    before: Any = None
    after: Any = None


class OverlayInfo(PlanModel):
    """A contract overlay the catalog was read with, and every change it made (SPEC v1.4)."""

    name: str
    file: str
    description: str | None = None
    source: str | None = None
    changes: list[OverlayChange] = []


def overlaid_figures(info: OfferingInfo | None) -> set[str]:
    """Which of an option's plan figures (cost, latency, capability) an overlay set."""
    fields = info.overlay if info else {}
    return {f for path in fields for f in ESTIMATE_AFFECTS.get(path.split(".")[0], ())}


class OfferingInfo(PlanModel):
    """What an export needs of every offering the plan names (allocated or a runner-up)."""

    model: str
    vendor: str
    host: str
    tier: str
    price_input: Price
    price_output: Price
    gateway: dict[str, str] = {}
    gateway_unlisted: list[str] | None = optional()  # catalog gateway_unlisted (the host's own model string)
    estimated: list[str] = []  # the catalog's fields of this offering that are estimates
    overlay: dict[str, str] = {}  # field path (or "added") -> the overlay that set it


class MetricInfo(PlanModel):
    """A capability metric as the catalog declares it (what it measures, on which scale)."""

    name: str
    scale: str | None = None
    top: float | None = None
    rounding: float | None = None
    source: str | None = None


class Plan(PlanModel):
    # Constructed once, whole, from its assembled parts and the review (plan.assemble.build_plan); never changed.
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False, frozen=True)

    plan_version: int = PLAN_VERSION
    status: Literal["optimal", "feasible", "infeasible"]
    name: OfferingId  # names output files: the rule of a workloads file's `name`
    period: Period
    currency: str
    inputs: InputFiles
    solver: SolverInfo
    total_cost: float
    workloads: list[WorkloadPlan]
    offerings: list[OfferingUse]
    vendors: list[VendorSpend]
    binding: list[Binding]
    relaxation: list[Relaxation]
    diagnosis: list[str] = []
    baselines: list[Baseline] = []
    resilience: list[VendorOutage] = []
    company_break_even: list[CompanyBreakEven] = []  # SPEC v1.9: per company, by spend
    thresholds: dict[Name, Budget | None] = {}
    assumptions: list[str] = []
    sources: dict[str, str] = {}
    offering_info: dict[OfferingId, OfferingInfo] = {}
    metrics: dict[str, MetricInfo] = {}  # the catalog's metrics declarations
    model_scores: dict[str, dict[str, float]] = {}  # metric -> model -> score: every model the catalog scores
    share_of: str = "tokens"  # what the company share caps measure (policy.share_of)
    risks: list[Risk] = []  # ranked, most serious first (insight.risks)
    catalog_index: dict[OfferingId, CatalogEntry] = {}  # every offering of the catalog, by id
    overlays: list[OverlayInfo] = []  # the contract overlays applied to the catalog, in order
    compounding_omitted: Whole = Field(0, exclude_if=_zero)  # curves left out of the plan file (SPEC v1.10)
    commitments: list[CommitmentUse] | None = optional()  # the catalog's commitments (SPEC v1.6)
    switching: SwitchInfo | None = optional()  # with solve --from
    deployability: Deployability | None = optional()  # with policy.deployable_on (--deployable-on)

    @field_validator("workloads")
    @classmethod
    def _unique_workloads(cls, workloads: list[WorkloadPlan]) -> list[WorkloadPlan]:
        _check_unique([w.id for w in workloads], "workload id")
        return workloads

    @field_validator("offerings")
    @classmethod
    def _unique_offerings(cls, offerings: list[OfferingUse]) -> list[OfferingUse]:
        _check_unique([o.id for o in offerings], "offering id")
        return offerings

    def to_json(self, *, full: bool = False) -> str:
        """The plan file's text: pydantic's serializer (Rust), compact, stable field order (without its type
        checks: every field was validated or computed when the plan was built). Unless `full`, the lists a large
        portfolio's file is mostly made of are trimmed to what a reader uses (plan.trim, SPEC "Plan size")."""
        from planner.plan.trim import trimmed

        plan = self if full else trimmed(self)
        return plan_text(plan.model_dump_json(warnings=False) + "\n", self.name)

    def workload(self, wid: str) -> WorkloadPlan:
        return next(w for w in self.workloads if w.id == wid)


def read_plan(path: str | Path) -> Plan:
    """A plan file read back: JSON without repeated keys, then the Plan's rules (the module's doc).
    Any problem is an input error naming the file and the field path (`workloads[3].allocations[0].share`)."""
    path = Path(path)
    text = read_input(path, "a plan file", plan=True)
    try:
        data = json.loads(text, object_pairs_hook=_no_repeated_keys)
    except json.JSONDecodeError as exc:
        raise InputError.single(str(path), "", f"not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except _RepeatedKey as exc:
        raise InputError.single(str(path), "", f"the key {_shown(exc.key)} appears twice in one object") from None
    except RecursionError:
        raise InputError.single(str(path), "", "not a plan file: nested too deeply") from None
    if not isinstance(data, dict) or "plan_version" not in data:
        raise InputError.single(str(path), "plan_version", "not a planner plan file (no plan_version)")
    if data.get("plan_version") != PLAN_VERSION:
        raise InputError.single(
            str(path), "plan_version", f"unsupported plan version {data.get('plan_version')!r}, expected {PLAN_VERSION}"
        )
    try:
        return Plan.model_validate(data)
    except ValidationError as exc:
        from planner.model.load import _problem  # the messages of the YAML inputs' errors

        raise InputError(str(path), [_problem(Plan, data, err, {}) for err in exc.errors()]) from None


class _RepeatedKey(Exception):
    def __init__(self, key: str):
        self.key = key


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when a key repeats (json keeps the last one silently)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return out


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
