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
import fnmatch
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

from planner.core.fmt import ordinal

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


class LongContext(Strict):
    """Dearer prices for a long call: a call whose input (cached and not) is above `above` tokens bills
    every one of its tokens at these prices (how Google, OpenAI and Anthropic price long prompts)."""

    above: int = Field(gt=0, le=10**10, description="input tokens per call above which the whole call bills at these")
    input: float = Field(ge=0, le=1e6, description="per 1M input tokens of a long call")
    output: float = Field(ge=0, le=1e6, description="per 1M output tokens of a long call")
    cached_input: float | None = Field(
        None, ge=0, le=1e6, description="per 1M cached input tokens of a long call; default: its input price"
    )


class Price(Strict):
    """List prices in the catalog's currency, per 1,000,000 tokens."""

    input: float = Field(ge=0, le=1e6, description="per 1M input tokens")
    output: float = Field(ge=0, le=1e6, description="per 1M output tokens; reasoning bills as output")
    cached_input: float | None = Field(None, ge=0, le=1e6, description="per 1M cached input tokens; default: input")
    long_context: LongContext | None = Field(
        None, description="prices of a call whose input is above a threshold; absent: one price at any length"
    )

    @property
    def cached_input_or_input(self) -> float:
        return self.input if self.cached_input is None else self.cached_input


PercentileKey = Annotated[int, Field(ge=1, le=99)]
_PERCENTILE_KEYS = {"propertyNames": {"pattern": "^[1-9][0-9]?$"}}  # what a JSON reader sees of the keys


def _int_keys(value: Any) -> Any:
    """Percentile keys as integers: a YAML file writes numbers, a JSON round trip (scenarios, overlays) text."""
    if isinstance(value, dict):
        return {int(k) if isinstance(k, str) and k.isdigit() else k: v for k, v in value.items()}
    return value


class SpeedPercentiles(Strict):
    """Measured percentiles of a speed figure over calls, by percentile (1..99; the median, 50, is the
    figure itself). Output speed: a low percentile is a slow call; first-token time: a high one is."""

    output_tps: dict[PercentileKey, Annotated[float, Field(gt=0, le=1e7)]] | None = Field(
        None,
        description="output speed (tokens/s) at each measured percentile, e.g. {5: 120, 25: 150, 75: 190}",
        json_schema_extra=_PERCENTILE_KEYS,
    )
    ttft_s: dict[PercentileKey, Annotated[float, Field(ge=0, le=1e5)]] | None = Field(
        None,
        description="time to first token (s) at each measured percentile, e.g. {5: 0.3, 95: 1.9}",
        json_schema_extra=_PERCENTILE_KEYS,
    )

    _keys = field_validator("output_tps", "ttft_s", mode="before")(classmethod(lambda cls, v: _int_keys(v)))

    @field_validator("output_tps", "ttft_s")
    @classmethod
    def _not_median(cls, v: dict[int, float] | None) -> dict[int, float] | None:
        if v is not None and 50 in v:
            raise ValueError("the median (50) is the speed figure itself; give the other percentiles")
        return v


class Speed(Strict):
    """Measured serving speed: medians, and optionally other percentiles of the same measurement."""

    output_tps: float = Field(gt=0, le=1e7, description="decode speed, tokens/s")
    ttft_s: float = Field(ge=0, le=1e5, description="fixed time to first token per call, s")
    prefill_tps: float | None = Field(
        None, gt=0, le=1e9, description="input processing speed, tokens/s; absent: folded into ttft_s"
    )
    percentiles: SpeedPercentiles | None = Field(
        None,
        description="output_tps and ttft_s at other measured percentiles, for budgets at a percentile; "
        "absent: only the medians are known",
    )

    @model_validator(mode="after")
    def _in_order(self) -> Speed:
        """Each figure's percentiles, the median at 50, must not fall as the percentile rises."""
        p = self.percentiles
        for name, median in (("output_tps", self.output_tps), ("ttft_s", self.ttft_s)):
            points = getattr(p, name) if p is not None else None
            if not points:
                continue
            ordered = sorted({**points, 50: median}.items())
            for (a, x), (b, y) in zip(ordered, ordered[1:]):
                if y < x:
                    named = {k: "median" if k == 50 else f"{ordinal(k)} percentile" for k in (a, b)}
                    raise ValueError(
                        f"percentiles.{name}: the {named[b]} ({y:g}) is below the {named[a]} ({x:g}); "
                        f"{name} may not fall as the percentile rises"
                    )
        return self


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


PRICE_TIERS = ("batch", "flex", "priority")
BATCH_WINDOW_S = 86400.0  # a batch job completes within 24 hours unless the tier states its window


class PriceTier(Strict):
    """Another way the offering is sold (SPEC v1.6): each is one more option of every mode.

    batch: a discount for work that can wait; a job completes within `window_s`, and only workloads
    whose latency budget is at least that (or whose threshold is a class without a budget, such as
    background) may use it. flex: cheaper and slower or delayed; its `speed` as measured or stated,
    and without one only workloads with no latency budget may use it. priority: dearer, at least as
    fast as the list tier (its `speed` when measured, else the offering's)."""

    name: Literal["batch", "flex", "priority"] = Field(description="batch, flex or priority")
    price: Price = Field(description="this tier's prices, per 1M tokens")
    speed: Speed | None = Field(
        None,
        description="measured or stated speed of this tier; absent: flex unknown (no-budget workloads only), "
        "priority the offering's",
    )
    window_s: float | None = Field(
        None, gt=0, le=1e7, description="batch: a job completes within this many seconds (default 86400, 24 h)"
    )
    source: str | None = Field(None, description="where this tier's figures come from")

    @model_validator(mode="after")
    def _shape(self) -> PriceTier:
        if self.name == "batch" and self.speed is not None:
            raise ValueError("a batch tier has no speed: its jobs complete within window_s")
        if self.name != "batch" and self.window_s is not None:
            raise ValueError(f"window_s is for the batch tier, not {self.name}")
        return self

    @property
    def window(self) -> float:
        return BATCH_WINDOW_S if self.window_s is None else self.window_s


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
    price_tiers: list[PriceTier] = Field(
        [], description="other ways it is sold (batch, flex, priority), each one more option of every mode"
    )

    _cap = field_validator("capability", mode="before", json_schema_input_type=CapabilityInput)(
        classmethod(lambda cls, v: _capability_dict(v))
    )

    @field_validator("price_tiers")
    @classmethod
    def _unique_tiers(cls, tiers: list[PriceTier]) -> list[PriceTier]:
        _check_unique([t.name for t in tiers], "price tier")
        return tiers

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


Period = Literal["day", "week", "month", "quarter", "year"]


# Units are integer columns of the LP: a count beyond this (or a unit below one token a minute) puts the
# reservation row outside what the solver's integrality and feasibility tolerances carry (issue 25).
MAX_UNITS = 100_000


class CommitmentUnit(Strict):
    """One unit of reserved throughput: what it costs and what it carries."""

    fee: float = Field(ge=0, le=1e12, description="the fee per unit per period (the commitment's period)")
    tokens_per_minute: float = Field(
        ge=1, le=1e12, description="input + reasoning + output tokens a minute one unit serves (1 to 1e12)"
    )


class Commitment(Strict):
    """A contract a buyer can sign (SPEC v1.6): reserved throughput bought in units (`unit`,
    `max_units`, `price_factor`), or committed spend for a discount (`min_spend`, `discount`)."""

    id: OfferingId = Field(description="unique among the catalog's commitments")
    vendor: Name = Field(description="the company that sells it; it matches only offerings this company bills")
    offerings: list[Annotated[str, StringConstraints(min_length=1, max_length=200)]] | None = Field(
        None, description="globs on offering ids it covers; absent: every offering the vendor bills"
    )
    period: Period | None = Field(
        None, description="what fee and min_spend are per: day, week, month, quarter, year; absent: the plan's period"
    )
    unit: CommitmentUnit | None = Field(None, description="reserved throughput: fee and tokens_per_minute per unit")
    max_units: int | None = Field(
        None, ge=1, le=MAX_UNITS, description=f"the most units that can be bought (1 to {MAX_UNITS:,})"
    )
    price_factor: float | None = Field(
        None, ge=0, le=1, description="tokens inside the reserved capacity cost this times the list price (default 0)"
    )
    min_spend: float | None = Field(None, ge=0, le=1e15, description="committed spend per period, paid even if unused")
    discount: float | None = Field(
        None, ge=0, lt=1, description="off every token of the covered offerings once signed, e.g. 0.15"
    )
    source: str | None = Field(None, description="where its terms come from: a quote, a price page")

    @model_validator(mode="after")
    def _kind(self) -> Commitment:
        reserved = self.unit is not None or self.max_units is not None or self.price_factor is not None
        spend = self.min_spend is not None or self.discount is not None
        if reserved and spend:
            raise ValueError(
                "a commitment is reserved throughput (unit, max_units) or committed spend "
                "(min_spend, discount), not both"
            )
        if reserved and (self.unit is None or self.max_units is None):
            raise ValueError("reserved throughput needs unit: {fee, tokens_per_minute} and max_units")
        if spend and (self.min_spend is None or self.discount is None):
            raise ValueError("committed spend needs min_spend and discount")
        if not reserved and not spend:
            raise ValueError(
                "give unit and max_units (reserved throughput) or min_spend and discount (committed spend)"
            )
        return self

    @property
    def reserved(self) -> bool:
        return self.unit is not None

    @property
    def factor(self) -> float:
        return 0.0 if self.price_factor is None else self.price_factor

    def covers(self, offering: Offering) -> bool:
        if offering.vendor != self.vendor:
            return False
        return self.offerings is None or any(fnmatch.fnmatchcase(offering.id, g) for g in self.offerings)

    def per_period(self, value: float, period: str) -> float:
        """A fee or spend stated per the commitment's period, per `period` (pro rata by minutes)."""
        own = period if self.period is None else self.period
        return value * MINUTES_PER_PERIOD[period] / MINUTES_PER_PERIOD[own]


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
    commitments: list[Commitment] = Field(
        [], description="contracts the planner may sign: reserved throughput units, committed spend for a discount"
    )

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

    @field_validator("commitments")
    @classmethod
    def _commitments_apart(cls, commitments: list[Commitment], info: ValidationInfo) -> list[Commitment]:
        """An offering is covered by at most one reserved and one spend commitment (their terms would
        otherwise stack)."""
        _check_unique([c.id for c in commitments], "commitment id")
        offerings = info.data.get("offerings") or []
        taken: dict[tuple[str, bool], str] = {}
        for i, c in enumerate(commitments):
            for o in offerings:
                if not c.covers(o):
                    continue
                other = taken.setdefault((o.id, c.reserved), c.id)
                if other != c.id:
                    kind = "reserved throughput" if c.reserved else "committed spend"
                    raise ValueError(
                        f"commitments[{i}] '{c.id}' covers offering '{o.id}', already covered by {kind} '{other}'; "
                        "an offering takes at most one commitment of each kind"
                    )
        return commitments

    def uncovering(self) -> list[int]:
        """The commitments that cover no offering (a typo in a glob or a vendor): an input error in a
        catalog file; after a what-if edit removed their offerings, they simply cannot be signed."""
        return [i for i, c in enumerate(self.commitments) if not any(c.covers(o) for o in self.offerings)]


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
    switch_cost: float | None = Field(
        None,
        ge=0,
        le=1e15,
        description="the switch cost of every workload without its own (with planner solve --from); "
        "--switch-cost overrides it",
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
    commitments: list[Commitment] = Field(
        [],
        description="contracts on offer to this company (reserved throughput, committed spend), added to the catalog's",
    )

    @model_validator(mode="after")
    def _not_empty(self) -> Overlay:
        if not self.catalog and not self.deny and not self.commitments:
            raise ValueError(
                "an overlay edits the catalog ('catalog'), denies companies ('deny') or adds commitments "
                "('commitments')"
            )
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
