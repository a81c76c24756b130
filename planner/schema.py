"""Pydantic models of the planner's input files (SPEC sections 1, 2 and 6).

Units: money in the catalog's currency, prices per 1,000,000 tokens, time in seconds,
speeds in tokens per second, volumes per period. Every model forbids unknown keys and
validates strictly (no silent string-to-number coercion). Upper bounds are plausibility
limits far beyond any real figure (a billion tokens per call, $1M per 1M tokens...): past
them a number is a typo, and the LP's coefficients would span more orders of magnitude than
a solver's tolerances can carry.
"""

from __future__ import annotations

import datetime as _dt
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

ID_PATTERN = r"^[A-Za-z0-9._\-@/:]+$"

OfferingId = Annotated[str, StringConstraints(pattern=ID_PATTERN, min_length=1, max_length=200)]
Name = Annotated[str, StringConstraints(min_length=1, max_length=500)]
Score = Annotated[float, Field(ge=0, le=100)]
Share = Annotated[float, Field(ge=0, le=1)]

MINUTES_PER_PERIOD = {"day": 1440, "week": 10080, "month": 43200, "quarter": 129600, "year": 525600}
DEFAULT_THRESHOLDS: dict[str, float | None] = {"immediate": 1.0, "attentive": 10.0, "background": None}


class Strict(BaseModel):
    # Field titles are the keys themselves: an editor's hover shows `output_tps`, not "Output Tps".
    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        strict=True,
        allow_inf_nan=False,
        field_title_generator=lambda name, info: name,
    )


# What a capability field accepts as written in a file (the JSON Schemas say so): a bare score or scores by metric.
CapabilityInput = Score | dict[str, Score]


def _capability_dict(value: Any) -> Any:
    """A bare number means {overall: number}."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return {"overall": float(value)}
    return value


# ----------------------------------------------------------------------------- catalog


class Price(Strict):
    """List prices in the catalog's currency, per 1,000,000 tokens."""

    input: float = Field(ge=0, le=1e6, description="per 1M input tokens")
    output: float = Field(ge=0, le=1e6, description="per 1M output tokens; reasoning bills as output")
    cached_input: float | None = Field(None, ge=0, le=1e6, description="per 1M cached input tokens; default: input")

    @property
    def cached_input_or_input(self) -> float:
        return self.input if self.cached_input is None else self.cached_input


class Speed(Strict):
    """Measured serving speed."""

    output_tps: float = Field(gt=0, le=1e7, description="decode speed, tokens/s")
    ttft_s: float = Field(ge=0, le=1e5, description="fixed time to first token per call, s")
    prefill_tps: float | None = Field(
        None, gt=0, le=1e9, description="input processing speed, tokens/s; absent: folded into ttft_s"
    )


class Capacity(Strict):
    """Rate limits shared by all workloads routed to the offering; absent: unlimited."""

    tokens_per_minute: float | None = Field(None, gt=0, le=1e15, description="input+reasoning+output tokens/min")
    requests_per_minute: float | None = Field(None, gt=0, le=1e12, description="model calls/min")


class Thinking(Strict):
    """Measured hidden thinking per call, before the first answer token: its time or its tokens."""

    seconds: float | None = Field(None, ge=0, le=1e5, description="thinking time per call at output_tps, s")
    tokens: float | None = Field(None, ge=0, le=1e9, description="thinking tokens per call, billed as output")

    @model_validator(mode="after")
    def _one_of(self) -> Thinking:
        if (self.seconds is None) == (self.tokens is None):
            raise ValueError("give either seconds or tokens, not both and not neither")
        return self

    def tokens_at(self, output_tps: float) -> float:
        return self.tokens if self.tokens is not None else self.seconds * output_tps


class Mode(Strict):
    """A reasoning-effort variant of the offering: one more option. Fields not given are the offering's."""

    name: OfferingId = Field(description="the mode's name, unique in the offering; `default` is implicit")
    model: Name | None = Field(None, description="the name the source gives this effort level")
    reasoning_factor: float = Field(1.0, ge=0, le=1e3, description="multiplies the workload's reasoning tokens")
    capability: dict[str, Score] | None = Field(
        None, description="scores 0..100 (a bare number: overall); metrics not named are the offering's"
    )
    thinking: Thinking | None = Field(None, description="measured thinking per call; absent: the offering's")
    speed: Speed | None = Field(None, description="the whole speed block of this effort level; absent: the offering's")

    _cap = field_validator("capability", mode="before", json_schema_input_type=CapabilityInput | None)(
        classmethod(lambda cls, v: _capability_dict(v))
    )

    @field_validator("name")
    @classmethod
    def _not_default(cls, v: str) -> str:
        if v == "default":
            raise ValueError("'default' is the implicit mode of every offering; choose another name")
        return v


class Offering(Strict):
    """One model sold by one vendor at one host and tier (SPEC section 1)."""

    id: OfferingId = Field(description="unique in the catalog; letters, digits and . _ - @ / :")
    model: Name = Field(description="the model's name")
    vendor: Name = Field(description="who bills you (vendor rules and caps apply to this company)")
    host: Name | None = Field(None, description="who serves it; default: the vendor")
    creator: Name | None = Field(None, description="who made the model")
    tier: Name = Field("standard", description="free label: fast, standard, batch, economy, ...")
    capability: dict[str, Score] = Field(
        description="scores 0..100 by metric, e.g. {overall: 88, coding: 91.9}; a bare number means {overall: n}"
    )
    price: Price = Field(description="per 1M tokens, in the catalog's currency")
    speed: Speed = Field(description="decode speed, time to first token, prefill speed")
    thinking: Thinking | None = Field(
        None, description="measured hidden thinking per call before the first answer token: {seconds} or {tokens}"
    )
    context_window: int | None = Field(None, gt=0, le=10**10, description="tokens; absent: unlimited")
    capacity: Capacity | None = Field(None, description="rate limits; absent: unlimited")
    regions: list[Name] | None = Field(None, description="where it runs; absent: unknown (fails any region rule)")
    modes: list[Mode] = Field([], description="reasoning-effort variants, each an extra option")
    source: str | None = Field(None, description="where the numbers come from")
    estimated: list[Name] = Field([], description="fields whose figures are estimates, e.g. thinking.tokens")
    gateway: dict[Literal["litellm", "openrouter"], Name] = Field(
        {}, description="model ids for `planner export`: litellm model string, OpenRouter model id"
    )

    _cap = field_validator("capability", mode="before", json_schema_input_type=CapabilityInput)(
        classmethod(lambda cls, v: _capability_dict(v))
    )

    @field_validator("modes")
    @classmethod
    def _unique_modes(cls, modes: list[Mode]) -> list[Mode]:
        seen: set[str] = set()
        for m in modes:
            if m.name in seen:
                raise ValueError(f"duplicate mode name '{m.name}'")
            seen.add(m.name)
        return modes

    @property
    def host_name(self) -> str:
        return self.host or self.vendor

    @property
    def companies(self) -> tuple[str, ...]:
        """Who bills it and who serves it: an outage of either takes it down."""
        return (self.vendor,) if self.host_name == self.vendor else (self.vendor, self.host_name)


class Metric(Strict):
    """What a capability metric measures and on which scale, so that two catalogs can be compared."""

    name: Name = Field(description="what the metric measures, e.g. the index or benchmark's name")
    scale: Name | None = Field(None, description="the scale's label, e.g. the index version; a new label: a rescale")
    top: float | None = Field(None, gt=0, le=100, description="the highest score in the catalog")
    rounding: float | None = Field(None, gt=0, le=10, description="the source publishes scores to this step")
    source: str | None = Field(None, description="where the scores come from")


class Catalog(Strict):
    """A catalog of LLM offerings (SPEC section 1). Units: prices per 1,000,000 tokens, time in seconds,
    speeds in tokens per second."""

    catalog: Name = Field(description="the catalog's name, shown in reports")
    as_of: str | None = Field(None, description="the date the numbers were taken, e.g. 2026-07-15")
    currency: Annotated[str, StringConstraints(pattern=r"^[A-Za-z]{3}$")] = Field(
        "USD", description="three-letter currency code of every price"
    )
    metrics: dict[Name, Metric] = Field({}, description="what each capability metric measures, and on which scale")
    offerings: list[Offering] = Field(min_length=1, description="the offerings; ids unique")

    @field_validator("as_of", mode="before")
    @classmethod
    def _date(cls, v: Any) -> Any:
        if isinstance(v, (_dt.date, _dt.datetime)):
            return v.isoformat()
        return v

    @field_validator("offerings")
    @classmethod
    def _unique_ids(cls, offerings: list[Offering]) -> list[Offering]:
        _check_unique([o.id for o in offerings], "offering id")
        return offerings


def _check_unique(ids: list[str], what: str) -> None:
    first: dict[str, int] = {}
    for i, x in enumerate(ids):
        if x in first:
            raise ValueError(f"duplicate {what} '{x}' at positions {first[x]} and {i}")
        first[x] = i


# ----------------------------------------------------------------------------- workloads


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
    distribution: Name | None = Field(
        None, description="a CSV of sample tasks (weight, calls, tokens per call), relative to this file"
    )


class WorkloadSet(Strict):
    """A workloads file (SPEC section 2): the portfolio to plan, and the catalog to plan it against."""

    name: OfferingId | None = Field(None, description="the report's name; default: the file name before its first dot")
    catalog: Name | Annotated[list[Name], Field(min_length=1, max_length=64)] | None = Field(
        None,
        description="the catalog file, or a list: the public catalog then contract overlays that edit it "
        "in order (paths relative to this file); --catalog replaces the first",
    )
    period: Literal["day", "week", "month", "quarter", "year"] = Field(
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


# ----------------------------------------------------------------------------- scenarios


class Match(Strict):
    """Offerings to select: glob patterns on these fields, all of which must match."""

    id: str | None = Field(None, description="glob on the offering's id, e.g. sol-*")
    model: str | None = Field(None, description="glob on the model")
    vendor: str | None = Field(None, description="glob on the vendor")
    host: str | None = Field(None, description="glob on the host")
    tier: str | None = Field(None, description="glob on the tier")


SetValue = float | int | str | bool | list[Name] | None  # a list: a field such as regions


class CatalogEdit(Strict):
    """One catalog edit: match + set, remove, or add."""

    match: Match | None = Field(None, description="the offerings to change (with set)")
    set: dict[str, SetValue] | None = Field(
        None,
        description='field path -> value: a number sets it, "*k" scales, "+k"/"-k" shifts, null clears; '
        'e.g. {price.output: "*0.8"}',
    )
    remove: Match | None = Field(None, description="remove the offerings this matches")
    add: list[dict[str, Any]] | None = Field(None, description="offerings to add, each a full catalog offering")

    @model_validator(mode="after")
    def _shape(self) -> CatalogEdit:
        kinds = [k for k in ("set", "remove", "add") if getattr(self, k) is not None]
        if len(kinds) != 1:
            raise ValueError("each catalog edit is one of: match+set, remove, add")
        if self.set is not None and self.match is None:
            raise ValueError("'set' needs a 'match'")
        if self.match is not None and self.set is None:
            raise ValueError("'match' needs a 'set'")
        return self


class WorkloadMatch(Strict):
    """Workloads to select."""

    id: str | None = Field(None, description="glob on the workload's id; absent: every workload")


class WorkloadEdit(Strict):
    """Change the matched workloads' fields."""

    match: WorkloadMatch = Field(description="the workloads to change")
    set: dict[str, SetValue] = Field(
        description='field path -> value: a number sets it, "*k" scales, "+k"/"-k" shifts, null clears; '
        'e.g. {tasks: "*1.5", latency.budget_s: 5}'
    )


class PolicyEdit(Strict):
    """Change the policy's fields."""

    set: dict[str, Any] = Field(description='policy field -> value, e.g. {budget: 40000} or {budget: "*0.9"}')


class Scenario(Strict):
    """A what-if scenario (SPEC section 6): edits to the catalog, the workloads and the policy."""

    name: OfferingId = Field(description="the scenario's name, in plan file names: letters, digits and . _ - @ / :")
    description: str | None = Field(None, description="free text, shown in reports")
    catalog: list[CatalogEdit] = Field([], description="catalog edits: match + set, remove, or add")
    workloads: list[WorkloadEdit] = Field([], description="workload edits: match + set")
    policy: PolicyEdit | None = Field(None, description="policy edit: set")


class Overlay(Strict):
    """A company's own terms over a public catalog: negotiated prices, private capacity, the regions
    its hosts serve it from and the companies it does not use, as catalog edits (SPEC v1.4)."""

    name: OfferingId
    description: str | None = None
    source: Name | None = Field(None, description="where its figures come from: a contract, a quote")
    catalog: list[CatalogEdit] = []
    deny: list[Name] = Field([], description="companies not used: what each bills or serves is removed")

    @model_validator(mode="after")
    def _not_empty(self) -> Overlay:
        if not self.catalog and not self.deny:
            raise ValueError("an overlay edits the catalog ('catalog') or denies companies ('deny')")
        return self


# ----------------------------------------------------------------------------- floors


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
