"""The catalog file (SPEC section 1): offerings with their prices, speeds, modes, price tiers and
capacity, the capability metrics, and the commitments a buyer can sign."""

from __future__ import annotations

import datetime as _dt
import fnmatch
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, ValidationInfo, field_validator, model_validator

from planner.core.fmt import ordinal
from planner.model.schema.common import (
    MINUTES_PER_PERIOD,
    CapabilityInput,
    Name,
    OfferingId,
    Period,
    Score,
    Strict,
    _capability_dict,
    _check_unique,
)


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
    served_by: list[Name] = Field(
        [],
        description="the companies that serve it behind an aggregator host (OpenRouter's upstream hosts); each "
        "counts like the host in company rules and vendors[]; an outage takes it down only when it is the only one",
    )
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
    gateway_unlisted: list[Literal["litellm", "openrouter"]] = Field(
        [],
        description="gateways whose `gateway` id is the host's own model string, which that gateway's lists "
        "do not have (litellm's price table): exports send it by its provider, with no price known to the gateway",
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
        """Who bills it, who serves it and who serves it behind that host: an outage of any takes it down."""
        return tuple(dict.fromkeys((self.vendor, self.host_name, *self.served_by)))

    def down_without(self, company: str) -> bool:
        """Whether an outage of the company takes it down: it bills or hosts it, or it is the only company
        serving it behind an aggregator (which routes around one of several)."""
        return company in (self.vendor, self.host_name) or (bool(self.served_by) and set(self.served_by) == {company})


class Metric(Strict):
    """What a capability metric measures and on which scale, so that two catalogs can be compared."""

    name: Name = Field(description="what the metric measures, e.g. the index or benchmark's name")
    scale: Name | None = Field(None, description="the scale's label, e.g. the index version; a new label: a rescale")
    top: float | None = Field(None, gt=0, le=100, description="the highest score in the catalog")
    rounding: float | None = Field(None, gt=0, le=10, description="the source publishes scores to this step")
    source: str | None = Field(None, description="where the scores come from")


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
