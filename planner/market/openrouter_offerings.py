"""Offerings billed by OpenRouter: a listed model's aggregate offering (per effort variant, the figures of
the slowest host OpenRouter may route to at its price) and, where its endpoints were fetched, one offering
per endpoint at that endpoint's price and measured speed, rated by Artificial Analysis's scores."""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass
from pathlib import Path

from planner.market.merge import PREVIEW, Buyable, Entry, free_reason, is_preview
from planner.market.names import dashes, endpoint, normalize_model, slug, split_effort
from planner.market.offerings import ceil_ms, least_thinking, speed_record, tier_name, unique_id
from planner.market.sources.aa import PERCENTILES
from planner.market.sources.figures import dollars, given, num, read_cached, read_context, shown, why_no_price
from planner.market.sources.openrouter import ModelEndpoints
from planner.market.sources.records import AARow, Price

PRICE_TOLERANCE = 0.01  # an aggregator's price covers a host's up to 1% below it


def openrouter_offerings(
    listing: list[Price],
    endpoints: list[ModelEndpoints],
    providers: dict[str, dict],
    entries: list[Entry],
    rated: list[tuple[AARow, Path]],
    shallow: dict,
    ids: dict[str, int],
    left: list,
    buyable: Buyable = Buyable(),
    *,
    free_tiers: bool,
) -> list[dict]:
    """OpenRouter's offerings, in the listing's order: a model whose endpoints were fetched gives one per
    endpoint, any other listed model one aggregate over `entries` (the hosts it may route to); then the
    endpoints of models the listing does not name, in file order. `rated`: every Artificial Analysis row,
    the table's and the API's, whose scores rate endpoints (less the `shallow` thinkers). Models that give
    no offering are listed in `left` with the reason."""
    by_model: dict[str, list[Entry]] = {}
    for e in entries:
        if not e.free:
            by_model.setdefault(normalize_model(e.row.model), []).append(e)
    measured = _by_model_id(endpoints)  # model id -> its endpoints: offerings per endpoint, not the aggregate
    scored = _scored_rows(rated, shallow) if measured else {}
    out = []
    for p in listing:
        if not buyable.preview and is_preview(p.key, p.model):
            left.append(("openrouter", p.key, PREVIEW))
            measured.pop(p.key, None)
        elif p.key in measured:
            out += _endpoint_offerings(measured.pop(p.key), scored, providers, ids, left)
        else:
            out += _listed_offering(p, by_model, ids, left, free_tiers=free_tiers)
    for me in measured.values():  # endpoints of models the listing (if any) does not name, in file order
        out += _endpoint_offerings(me, scored, providers, ids, left)
    return out


def _by_model_id(endpoints: list[ModelEndpoints]) -> dict[str, ModelEndpoints]:
    """The fetched endpoints by model id, in file order; two files for one model (a variant id answered with
    its base id) give every endpoint once."""
    measured: dict[str, ModelEndpoints] = {}
    for me in endpoints:
        if me.model_id not in measured:
            measured[me.model_id] = ModelEndpoints(me.model_id, me.name, list(me.endpoints), me.path)
        else:
            measured[me.model_id].endpoints += [e for e in me.endpoints if e not in measured[me.model_id].endpoints]
    return measured


def _listed_offering(
    p: Price, by_model: dict[str, list[Entry]], ids: dict[str, int], left: list, *, free_tiers: bool
) -> list[dict]:
    """A listed model with no endpoints fetched: its aggregate offering, or none with the reason in `left`
    (no Artificial Analysis row for it, several models it may be, or a free tier)."""
    found, models = _match(p.model, by_model)
    if not found:
        left.append(("openrouter", p.key, "no measured speed (no Artificial Analysis row for this model)"))
    elif len(models) > 1:  # dated releases ("GPT-4o (May '24)", "(Nov '24)") are different models
        left.append(
            (
                "openrouter",
                p.key,
                f"matches {len(models)} Artificial Analysis models ({'; '.join(models)}): "
                "which one it serves is unknown",
            )
        )
    elif p.free:
        left.append(("openrouter", p.key, free_reason(None, free_tiers=free_tiers)))
    else:
        return [_aggregator(p, found, ids)]
    return []


def _aggregator(p: Price, entries: list[Entry], ids: dict[str, int]) -> dict:
    """An OpenRouter offering: per effort variant, the figures of the slowest host OpenRouter may
    route to at its price (the hosts priced at or below it, within 1%; else all hosts)."""
    variants = _pools(p, entries)
    figures, notes, estimated = [], [], []
    for k, (effort, pool, priced) in enumerate(variants):
        f, note, guessed = _slowest(pool, "" if k == 0 else f"modes.{effort}.", priced=priced)
        figures.append(f)
        notes.append(f"{'default' if k == 0 else effort} ('{f['model']}'): {note}")
        estimated += guessed
    d = figures[0]
    out: dict = {
        "id": unique_id(ids, f"{slug(p.model)}@openrouter"),
        "model": d["model"],
        "vendor": "openrouter",
        "host": "openrouter",
        "served_by": sorted({e.company for _, pool, _ in variants for e in pool}),
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


def _pools(p: Price, entries: list[Entry]) -> list[tuple[str, list[Entry], bool]]:
    """Per effort variant, the hosts OpenRouter may route to at its price: those priced at or below it
    (within 1%), with True; else all the variant's hosts, with False. The variant that thinks least first."""
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
    return variants


def _slowest(pool: list[Entry], prefix: str, *, priced: bool) -> tuple[dict, str, list[str]]:
    """An effort variant's figures as the slowest host of its pool gives each (lowest output speed, longest
    first token and thinking; the lowest score of each metric), the note that names those hosts, and which
    figures are estimates (`prefix`: where the variant's figures are in the offering, "" for the default)."""
    slow = min(pool, key=lambda e: e.row.tps)
    late = max(pool, key=lambda e: e.row.ttft)
    deep = max(pool, key=lambda e: e.thinks)
    caps: dict[str, float] = {}
    for e in pool:
        for metric, value in e.row.caps.items():
            caps[metric] = min(caps.get(metric, value), value)
    f: dict = {"model": " / ".join(dict.fromkeys(e.row.model for e in pool)), "capability": caps}
    f["speed"] = speed_record(slow.row.tps, late.row.ttft, *_slowest_percentiles(pool))
    estimated = []
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
    note = (
        f"{hosts}; "
        + ", ".join(f"{what} {e.row.host} at {_price_text(e.price)}" for what, e in figure_hosts)
        + ", lowest score of each metric"
    )
    return f, note, estimated


def _price_text(price: dict) -> str:
    return f"{dollars(price['input'])}/{dollars(price['output'])}"


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


def _scored_rows(rated: list[tuple[AARow, Path]], shallow: dict) -> dict[str, list[_Scored]]:
    """Every row with an intelligence index, by normalised model name: the table's (not deleted, not an
    endpoint that does not run the effort) and the API's."""
    out: dict[str, list[_Scored]] = {}
    for row, path in rated:
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
    """The model's k-th endpoint as an offering, with the variants' scores and thinking tokens; None
    when the endpoint cannot be read (the reason is in `left`)."""
    read = _read_endpoint(me, k, ep, left)
    if read is None:
        return None
    company, name_variant = endpoint(read.provider)
    tag_variant = dashes(read.tag.split("/", 1)[1]) if "/" in read.tag else ""
    variant = "-".join(dict.fromkeys(x for x in (name_variant, tag_variant) if x))
    default = variants[0]
    out: dict = {
        "id": unique_id(ids, f"{slug(me.model_id)}@openrouter:{slug(read.tag)}"),
        "model": default.model,
        "vendor": "openrouter",
        "host": company,
    }
    if creator:
        out["creator"] = creator
    out["tier"] = tier_name(read.tps, variant)
    out["capability"] = dict(default.caps)
    out["price"] = {"input": round(read.input, 6), "output": round(read.output, 6)}
    if read.cached is not None:
        out["price"]["cached_input"] = round(read.cached * (1 - read.discount), 6)
    out["speed"] = speed_record(read.tps, read.ttft)
    estimated = []
    if default.tokens:
        out["thinking"] = {"tokens": math.ceil(default.tokens)}
        estimated.append("thinking.tokens")
    if read.context:
        out["context_window"] = read.context
    modes = []
    for v in variants[1:]:
        mode: dict = {"name": v.effort, "model": v.model, "reasoning_factor": 1.0, "capability": dict(v.caps)}
        if v.tokens:
            mode["thinking"] = {"tokens": math.ceil(v.tokens)}
            estimated.append(f"modes.{v.effort}.thinking.tokens")
        modes.append(mode)
    if modes:
        out["modes"] = modes
    out["source"] = "; ".join(_endpoint_notes(me, ep, read, providers))
    if estimated:
        out["estimated"] = estimated
    out["gateway"] = {"openrouter": me.model_id}
    return out


@dataclass
class _Endpoint:
    """An OpenRouter endpoint's figures, read and checked: who serves it, its price less OpenRouter's
    discount (per 1M tokens) and its median speed over the last 30 minutes."""

    provider: str
    tag: str  # OpenRouter's provider slug, with the endpoint variant after a "/" ("deepinfra/fp4")
    discount: float
    input: float
    output: float
    cached: float | None  # per 1M, before the discount
    context: int | None
    tps: float
    ttft: float
    tps_text: str  # all four percentiles as OpenRouter gives them, for the source
    ttft_text: str


def _read_endpoint(me: ModelEndpoints, k: int, ep, left: list) -> _Endpoint | None:
    """The k-th endpoint's figures, or None with the reason in `left`: not an endpoint, no provider, a
    price, discount, cached price or context that is no number in its range, free, or no measured speed."""
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
        left.append(("openrouter", label, free_reason(None, free_tiers=False)))
        return None
    tps, tps_text = _pct(ep.get("throughput_last_30m"))
    ttft, ttft_text = _pct(ep.get("latency_last_30m"), 0.001)
    if tps is None or ttft is None:
        left.append(("openrouter", label, NO_PERF))
        return None
    if tps <= 0 or ttft < 0:
        left.append(("openrouter", label, f"median throughput {tps:g} tok/s or first token {ttft:g} s out of range"))
        return None
    return _Endpoint(provider, tag, discount, p_in, p_out, cached, context, tps, ttft, tps_text, ttft_text)


def _endpoint_notes(me: ModelEndpoints, ep: dict, read: _Endpoint, providers: dict[str, dict]) -> list[str]:
    """The offering source's notes: the endpoint, its price, its speed's percentiles, and what the catalog
    has no field for (uptime, status, the provider's datacenters)."""
    quant = ep.get("quantization")
    name, tag = ep.get("name") or read.provider, read.tag
    notes = [
        f"OpenRouter endpoints of '{me.model_id}' ({Path(me.path).name}), endpoint '{name}' "
        f"(tag {tag}{', ' + str(quant) if quant and quant != 'unknown' else ''})",
        f"price {dollars(round(read.input, 6))}/{dollars(round(read.output, 6))} per 1M input/output"
        + (f" (its list price less OpenRouter's discount of {read.discount:.0%})" if read.discount else ""),
        f"speed: the medians over the last 30 minutes (throughput tok/s {read.tps_text}; "
        f"first token s {read.ttft_text})",
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
    return notes
