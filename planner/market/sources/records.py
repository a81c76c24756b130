"""The records the readers give: a price (litellm's or OpenRouter's, with its long-context prices and tiers)
and an Artificial Analysis row (host x model, with its measured figures and scores)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class LongPrice:
    """litellm's prices of a long call, per 1M tokens: a call whose input is above `above` tokens bills
    all its tokens at these (the catalog's `long_context`)."""

    above: int
    input: float
    output: float
    cached_input: float | None

    def record(self) -> dict:
        out: dict = {"above": self.above, "input": round(self.input, 6), "output": round(self.output, 6)}
        if self.cached_input is not None:
            out["cached_input"] = round(self.cached_input, 6)
        return out


@dataclass
class TierPrice:
    """Another way a litellm entry is sold (batch, flex or priority), per 1M tokens, with its own
    long-context prices when litellm gives them."""

    name: str
    input: float
    output: float
    cached_input: float | None
    long_context: LongPrice | None


@dataclass
class Price:
    key: str
    provider: str
    model: str
    input: float
    output: float
    cached_input: float | None
    context: int | None
    rpm: float | None = None
    tpm: float | None = None
    cache_write: float | None = None
    long_context: LongPrice | None = None
    tiers: list[TierPrice] = field(default_factory=list)  # in TIERS' order, those litellm prices
    deprecated: str = ""  # litellm's `deprecation_date` (YYYY-MM-DD): not sold from that day

    @property
    def free(self) -> bool:
        return self.input == 0 and self.output == 0

    def capacity(self) -> dict | None:
        cap = {}
        if self.tpm is not None:
            cap["tokens_per_minute"] = self.tpm
        if self.rpm is not None:
            cap["requests_per_minute"] = self.rpm
        return cap or None


@dataclass
class AARow:
    host: str
    model: str
    input: float | None
    output: float | None
    cache_discount: float | None
    tps: float | None
    ttft: float | None
    context: int | None
    caps: dict[str, float]
    deleted: bool
    line: int
    creator: str | None = None
    reasoning: bool = False
    thinking: float | None = None  # measured thinking time per call, s; None: not measured
    cache_write: float | None = None
    estimated: list[str] = field(default_factory=list)  # this row's figures that are estimates
    per_model: bool = False  # from the Artificial Analysis API: one figure per model, for no named host
    tps_pct: dict[int, float] | None = None  # output speed at the other measured percentiles
    ttft_pct: dict[int, float] | None = None  # time to first token likewise
    input_tokens: int | None = None  # the prompt length tps and ttft were measured at; None: not known
    tps_by_input: dict[int, float] | None = None  # the median output speed at the other measured prompt lengths
    ttft_by_input: dict[int, float] | None = None  # the median time to first token likewise
    left_out: str | None = None  # why the row is no offering, found on reading it (a context that is no number)
    host_id: str = ""  # the source's id of the host (one id for a company's product names: Google, Google AI Studio)
    host_model: str = ""  # the model string the host's API takes (`host_api_id`): the endpoint's own name
    released: str = ""  # the model's release date, YYYY-MM-DD, as the source gives it
