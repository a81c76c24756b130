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
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)


def _capability_dict(value: Any) -> Any:
    """A bare number means {overall: number}."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return {"overall": float(value)}
    return value


# ----------------------------------------------------------------------------- catalog


class Price(Strict):
    input: float = Field(ge=0, le=1e6, description="per 1M input tokens")
    output: float = Field(ge=0, le=1e6, description="per 1M output tokens; reasoning bills as output")
    cached_input: float | None = Field(None, ge=0, le=1e6, description="per 1M cached input tokens; default: input")

    @property
    def cached_input_or_input(self) -> float:
        return self.input if self.cached_input is None else self.cached_input


class Speed(Strict):
    output_tps: float = Field(gt=0, le=1e7, description="decode speed, tokens/s")
    ttft_s: float = Field(ge=0, le=1e5, description="fixed time to first token per call, s")
    prefill_tps: float | None = Field(None, gt=0, le=1e9, description="input processing speed, tokens/s")


class Capacity(Strict):
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
    name: OfferingId
    model: Name | None = None
    reasoning_factor: float = Field(1.0, ge=0, le=1e3, description="multiplies the workload's reasoning tokens")
    capability: dict[str, Score] | None = None
    thinking: Thinking | None = None
    speed: Speed | None = None

    _cap = field_validator("capability", mode="before")(classmethod(lambda cls, v: _capability_dict(v)))

    @field_validator("name")
    @classmethod
    def _not_default(cls, v: str) -> str:
        if v == "default":
            raise ValueError("'default' is the implicit mode of every offering; choose another name")
        return v


class Offering(Strict):
    id: OfferingId
    model: Name
    vendor: Name
    host: Name | None = None
    creator: Name | None = None
    tier: Name = "standard"
    capability: dict[str, Score]
    price: Price
    speed: Speed
    thinking: Thinking | None = None
    context_window: int | None = Field(None, gt=0, le=10**10, description="tokens")
    capacity: Capacity | None = None
    regions: list[Name] | None = None
    modes: list[Mode] = []
    source: str | None = None
    estimated: list[Name] = Field([], description="fields whose figures are estimates, e.g. thinking.tokens")
    gateway: dict[Literal["litellm", "openrouter"], Name] = Field(
        {}, description="model ids for `planner export`: litellm model string, OpenRouter model id"
    )

    _cap = field_validator("capability", mode="before")(classmethod(lambda cls, v: _capability_dict(v)))

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

    name: Name
    scale: Name | None = Field(None, description="the scale's label, e.g. the index version; a new label: a rescale")
    top: float | None = Field(None, gt=0, le=100, description="the highest score in the catalog")
    rounding: float | None = Field(None, gt=0, le=10, description="the source publishes scores to this step")
    source: str | None = None


class Catalog(Strict):
    catalog: Name
    as_of: str | None = None
    currency: Annotated[str, StringConstraints(pattern=r"^[A-Za-z]{3}$")] = "USD"
    metrics: dict[Name, Metric] = {}
    offerings: list[Offering] = Field(min_length=1)

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
    budget: float | None = Field(None, gt=0, le=1e15, description="max total spend per period")
    max_vendor_share: float | None = Field(None, gt=0, le=1, description="max share of traffic, any company")
    vendor_share: dict[Name, Share] = Field({}, description="per-company share caps")
    share_of: Literal["tokens", "tasks", "spend"] = Field("tokens", description="what the share caps measure")
    vendor_spend: dict[Name, Annotated[float, Field(gt=0, le=1e15)]] = Field(
        {}, description="per-company caps on spend per period"
    )
    deny_vendors: list[Name] = []
    regions: list[Name] | None = None
    peak_factor: float = Field(1.0, gt=0, description="peak load / average load")


class Tokens(Strict):
    input: float = Field(ge=0, le=1e9, description="input tokens per call")
    output: float = Field(ge=0, le=1e9, description="output tokens per call")
    reasoning: float = Field(0.0, ge=0, le=1e9, description="hidden reasoning tokens per call, billed as output")
    cached_input_share: Share = 0.0


class Latency(Strict):
    threshold: Name | None = None
    budget_s: float | None = Field(None, gt=0, le=1e7, description="task latency budget, s")
    within_budget_share: float = Field(1.0, gt=0, le=1)
    streaming: bool = False

    @model_validator(mode="after")
    def _one_of(self) -> Latency:
        if self.threshold is not None and self.budget_s is not None:
            raise ValueError("give either threshold or budget_s, not both")
        return self


class RelativeFloor(Strict):
    """A floor stated as a named model's score, so that it survives a rescale of the metric."""

    like: Name = Field(description="an offering id or a model name in the catalog")
    mode: Name | None = None
    times: float = Field(1.0, gt=0, le=10, description="the floor is this multiple of that score")


class CapabilityRule(Strict):
    metric: Name = "overall"
    min: Score | RelativeFloor | None = None
    mean_min: Score | RelativeFloor | None = None


class VendorRule(Strict):
    allow: list[Name] = []
    deny: list[Name] = []


class Workload(Strict):
    id: OfferingId
    description: str | None = None
    tasks: float = Field(gt=0, le=1e13, description="tasks per period")
    peak_tasks_per_minute: float | None = Field(None, ge=0, le=1e10, description="tasks/min at peak")
    turns: int = Field(1, ge=1, le=10000, description="model calls per task")
    tool_latency_s: float = Field(0.0, ge=0, le=1e6, description="tool time between two calls, s")
    tokens: Tokens
    latency: Latency = Latency()
    capability: CapabilityRule = CapabilityRule()
    vendors: VendorRule = VendorRule()
    regions: list[Name] | None = None
    max_vendor_share: float | None = Field(None, gt=0, le=1)
    max_options: int | None = Field(None, ge=1)


class WorkloadSet(Strict):
    name: OfferingId | None = None
    catalog: Name | Annotated[list[Name], Field(min_length=1, max_length=64)] | None = Field(
        None,
        description="the catalog file, or a list: the public catalog then overlays that edit it in order "
        "(paths relative to this file)",
    )
    period: Literal["day", "week", "month", "quarter", "year"] = "month"
    thresholds: dict[Name, Annotated[float, Field(gt=0, le=10000000.0)] | None] = {}
    policy: Policy = Policy()
    workloads: list[Workload] = Field(min_length=1)

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
    id: str | None = None
    model: str | None = None
    vendor: str | None = None
    host: str | None = None
    tier: str | None = None


SetValue = float | int | str | bool | list[Name] | None  # a list: a field such as regions


class CatalogEdit(Strict):
    match: Match | None = None
    set: dict[str, SetValue] | None = None
    remove: Match | None = None
    add: list[dict[str, Any]] | None = None

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
    id: str | None = None


class WorkloadEdit(Strict):
    match: WorkloadMatch
    set: dict[str, SetValue]


class PolicyEdit(Strict):
    set: dict[str, Any]


class Scenario(Strict):
    name: OfferingId
    description: str | None = None
    catalog: list[CatalogEdit] = []
    workloads: list[WorkloadEdit] = []
    policy: PolicyEdit | None = None


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
            (m.name, m.model, {**off.capability, **(m.capability or {})}) for m in off.modes
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
