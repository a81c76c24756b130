"""Build catalogs from public data: litellm's price table, OpenRouter's models listing and the
Artificial Analysis providers table.

A catalog offering needs prices, a measured speed (output tokens/s and time to first token) and
a capability score. Only Artificial Analysis measures speed and scores models, so its rows are
the offerings; the price sources refine or add to them:

* **aa** rows (host x model) give the measured figures: median output speed, median time to
  first token (the input part: thinking is apart), thinking time, context window and scores
  (capability `overall` is the intelligence index, `gpqa`, `mmlu_pro` and `livecodebench` the
  benchmark fractions x 100). A row that thinks (`ttft_reasoning_time` > 0) carries `thinking:
  {seconds}`, rounded up to the millisecond; its tokens (seconds x output speed, billed as
  output) are an estimate. A reasoning row measured with no thinking time, on a host that does
  not stream thinking, has it inside its first-token time: the same host's non-reasoning rows'
  median first-token time is the first token, the rest is thinking (both estimates; left out when
  the host has no non-reasoning row). Rows of one endpoint and one model that
  differ only by an effort qualifier ("(Reasoning, High Effort)", "(xhigh)"...) at the same
  prices are one offering: the row that thinks least is the default, each other row a mode with
  its own model name, scores, speed and thinking. Rows marked deleted, missing a price, speed,
  first-token time or intelligence index, priced 0/0 (Artificial Analysis lists 0 for an
  unpublished price), priced under a tenth of the median of the model's other rows (a
  placeholder; with at least 3 priced rows), reasoning rows that think under a quarter of the
  tokens the same model thinks on its other hosts (median over at least 3: the endpoint likely does
  not run that effort), reasoning models with no measured thinking time, and rows whose input
  price equals their cache-write price (a scrape that took one for the other) are left out and
  listed.
* **litellm** prices replace the table's price for the same host and model (list prices, with
  cached-input prices; published `rpm`/`tpm` become the offering's capacity), matched by the
  rule below. Entries with no matching row are left out (no measured speed). An entry's long-context
  prices (`..._above_272k_tokens`) become `price.long_context`, its batch, flex and priority prices
  (`..._batches`, `_flex`, `_priority`) `price_tiers`, with no speed: none is measured.
* **openrouter** models become offerings served through OpenRouter (vendor and host
  `openrouter`) at OpenRouter's price, with figures that hold at that price whichever provider
  OpenRouter picks: per effort variant, the slowest figures (lowest output speed, longest first
  token, longest thinking) and lowest scores among the Artificial Analysis hosts priced at or
  below OpenRouter's price (within 1%), else among all hosts (the `source` says which). Its
  effort variants are modes as for a host; `model` is the default variant's Artificial Analysis
  name, the OpenRouter id is in the offering id and `gateway`. Models with no such row are left
  out.

A price of 0 for input and output in litellm or OpenRouter is a free tier: left out unless
`free_tiers`, then imported with tier `free` when it publishes a rate limit (its capacity).

Nothing is dropped silently: every entry of a source that is no offering (litellm's entries of other
modes and its sample entry included) is listed in the left-out list with its reason. A figure a source
gives that is not a number in its range leaves its entry out, listed, and is never read as absent: a
context length that is not a number of tokens from 1 to 10^10 is never "no limit", a rate limit that is
not above 0 never "unlimited", a cached-input price that is not a number from 0 never "none", an
OpenRouter discount outside 0..1 never clamped. (Absent figures stay absent: no limit, no cached price.)

Companies. A host name is normalised to the company that bills and serves it (lower case,
qualifiers removed, runs of other characters made one "-", product names mapped to their company:
Amazon Bedrock is `amazon`, Microsoft Azure `microsoft`, Google AI Studio and Vertex `google`,
Kimi `moonshot`); its endpoint variant (FP8, Turbo, Fast, Base, Latency Optimized, AI Studio,
Vertex...) is kept in the offering id (`gpt-oss-120b@deepinfra-fp8`) and the tier
(`standard-fp8`). Tier: "fast" when the measured output speed is at least 500 tokens/s, else
"standard".

Matching rule. Model names match when equal after normalising: lower case; everything up to
the last "/" dropped; region and vendor prefixes ("us.", "global.", "anthropic.", "meta-"...)
dropped; parenthesised qualifiers such as "(high)" dropped; date suffixes (-2025-08-07,
-20250807), OpenRouter's ":free" and the words instruct, chat, latest and maas dropped; "2p6"
read as "2.6"; every run of spaces, dots, underscores and colons made one "-". Hosts match
through their company and a fixed table of litellm providers (Fireworks = fireworks_ai,
Together AI = together_ai, Amazon Bedrock = bedrock, Kimi = moonshot, Google Vertex =
vertex_ai...); an endpoint variant other than Google's AI Studio and Vertex (FP4, Turbo,
Fast, Base, Latency Optimized...) is a different endpoint and keeps its own measured price.

Older scrapes lack some of today's columns: the importer reads what is there, derives what it
can (output speed and first-token time from the long or medium prompt's medians, thinking time
from the total minus the input time or from e2e_reasoning_time, the intelligence index from the
estimated one) and lists each missing column with what it did instead.
"""

from __future__ import annotations

import csv
import io
import math
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from planner.core.errors import InputError
from planner.core.fmt import csv_row
from planner.market.merge import Entry, free_reason, hidden_thinking, merge_prices, shallow_thinkers
from planner.market.names import dashes, endpoint, normalize_model, slug, split_effort
from planner.market.offerings import (
    aa_offerings,
    ceil_ms,
    least_thinking,
    plausible,
    speed_record,
    tier_name,
    unique_id,
)
from planner.market.provenance import aa_as_of, fetched_on, parse_sources
from planner.market.sources.aa import PERCENTILES, read_aa
from planner.market.sources.aa_api import API_METRICS
from planner.market.sources.figures import (
    dollars,
    given,
    num,
    read_cached,
    read_context,
    read_json,
    shown,
    why_no_price,
)
from planner.market.sources.litellm import read_litellm
from planner.market.sources.openrouter import (
    ModelEndpoints,
    openrouter_shape,
    read_openrouter,
    read_openrouter_endpoints,
    read_openrouter_providers,
)
from planner.market.sources.records import AARow, Price

PRICE_TOLERANCE = 0.01  # an aggregator's price covers a host's up to 1% below it

# Catalog metrics: what each score measures, with the column it is read from.
METRICS = {
    "overall": ("Artificial Analysis Intelligence Index", "model_intelligence_index"),
    "gpqa": ("GPQA Diamond", "model_gpqa"),
    "mmlu_pro": ("MMLU-Pro", "model_mmlu_pro"),
    "livecodebench": ("LiveCodeBench", "model_livecodebench"),
}
METRIC_ROUNDING = 0.0001  # the importer keeps the table's scores to 4 decimals


@dataclass
class ImportResult:
    offerings: list[dict]
    left_out: list[tuple[str, str, str]] = field(default_factory=list)  # (source, name, reason)
    as_of: str | None = None

    @property
    def missing_columns(self) -> list[tuple[str, str, str]]:
        return [r for r in self.left_out if r[0] == "aa" and r[1].startswith("column ")]


def _price_text(price: dict) -> str:
    return f"{dollars(price['input'])}/{dollars(price['output'])}"


def _aggregator(p: Price, entries: list[Entry], ids: dict[str, int]) -> dict:
    """An OpenRouter offering: per effort variant, the figures of the slowest host OpenRouter may
    route to at its price (the hosts priced at or below it, within 1%; else all hosts)."""
    by_effort: dict[str, list[Entry]] = {}
    for e in sorted(entries, key=lambda e: (e.row.line, str(e.path))):
        by_effort.setdefault(e.effort, []).append(e)
    variants = []
    for effort, rows in by_effort.items():
        at = [
            e
            for e in rows
            if e.price["input"] <= p.input * (1 + PRICE_TOLERANCE) + 1e-9
            and e.price["output"] <= p.output * (1 + PRICE_TOLERANCE) + 1e-9
        ]
        variants.append((effort, at or rows, bool(at)))
    variants.sort(key=lambda v: least_thinking(v[1]))
    figures, notes, estimated = [], [], []
    for k, (effort, pool, priced) in enumerate(variants):
        slow = min(pool, key=lambda e: e.row.tps)
        late = max(pool, key=lambda e: e.row.ttft)
        deep = max(pool, key=lambda e: e.thinks)
        caps: dict[str, float] = {}
        for e in pool:
            for metric, value in e.row.caps.items():
                caps[metric] = min(caps.get(metric, value), value)
        f: dict = {"model": " / ".join(dict.fromkeys(e.row.model for e in pool)), "capability": caps}
        f["speed"] = speed_record(slow.row.tps, late.row.ttft, *_slowest_percentiles(pool))
        prefix = "" if k == 0 else f"modes.{effort}."
        if deep.thinks:
            f["thinking"] = {"seconds": ceil_ms(deep.thinks)}
            estimated.append(prefix + "thinking.tokens")
        if any("capability.overall" in e.estimated for e in pool):
            estimated.append(prefix + "capability.overall")
        hosts = (
            f"{len(pool)} host(s) at or below this price"
            if priced
            else f"no host at or below this price, so all {len(pool)} host(s)"
        )
        figure_hosts = [("output speed", slow), ("first token", late)] + ([("thinking", deep)] if deep.thinks else [])
        notes.append(
            f"{'default' if k == 0 else effort} ('{f['model']}'): {hosts}; "
            + ", ".join(f"{what} {e.row.host} at {_price_text(e.price)}" for what, e in figure_hosts)
            + ", lowest score of each metric"
        )
        figures.append(f)
    d = figures[0]
    out: dict = {
        "id": unique_id(ids, f"{slug(p.model)}@openrouter"),
        "model": d["model"],
        "vendor": "openrouter",
        "host": "openrouter",
    }
    creator = next((e.row.creator for e in variants[0][1] if e.row.creator), None)
    if creator:
        out["creator"] = creator
    out["tier"] = tier_name(d["speed"]["output_tps"], "")
    out["capability"] = d["capability"]
    out["price"] = {"input": round(p.input, 6), "output": round(p.output, 6)}
    if p.cached_input is not None:
        out["price"]["cached_input"] = round(p.cached_input, 6)
    out["speed"] = d["speed"]
    if "thinking" in d:
        out["thinking"] = d["thinking"]
    if p.context:
        out["context_window"] = p.context
    modes = []
    for (effort, _, _), f in zip(variants[1:], figures[1:]):
        mode = {"name": effort, "model": f["model"], "reasoning_factor": 1.0, "capability": f["capability"]}
        if "thinking" in f:
            mode["thinking"] = f["thinking"]
        mode["speed"] = f["speed"]
        modes.append(mode)
    if modes:
        out["modes"] = modes
    out["source"] = (
        f"price: OpenRouter models listing '{p.key}' ({dollars(round(p.input, 6))}/{dollars(round(p.output, 6))} "
        "per 1M input/output); speed, first token, thinking and scores: Artificial Analysis, per figure the "
        "slowest host OpenRouter may route to at this price (hosts priced at or below it, within 1%): "
        + "; ".join(notes)
    )
    if estimated:
        out["estimated"] = estimated
    out["gateway"] = {"openrouter": p.key}
    return out


def _slowest_percentiles(pool: list[Entry]) -> tuple[dict | None, dict | None]:
    """An aggregator's percentiles, as its medians: per percentile the lowest output speed and the
    longest first-token time among the hosts it may route to; none when a host has none measured."""
    out: list[dict | None] = []
    for name, worst in (("tps_pct", min), ("ttft_pct", max)):
        tables = [getattr(e.row, name) for e in pool]
        out.append(None if any(t is None for t in tables) else {k: worst(t[k] for t in tables) for k in PERCENTILES})
    return out[0], out[1]


def _match(model_id: str, by_model: dict[str, list], same=lambda base: base) -> tuple[list, list[str]]:
    """The Artificial Analysis rows (Entry or _Scored, by normalised model name) an OpenRouter model id
    stands for, and the distinct models among them (`same`: the form in which two names are one model)."""
    key = normalize_model(model_id)
    found = by_model.get(key, [])
    # "GPT-5 (ChatGPT)" is another model than "openai/gpt-5": rows whose other qualifiers also match first
    found = [e for e in found if normalize_model(re.sub(r"[()]", " ", e.base)) == key] or found
    # "Qwen3 VL 32B Instruct" and "Qwen3 VL 32B" (its thinking release) differ only by a word the
    # matching rule drops: the OpenRouter id says which
    instruct = "instruct" in model_id.lower()
    found = [e for e in found if ("instruct" in e.base.lower()) == instruct] or found
    return found, sorted({same(e.base) for e in found})


@dataclass
class _Scored:
    """An Artificial Analysis row (the table's or the API's) as a score for a model: scores are per model,
    so any host's row rates the model wherever it is served."""

    row: AARow
    path: Path
    base: str
    effort: str


def _scored_rows(
    aa_rows: list[tuple[AARow, Path]], aa_models: list[tuple[AARow, Path]], shallow: dict
) -> dict[str, list[_Scored]]:
    """Every row with an intelligence index, by normalised model name: the table's (not deleted, not an
    endpoint that does not run the effort) and the API's."""
    out: dict[str, list[_Scored]] = {}
    for row, path in [*aa_rows, *aa_models]:
        if row.deleted or "overall" not in row.caps or (str(path), row.line) in shallow:
            continue
        base, effort = split_effort(row.model)
        if effort is None:
            effort = "reasoning" if row.reasoning else "non-reasoning"
        out.setdefault(normalize_model(row.model), []).append(_Scored(row, path, base, slug(effort)))
    return out


def _one_name(base: str) -> str:
    return re.sub(r"\s+", " ", base).strip().lower()


@dataclass
class _Variant:
    """One effort variant of a model as an OpenRouter endpoint serves it: scores and thinking tokens."""

    effort: str
    model: str
    caps: dict[str, float]
    tokens: float  # thinking tokens per call: the median over the rows that measure it; 0: none
    reasoning: bool
    rows: list[_Scored]
    hosts: int  # rows the thinking tokens come from


def _variants(found: list[_Scored]) -> tuple[list[_Variant], list[str]]:
    """The model's effort variants, the default (thinks least) first; and the reasoning variants left out
    for want of a measured thinking time. Thinking is a count of tokens (a model thinks about as many
    tokens wherever it runs; the time depends on the endpoint's speed): per variant, the median over its
    rows of thinking time x output speed. Scores: the lowest of the rows, per metric."""
    by_effort: dict[str, list[_Scored]] = {}
    for s in sorted(found, key=lambda s: (s.row.per_model, str(s.path), s.row.line)):
        by_effort.setdefault(s.effort, []).append(s)
    out, unmeasured = [], []
    for effort, rows in by_effort.items():
        reasoning = any(s.row.reasoning for s in rows)
        tokens = [s.row.thinking * s.row.tps for s in rows if s.row.thinking is not None and (s.row.tps or 0) > 0]
        if reasoning and not tokens:
            unmeasured.append(effort)
            continue
        caps: dict[str, float] = {}
        for s in rows:
            for metric, value in s.row.caps.items():
                caps[metric] = min(caps.get(metric, value), value)
        median = statistics.median(tokens) if tokens else 0.0
        out.append(_Variant(effort, rows[0].row.model, caps, median, reasoning, rows, len(tokens)))
    out.sort(key=lambda v: (v.reasoning, v.tokens))
    return out, unmeasured


def _where(rows: list[_Scored]) -> str:
    """The rows a figure comes from: the table's file lines, the API response's data[i]."""
    by_file: dict[tuple[str, bool], list[int]] = {}
    for s in rows:
        by_file.setdefault((Path(s.path).name, s.row.per_model), []).append(s.row.line)
    parts = []
    for (name, api), at in by_file.items():
        if api:
            parts.append(f"{name} " + ", ".join(f"data[{i}]" for i in at))
        else:
            parts.append(f"{name} line{'s' if len(at) > 1 else ''} {', '.join(map(str, sorted(at)))}")
    return "; ".join(parts)


def _pct(stats, scale: float = 1.0) -> tuple[float | None, str]:
    """An OpenRouter percentile object: its median (x scale) and all four percentiles as text."""
    if not isinstance(stats, dict):
        return None, ""
    values = {k: num(stats.get(k)) for k in ("p50", "p75", "p90", "p99")}
    shown = ", ".join(f"{k} {round(v * scale, 4):g}" for k, v in values.items() if v is not None)
    p50 = values["p50"]
    return (None if p50 is None else p50 * scale), shown


NO_PERF = (
    "no median throughput and first-token latency over the last 30 minutes (OpenRouter gives them only to "
    "requests made with an API key: fetch with OPENROUTER_API_KEY set)"
)


def _endpoint_offerings(
    me: ModelEndpoints, scored: dict[str, list[_Scored]], providers: dict[str, dict], ids: dict[str, int], left: list
) -> list[dict]:
    """One offering per OpenRouter endpoint of a model: OpenRouter bills (vendor `openrouter`), the
    endpoint's provider serves (host: its company), at the endpoint's price (less OpenRouter's discount)
    and its measured median speed over the last 30 minutes (throughput p50 as output speed, first-token
    latency p50, in milliseconds, as time to first token). OpenRouter measures no model's capability: the
    scores and thinking tokens are Artificial Analysis's for the model (scores are per model), by effort
    variant as modes. The other percentiles, uptime and status have no field in the catalog: the `source`
    keeps them."""
    found, models = _match(me.model_id, scored, _one_name)
    if not found:
        return _unscored_offerings(me, providers, ids, left)
    if len(models) > 1:
        names = sorted({s.base for s in found})
        left.append(
            (
                "openrouter",
                me.model_id,
                f"matches {len(names)} Artificial Analysis models ({'; '.join(names)}): which one it serves is unknown",
            )
        )
        return []
    variants, unmeasured = _variants(found)
    for effort in unmeasured:
        left.append(("openrouter", f"{me.model_id} ({effort})", "reasoning model with no measured thinking time"))
    if not variants:
        return []
    default = variants[0]
    creator = next((s.row.creator for s in default.rows if s.row.creator), None)
    scores = "; ".join(
        f"{'default' if k == 0 else v.effort} '{v.model}' ({_where(v.rows)})"
        + (f", {math.ceil(v.tokens)} thinking tokens (median of {v.hosts} row(s))" if v.tokens else "")
        for k, v in enumerate(variants)
    )
    out = []
    for k, ep in enumerate(me.endpoints):
        offering = _endpoint_offering(me, k, ep, variants, creator, providers, ids, left)
        if offering is not None:
            offering["source"] += (
                f"; scores{' and thinking' if any(v.tokens for v in variants) else ''}: Artificial Analysis, "
                + scores
                + (" (thinking tokens: time x output speed, an estimate)" if any(v.tokens for v in variants) else "")
            )
            out.append(offering)
    return out


UNSCORED = (
    "no capability score: no Artificial Analysis row for this model, so it can serve only workloads "
    "without a capability floor"
)


def _reasons(me: ModelEndpoints) -> bool:
    """Whether any endpoint of the model takes reasoning parameters (OpenRouter's supported_parameters)."""
    return any(
        isinstance(ep, dict)
        and any(p in ("reasoning", "include_reasoning") for p in (ep.get("supported_parameters") or []))
        for ep in me.endpoints
    )


def _unscored_offerings(me: ModelEndpoints, providers: dict[str, dict], ids: dict[str, int], left: list) -> list[dict]:
    """A model Artificial Analysis does not rate: its endpoints enter with their measured price and speed
    and no scores (an unknown score is left out, not guessed; pairs then rule it out for any floor). A
    model that can reason is left out: how long it thinks is unknown."""
    if _reasons(me):
        left.append(
            ("openrouter", me.model_id, "no capability score and no measured thinking time for a model that reasons")
        )
        return []
    variant = _Variant(
        effort="default", model=me.name or me.model_id, caps={}, tokens=0.0, reasoning=False, rows=[], hosts=0
    )
    out = []
    for k, ep in enumerate(me.endpoints):
        offering = _endpoint_offering(me, k, ep, [variant], None, providers, ids, left)
        if offering is not None:
            offering["source"] += "; " + UNSCORED
            out.append(offering)
    return out


def _endpoint_offering(
    me: ModelEndpoints,
    k: int,
    ep,
    variants: list[_Variant],
    creator: str | None,
    providers: dict[str, dict],
    ids: dict[str, int],
    left: list,
) -> dict | None:
    if not isinstance(ep, dict):
        left.append(("openrouter", f"{me.model_id} endpoints[{k}]", "not an endpoint entry"))
        return None
    provider = str(ep.get("provider_name") or "").strip()
    tag = str(ep.get("tag") or "").strip() or dashes(provider)
    label = f"{me.model_id} @ {tag or f'endpoints[{k}]'}"
    if not provider:
        left.append(("openrouter", label, "no provider_name"))
        return None
    pricing = ep.get("pricing") if isinstance(ep.get("pricing"), dict) else {}
    pin, pout = num(pricing.get("prompt")), num(pricing.get("completion"))
    if pin is None or pout is None or pin < 0 or pout < 0:
        left.append(("openrouter", label, why_no_price(pricing.get("prompt"), pricing.get("completion"))))
        return None
    discount = num(pricing.get("discount")) if given(pricing.get("discount")) else 0.0
    if discount is None or not 0 <= discount <= 1:
        left.append(("openrouter", label, f"discount {shown(pricing.get('discount'))} is not a fraction from 0 to 1"))
        return None
    cached, no_cached = read_cached(pricing.get("input_cache_read"))
    context, no_context = read_context(ep.get("context_length"))
    if no_cached or no_context:
        left.append(("openrouter", label, no_cached or no_context))
        return None
    p_in, p_out = pin * 1e6 * (1 - discount), pout * 1e6 * (1 - discount)
    if p_in == 0 and p_out == 0:
        left.append(("openrouter", label, free_reason(None, False)))
        return None
    tps, tps_text = _pct(ep.get("throughput_last_30m"))
    ttft, ttft_text = _pct(ep.get("latency_last_30m"), 0.001)
    if tps is None or ttft is None:
        left.append(("openrouter", label, NO_PERF))
        return None
    if tps <= 0 or ttft < 0:
        left.append(("openrouter", label, f"median throughput {tps:g} tok/s or first token {ttft:g} s out of range"))
        return None
    company, name_variant = endpoint(provider)
    tag_variant = dashes(tag.split("/", 1)[1]) if "/" in tag else ""
    variant = "-".join(dict.fromkeys(x for x in (name_variant, tag_variant) if x))
    default = variants[0]
    out: dict = {
        "id": unique_id(ids, f"{slug(me.model_id)}@openrouter:{slug(tag)}"),
        "model": default.model,
        "vendor": "openrouter",
        "host": company,
    }
    if creator:
        out["creator"] = creator
    out["tier"] = tier_name(tps, variant)
    out["capability"] = dict(default.caps)
    out["price"] = {"input": round(p_in, 6), "output": round(p_out, 6)}
    if cached is not None:
        out["price"]["cached_input"] = round(cached * (1 - discount), 6)
    out["speed"] = speed_record(tps, ttft)
    estimated = []
    if default.tokens:
        out["thinking"] = {"tokens": math.ceil(default.tokens)}
        estimated.append("thinking.tokens")
    if context:
        out["context_window"] = context
    modes = []
    for v in variants[1:]:
        mode: dict = {"name": v.effort, "model": v.model, "reasoning_factor": 1.0, "capability": dict(v.caps)}
        if v.tokens:
            mode["thinking"] = {"tokens": math.ceil(v.tokens)}
            estimated.append(f"modes.{v.effort}.thinking.tokens")
        modes.append(mode)
    if modes:
        out["modes"] = modes
    quant = ep.get("quantization")
    notes = [
        f"OpenRouter endpoints of '{me.model_id}' ({Path(me.path).name}), endpoint '{ep.get('name') or provider}' "
        f"(tag {tag}{', ' + str(quant) if quant and quant != 'unknown' else ''})",
        f"price {dollars(round(p_in, 6))}/{dollars(round(p_out, 6))} per 1M input/output"
        + (f" (its list price less OpenRouter's discount of {discount:.0%})" if discount else ""),
        f"speed: the medians over the last 30 minutes (throughput tok/s {tps_text}; first token s {ttft_text})",
    ]
    spans = (("uptime_last_5m", "5 minutes"), ("uptime_last_30m", "30 minutes"), ("uptime_last_1d", "a day"))
    uptime = [f"{num(ep.get(key)):g}% over {span}" for key, span in spans if num(ep.get(key)) is not None]
    if uptime:
        notes.append("uptime " + ", ".join(uptime))
    if ep.get("status") not in (None, 0):
        notes.append(f"status {str(ep.get('status'))[:20]}")
    info = providers.get(tag.split("/", 1)[0])
    if info:
        centres = info.get("datacenters") if isinstance(info.get("datacenters"), list) else []
        where = f", datacenters {' '.join(str(c) for c in centres[:20])}" if centres else ""
        notes.append(f"provider {info.get('slug')}{where}")
    out["source"] = "; ".join(notes)
    if estimated:
        out["estimated"] = estimated
    out["gateway"] = {"openrouter": me.model_id}
    return out


def _metrics(offerings: list[dict], as_of: str | None, api: bool = False) -> dict:
    """What each capability metric in the catalog measures, its scale, its top score and rounding."""
    top: dict[str, float] = {}
    for o in offerings:
        for caps in [o["capability"], *(m.get("capability") or {} for m in o.get("modes", []))]:
            for metric, value in caps.items():
                top[metric] = max(top.get(metric, 0.0), value)
    out = {}
    for metric, (name, column) in METRICS.items():
        if metric not in top:
            continue
        if metric == "overall":  # a label that names a version would change only with the index itself
            scale = "0-100 points; the scrape does not name the index version"
        else:
            scale = f"{name}, percent of questions answered correctly (0-100)"
        entry: dict = {"name": name, "scale": scale}
        if top[metric] > 0:
            entry["top"] = top[metric]
        entry["rounding"] = METRIC_ROUNDING
        if api:
            where = f"Artificial Analysis API (GET /api/v2/data/llms/models), evaluations.{API_METRICS[metric]}"
        else:
            where = f"Artificial Analysis providers leaderboard, column {column}"
        entry["source"] = where + ("" if metric == "overall" else " (fraction x 100)")
        out[metric] = entry
    return out


def build_catalog(
    files: list[tuple[str, Path]], name: str, as_of: str | None = None, free_tiers: bool = False
) -> tuple[dict, ImportResult]:
    """Merge the given (kind, file) sources into a catalog dict (SPEC section 1). `free_tiers`: import
    prices of 0/0 that publish a rate limit, with tier `free` and that limit as capacity."""
    aa_rows: list[tuple[AARow, Path]] = []
    aa_models: list[tuple[AARow, Path]] = []  # the API's rows: one per model, for no named host
    litellm: list[Price] = []
    openrouter: list[Price] = []
    endpoints: list[ModelEndpoints] = []
    providers: dict[str, dict] = {}
    skipped: list[tuple[str, str, str]] = []  # entries no reader could use, with the reason
    for kind, path in files:
        if kind == "aa":
            for r in read_aa(path, skipped):
                (aa_models if r.per_model else aa_rows).append((r, path))
            as_of = as_of or aa_as_of(path)
        elif kind == "litellm":
            litellm += read_litellm(path, skipped)
        elif kind == "openrouter":
            data = read_json(path)
            shape = openrouter_shape(data)
            if shape == "endpoints":
                endpoints.append(read_openrouter_endpoints(path, data))
            elif shape == "providers":
                providers.update(read_openrouter_providers(data))
            else:
                openrouter += read_openrouter(path, skipped, data)
    as_of = as_of or next((d for _, path in files if (d := fetched_on(path))), None)
    hidden_thinking([r for r, _ in aa_rows])
    result = ImportResult([], as_of=as_of)
    result.left_out += skipped
    shallow = shallow_thinkers(aa_rows)
    entries = merge_prices(aa_rows, litellm, shallow, free_tiers, result.left_out)
    ids: dict[str, int] = {}
    result.offerings = aa_offerings(entries, ids, as_of)
    by_model: dict[str, list[Entry]] = {}
    for e in entries:
        if not e.free:
            by_model.setdefault(normalize_model(e.row.model), []).append(e)
    measured: dict[str, ModelEndpoints] = {}  # model id -> its endpoints: offerings per endpoint, not the aggregate
    for me in endpoints:
        if me.model_id not in measured:
            measured[me.model_id] = ModelEndpoints(me.model_id, me.name, list(me.endpoints), me.path)
        else:  # two files for one model (a variant id answered with its base id): every endpoint once
            measured[me.model_id].endpoints += [e for e in me.endpoints if e not in measured[me.model_id].endpoints]
    scored = _scored_rows(aa_rows, aa_models, shallow) if measured else {}
    for p in openrouter:
        if p.key in measured:
            result.offerings += _endpoint_offerings(measured.pop(p.key), scored, providers, ids, result.left_out)
            continue
        found, models = _match(p.model, by_model)
        if not found:
            result.left_out.append(
                ("openrouter", p.key, "no measured speed (no Artificial Analysis row for this model)")
            )
        elif len(models) > 1:  # dated releases ("GPT-4o (May '24)", "(Nov '24)") are different models
            result.left_out.append(
                (
                    "openrouter",
                    p.key,
                    f"matches {len(models)} Artificial Analysis models ({'; '.join(models)}): "
                    "which one it serves is unknown",
                )
            )
        elif p.free:
            result.left_out.append(("openrouter", p.key, free_reason(None, free_tiers)))
        else:
            result.offerings.append(_aggregator(p, found, ids))
    for me in measured.values():  # endpoints of models the listing (if any) does not name, in file order
        result.offerings += _endpoint_offerings(me, scored, providers, ids, result.left_out)
    result.offerings = plausible(result.offerings, result.left_out)
    catalog: dict = {"catalog": name, "as_of": as_of, "currency": "USD"}
    metrics = _metrics(result.offerings, as_of, api=bool(aa_models) and not aa_rows)
    if metrics:
        catalog["metrics"] = metrics
    catalog["offerings"] = result.offerings
    return catalog, result


def _named(sources: list[tuple[str, Path]]) -> str:
    """The sources for the catalog's header: each file by name, in order; a folder's many files of one kind
    (a fetch's endpoints lists) by their count, where the first of them comes."""
    count: dict[tuple[str, Path], int] = {}
    for k, p in sources:
        count[(k, p.parent)] = count.get((k, p.parent), 0) + 1
    parts: list[str] = []
    for k, p in sources:
        n = count[(k, p.parent)]
        if n <= 3:
            parts.append(f"{k}:{p.name}")
        elif (text := f"{k}:{p.parent.name}/ ({n} files)") not in parts:
            parts.append(text)
    return ", ".join(parts)


def import_catalog(
    kind: str, files: list[str], out: Path, name: str | None, as_of: str | None, free_tiers: bool = False
) -> tuple[str, str, ImportResult]:
    """`planner catalog import`: the catalog file's text (with a header naming the sources and the
    columns the scrape lacked), the left-out list as CSV, and what was imported. The catalog is
    validated before it is returned: the planner never writes a catalog it would reject."""
    import yaml

    from planner.model.load import validate
    from planner.model.schema import Catalog

    sources = parse_sources(kind, files)
    if not sources:
        raise InputError.single("catalog import", "", "no source files given")
    catalog, result = build_catalog(sources, name or out.name.split(".")[0], as_of, free_tiers)
    if not catalog["offerings"]:
        raise InputError.single(
            str(sources[0][1]),
            "",
            "no offering has every required figure (prices, a measured "
            "speed and time to first token, a capability score); merge "
            "an Artificial Analysis table: aa:FILE",
        )
    validate(Catalog, catalog, str(out))
    header = (
        "# yaml-language-server: $schema=../schemas/catalog.schema.json\n"  # for editors; catalogs/ beside schemas/
        "# Built by `planner catalog import` from: "
        + _named(sources)
        + f"\n# {len(result.offerings)} offerings; {len(result.left_out)} entries left out, each with the "
        "reason (listed in the .left-out.csv beside this file).\n"
    )
    for _, column, reason in result.missing_columns:
        header += f"# {column} {reason}\n"
    text = header + yaml.safe_dump(catalog, sort_keys=False, allow_unicode=True, width=120)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["source", "name", "reason"])
    writer.writerows(csv_row(r) for r in result.left_out)
    return text, buf.getvalue(), result
