"""The workloads file (SPEC section 2): the portfolio's policy, each workload's volume, tokens,
latency budget, capability floor and vendor rules, and a floor stated as a model's score
(floor_value reads it off a catalog)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from planner.model.schema.catalog import Catalog
from planner.model.schema.common import (
    MINUTES_PER_PERIOD,
    Name,
    OfferingId,
    Period,
    Score,
    Share,
    Strict,
    _check_unique,
)

DEFAULT_THRESHOLDS: dict[str, float | None] = {"immediate": 1.0, "attentive": 10.0, "background": None}


class Policy(Strict):
    """Portfolio-wide rules, all optional."""

    budget: float | None = Field(None, gt=0, le=1e15, description="max total spend per period")
    max_vendor_share: float | None = Field(
        None, gt=0, le=1, description="max share of traffic (see share_of) of any one company, 0..1"
    )
    vendor_share: dict[Name, Share] = Field({}, description="per-company share caps, e.g. {openai: 0.5}")
    share_of: Literal["tokens", "tasks", "spend"] = Field(
        "tokens", description="what the share caps measure: tokens, tasks or spend"
    )
    vendor_spend: dict[Name, Annotated[float, Field(gt=0, le=1e15)]] = Field(
        {}, description="per-company caps on spend per period"
    )
    deny_vendors: list[Name] = Field([], description="vendors (who bills) never used")
    regions: list[Name] | None = Field(None, description="default data-residency rule for every workload")
    peak_factor: float = Field(
        1.0, gt=0, description="peak load / average load, for workloads without peak_tasks_per_minute"
    )
    switch_cost: float | None = Field(
        None,
        ge=0,
        le=1e15,
        description="the switch cost of every workload without its own (with planner solve --from); "
        "--switch-cost overrides it",
    )
    deployable_on: Literal["litellm", "openrouter"] | None = Field(
        None,
        description="plan only options this gateway can address (an id, provider and effort in its lists, as "
        "planner export writes them; no batch tier); the plan states what that costs against the unrestricted "
        "optimum. --deployable-on overrides it",
    )


class Tokens(Strict):
    """Tokens per model call."""

    input: float = Field(ge=0, le=1e9, description="input tokens per call")
    output: float = Field(ge=0, le=1e9, description="output tokens per call")
    reasoning: float = Field(0.0, ge=0, le=1e9, description="hidden reasoning tokens per call, billed as output")
    cached_input_share: Share = Field(0.0, description="share of input billed at price.cached_input, 0..1")


class Latency(Strict):
    """The task's latency budget: a named threshold or budget_s (not both); neither: no budget."""

    threshold: Name | None = Field(
        None,
        description="a named latency class: immediate (1 s), attentive (10 s), background (no budget), "
        "or one defined under thresholds",
        examples=list(DEFAULT_THRESHOLDS),
    )
    budget_s: float | None = Field(None, gt=0, le=1e7, description="task latency budget, s (instead of threshold)")
    within_budget_share: float = Field(1.0, gt=0, le=1, description="share of tasks that must meet the budget, (0..1]")
    streaming: bool = Field(False, description="true: the budget ends at the final call's first answer token")
    percentile: float | None = Field(
        None,
        gt=0,
        lt=100,
        description="judge options at this percentile of their measured speeds (90: the 10th percentile of "
        "output speed and the 90th of time to first token); absent: at the medians",
    )

    @model_validator(mode="after")
    def _one_of(self) -> Latency:
        if self.threshold is not None and self.budget_s is not None:
            raise ValueError("give either threshold or budget_s, not both")
        return self


class RelativeFloor(Strict):
    """A floor stated as a named model's score, so that it survives a rescale of the metric."""

    like: Name = Field(description="an offering id or a model name in the catalog")
    mode: Name | None = Field(None, description="that offering's mode; default: default")
    times: float = Field(1.0, gt=0, le=10, description="the floor is this multiple of that score")


class CapabilityRule(Strict):
    """The capability floor: a score 0..100 on one metric, or {like: MODEL} for a model's score."""

    metric: Name = Field("overall", description="the catalog's capability metric the floors are on")
    min: Score | RelativeFloor | None = Field(
        None, description="every option used must score at least this: a number, or {like: MODEL, times: k}"
    )
    mean_min: Score | RelativeFloor | None = Field(
        None, description="the task-weighted mean score must be at least this: a number, or {like: MODEL}"
    )


class VendorRule(Strict):
    """Which vendors (who bills) the workload may use."""

    allow: list[Name] = Field([], description="only these vendors; empty: all")
    deny: list[Name] = Field([], description="never these vendors")


class Workload(Strict):
    """One workload: a kind of task, its volume, its shape and its rules (SPEC section 2)."""

    id: OfferingId = Field(description="unique in the file; letters, digits and . _ - @ / :")
    description: str | None = Field(None, description="free text, shown in reports")
    tasks: float = Field(gt=0, le=1e13, description="tasks per period")
    peak_tasks_per_minute: float | None = Field(None, ge=0, le=1e10, description="tasks/min at peak")
    turns: int = Field(1, ge=1, le=10000, description="model calls per task: the agent loop's steps")
    tool_latency_s: float = Field(0.0, ge=0, le=1e6, description="tool time between two calls, s")
    tokens: Tokens = Field(description="tokens per call: input, output, reasoning, cached_input_share")
    latency: Latency = Field(Latency(), description="the latency budget: threshold or budget_s; absent: none")
    capability: CapabilityRule = Field(CapabilityRule(), description="capability floor: metric, min, mean_min")
    vendors: VendorRule = Field(VendorRule(), description="vendors allowed and denied (who bills)")
    regions: list[Name] | None = Field(None, description="data-residency rule; overrides policy.regions")
    max_vendor_share: float | None = Field(None, gt=0, le=1, description="at most this share of tasks on one company")
    max_options: int | None = Field(None, ge=1, description="use at most this many options (an integer program)")
    switch_cost: float | None = Field(
        None,
        ge=0,
        le=1e15,
        description="what moving this workload to a route it does not use in the --from plan costs, once per "
        "period (evaluation, prompt tuning, rollout); overrides policy.switch_cost and --switch-cost",
    )
    distribution: Name | None = Field(
        None,
        description="a CSV file of sample tasks (weight, calls and tokens per call), relative to this file: the "
        "latency budget is met by the share of these tasks within it, not by the mean",
    )


class WorkloadSet(Strict):
    """A workloads file (SPEC section 2): the portfolio to plan, and the catalog to plan it against."""

    name: OfferingId | None = Field(None, description="the report's name; default: the file name before its first dot")
    catalog: Name | Annotated[list[Name], Field(min_length=1, max_length=64)] | None = Field(
        None,
        description="the catalog file, or a list: the public catalog then contract overlays that edit it "
        "in order (paths relative to this file); --catalog replaces the first",
    )
    period: Period = Field(
        "month", description="what tasks and budgets are per: day, week, month (30 days), quarter (90), year (365)"
    )
    thresholds: dict[Name, Annotated[float, Field(gt=0, le=10000000.0)] | None] = Field(
        {},
        description="named latency classes in seconds (null: no budget), added to or overriding "
        "immediate: 1, attentive: 10, background: null",
    )
    policy: Policy = Field(Policy(), description="portfolio-wide rules: budget, company caps, regions, peak factor")
    workloads: list[Workload] = Field(min_length=1, description="the workloads; ids unique")

    @field_validator("workloads")
    @classmethod
    def _unique_ids(cls, workloads: list[Workload]) -> list[Workload]:
        _check_unique([w.id for w in workloads], "workload id")
        return workloads

    @property
    def all_thresholds(self) -> dict[str, float | None]:
        return {**DEFAULT_THRESHOLDS, **self.thresholds}

    @property
    def minutes(self) -> int:
        return MINUTES_PER_PERIOD[self.period]


def floor_value(rule: float | RelativeFloor | None, metric: str, catalog: Catalog) -> float:
    """A capability floor as a number on the catalog's scale (nan: no floor).

    A RelativeFloor is the named model's score on the metric (the highest, when several offerings
    carry it) times `times`, at most 100. ValueError when the catalog has no such model or score."""
    if rule is None:
        return float("nan")
    if not isinstance(rule, RelativeFloor):
        return float(rule)
    scores = []
    for off in catalog.offerings:
        rows = [(None, off.model, off.capability)] + [
            (m.name, m.model or off.model, {**off.capability, **(m.capability or {})}) for m in off.modes
        ]
        for mode, model, caps in rows:
            named = off.id == rule.like and (mode or "default") == (rule.mode or "default")
            named = named or (model == rule.like and (rule.mode is None or (mode or "default") == rule.mode))
            if named and metric in caps:
                scores.append(caps[metric])
    if not scores:
        mode = f" in mode '{rule.mode}'" if rule.mode else ""
        raise ValueError(f"no offering or model '{rule.like}'{mode} with a '{metric}' score in the catalog")
    return min(100.0, max(scores) * rule.times)
