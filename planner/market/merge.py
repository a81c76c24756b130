"""The price merge: each Artificial Analysis row's measured figures with its price (litellm's list price for
the same host and model, else the table's), checked against the rules that leave a row out (placeholder and
swapped prices, free tiers, thinking not measured, hidden or too shallow to hold the score), as an Entry."""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass, field, replace
from pathlib import Path

from planner.market.identity import LitellmIndex, Matched, match_litellm
from planner.market.names import host_key, normalize_model, same_endpoint, slug, split_effort
from planner.market.sources.figures import dollars
from planner.market.sources.litellm import TIERS
from planner.market.sources.records import AARow, LongPrice, Price, TierPrice


@dataclass
class Entry:
    """An Artificial Analysis row with every figure an offering needs, resolved."""

    row: AARow
    path: Path
    company: str
    variant: str
    base: str  # the model name without its effort qualifier
    effort: str  # the effort qualifier as a mode name (a name without one: reasoning or non-reasoning)
    price: dict
    price_src: str
    capacity: dict | None
    capacity_src: str
    context: int | None
    gateway: dict
    free: bool
    estimated: list[str]  # "thinking.tokens", "price.cached_input", "capability.overall"
    tiers: list[dict] = field(default_factory=list)  # the offering's price_tiers: litellm's, else none
    unlisted: list[str] = field(default_factory=list)  # gateway_unlisted: the id is the host's own model string
    identity: Matched = Matched(None, "")  # the row's litellm entry, the rule that found it, or why none

    @property
    def thinks(self) -> float:
        return self.row.thinking or 0.0


@dataclass(frozen=True)
class Buyable:
    """What may enter besides what is sold today: entries past litellm's deprecation date (before the
    catalog's date `as_of`) and preview models are left out, listed, unless included."""

    as_of: str | None = None
    deprecated: bool = False
    preview: bool = False


def merge_prices(
    aa_rows: list[tuple[AARow, Path]],
    litellm: list[Price],
    shallow: dict,
    left: list,
    buyable: Buyable = Buyable(),
    *,
    free_tiers: bool,
) -> list[Entry]:
    """The table's rows with every figure an offering needs, each with its price: the list price of its
    endpoint's litellm entry (identity.match_litellm), else the table's. Listed in `left` with the reason:
    the rows that think too little to hold the model's score (`shallow`), the rows that are no offering
    (or not sold: `buyable`), then the litellm entries no row used (nothing measures their speed)."""
    index = LitellmIndex(litellm)
    listed = {p.key.lower() for p in litellm} | {name.lower() for src, name, _ in left if src == "litellm"}
    matched = {(str(path), row.line): match_litellm(row, index) for row, path in aa_rows}
    used: set[str] = set()
    surcharged = {normalize_model(r.model) for r, _ in aa_rows if r.cache_write and r.input and r.cache_write > r.input}
    typical = _typical_prices([r for r, _ in aa_rows])
    for row, path in aa_rows:
        if (str(path), row.line) in shallow:
            left.append(("aa", f"{row.host} / {row.model}", shallow[str(path), row.line]))
    entries = [
        e
        for row, path in aa_rows
        if (str(path), row.line) not in shallow
        if (
            e := _resolve(
                row,
                path,
                matched[str(path), row.line],
                surcharged,
                left,
                used,
                typical,
                buyable,
                listed,
                free_tiers=free_tiers,
            )
        )
        is not None
    ]
    refused = _refused_keys(matched.values())
    for p in litellm:
        if p.key not in used:
            left.append(("litellm", p.key, refused.get(p.key, NO_ROW)))
    return entries


NO_ROW = "no measured speed (no Artificial Analysis row for this host and model)"


def _refused_keys(found) -> dict[str, str]:
    """The litellm keys a row's match named but did not use (ambiguous or refused), with the first reason."""
    out: dict[str, str] = {}
    for m in found:
        for key in re.findall(r"'([^']+)'", m.note if m.price is None else ""):
            out.setdefault(key, f"no measured speed used: {m.note}")
    return out


@dataclass
class _Priced:
    """A row's price, per 1M tokens, with its note for the offering's `source`, and what litellm's entry
    brings beside it (long-context prices, tiers, rate limits, its gateway id, its context window)."""

    input: float
    output: float
    cached: float | None
    source: str
    long: LongPrice | None = None
    tiers: list[dict] = field(default_factory=list)
    capacity: dict | None = None
    capacity_src: str = ""
    gateway: dict = field(default_factory=dict)
    context: int | None = None
    estimated: list[str] = field(default_factory=list)  # "price.cached_input": the table's discount gave it


def _resolve(
    row: AARow,
    path: Path,
    matched: Matched,
    surcharged: set[str],
    left: list,
    used: set[str],
    typical: dict[str, float],
    buyable: Buyable,
    listed: set[str],
    *,
    free_tiers: bool,
) -> Entry | None:
    """The row's offering figures, or None with the reason in `left`. `surcharged`: the models some
    row prices cache writes above input (so an input price equal to a cache-write price is suspect)."""
    label = f"{row.host} / {row.model}"
    price = matched.price
    why = _unusable(row, price) or _not_sold(row, price, buyable)
    if why is not None:
        left.append(("aa", label, why))
        return None
    priced: _Priced | None
    if price is not None:
        used.add(price.key)
        priced = _litellm_priced(row, price)
    else:
        priced, why = _table_priced(row, surcharged, typical)
    if priced is not None:
        why = _refused(row, priced, free_tiers=free_tiers)
    if priced is None or why is not None:
        left.append(("aa", label, why))
        return None
    entry = replace(_entry(row, path, priced), identity=matched)
    host_id = _host_model_id(row, matched, listed)
    if host_id and not entry.gateway:
        entry.gateway, entry.unlisted = {"litellm": host_id}, ["litellm"]
        entry.price_src += (
            f"; litellm id: the host's model string '{row.host_model}' (Artificial Analysis), unpriced in litellm"
        )
    return entry


def _host_model_id(row: AARow, matched: Matched, listed: set[str]) -> str | None:
    """A litellm model string for a row litellm's price table does not list: the host's own model string
    behind its provider, when the Router routes that provider, no entry was refused or ambiguous for the
    row, the string is no moving alias ("-latest"), and litellm lists no entry of that name (`listed`: the
    keys of every entry read, those left out for a figure too, lower case)."""
    from planner.market.gateway_ids import packaged_sources

    provider = host_key(row.host)
    if matched.price is not None or matched.note or not provider or not row.host_model:
        return None
    if row.host_model.lower().endswith("latest") or provider not in packaged_sources().routable:
        return None
    model = f"{provider}/{row.host_model}"
    return None if {model.lower(), row.host_model.lower()} & listed else model


def _not_sold(row: AARow, price: Price | None, buyable: Buyable) -> str | None:
    """Why a row is not bought today (None: it is sold): litellm's entry is past its deprecation date at
    the catalog's date, or the model is a preview (its name, the host's model string or litellm's key says
    "preview"); each can be included on request."""
    if price is not None and price.deprecated and buyable.as_of and price.deprecated <= buyable.as_of[:10]:
        if not buyable.deprecated:
            return (
                f"deprecated: litellm '{price.key}' gives a deprecation date of {price.deprecated}, on or before "
                f"the catalog's date {buyable.as_of[:10]} (import with --include-deprecated to keep it)"
            )
    if not buyable.preview and is_preview(row.model, row.host_model, price.key if price else ""):
        return PREVIEW
    return None


PREVIEW = "a preview model: not generally available (import with --include-preview to keep it)"


def is_preview(*names: str) -> bool:
    return any(re.search(r"\bpreview\b", n, re.IGNORECASE) for n in names)


def _unusable(row: AARow, price: Price | None) -> str | None:
    """Why a row is no offering whatever its price (None: it may be one): marked deleted, a figure that is
    no number in its range, a measured figure missing, or no price from litellm or the table."""
    if row.deleted:
        return "marked deleted in the source"
    if row.left_out:
        return row.left_out
    missing = [
        k
        for k, v in (
            ("output speed", row.tps),
            ("time to first token", row.ttft),
            ("intelligence index", row.caps.get("overall")),
        )
        if v is None
    ]
    if row.tps is not None and row.tps <= 0:
        missing.append("positive output speed")
    if price is None and (row.input is None or row.output is None):
        missing.append("price")
    return "no " + ", no ".join(missing) if missing else None


def _litellm_priced(row: AARow, price: Price) -> _Priced:
    """A row priced by litellm's entry for its host and model: its list price, with its cached-input and
    long-context prices, tiers, published rate limits (the offering's capacity) and id."""
    source = f"price: litellm '{price.key}'"
    if price.deprecated:
        source += f" (deprecation date {price.deprecated})"
    if row.input is not None and price.input != row.input and row.input in (row.cache_write, price.cache_write):
        source += " (the table's input price is the cache-write price)"
    capacity, capacity_src = price.capacity(), ""
    if capacity:
        limits = ", ".join(k for k, v in (("rpm", price.rpm), ("tpm", price.tpm)) if v is not None)
        capacity_src = f"; capacity: litellm '{price.key}' {limits} (published rate limits)"
    return _Priced(
        price.input,
        price.output,
        price.cached_input,
        source + _tiers_text(price),
        long=price.long_context,
        tiers=[_tier_record(t, price.key) for t in price.tiers],
        capacity=capacity,
        capacity_src=capacity_src,
        gateway={"litellm": price.key if "/" in price.key else f"{price.provider}/{price.key}"},
        context=price.context,
    )


def _table_priced(row: AARow, surcharged: set[str], typical: dict[str, float]) -> tuple[_Priced | None, str | None]:
    """A row priced by the table itself (no litellm entry for it), or why its price cannot be used: 0/0
    (unpublished), a placeholder far under the model's other hosts, or a cache-write price taken for the
    input price. Its cached-input price is the table's discount on input, an estimate."""
    p_in, p_out = row.input, row.output
    if p_in == 0 and p_out == 0:
        return None, "price not published (Artificial Analysis lists 0 for input and output)"
    median = typical.get(normalize_model(split_effort(row.model)[0]))
    if median and _blended(p_in, p_out) < median / 10:
        return None, (
            f"price {dollars(p_in)}/{dollars(p_out)} is under a tenth of the other hosts' for this model "
            f"(median blended {dollars(median)}): a placeholder, not a published price"
        )
    if p_in > 0 and p_in == row.cache_write and normalize_model(row.model) in surcharged:
        return None, (
            f"input price {dollars(p_in)} equals the cache-write price, which other rows of this model "
            "charge above input: a scrape that took one for the other; no list price to use instead"
        )
    cached = p_in * (1 - row.cache_discount / 100) if row.cache_discount else None
    estimated = ["price.cached_input"] if cached is not None else []
    return _Priced(p_in, p_out, cached, "price: Artificial Analysis", estimated=estimated), None


def _refused(row: AARow, priced: _Priced, *, free_tiers: bool) -> str | None:
    """Why a priced row still stays out (None: it enters): a free tier that may not, or a reasoning model
    whose thinking time is not measured."""
    if priced.input == 0 and priced.output == 0:
        why = free_reason(priced.capacity, free_tiers=free_tiers)
        if why is not None:
            return f"{why} (litellm lists it at 0/0)"
    if row.thinking is None and row.reasoning:
        return "reasoning model with no measured thinking time"
    return None


def _entry(row: AARow, path: Path, priced: _Priced) -> Entry:
    """The row as an offering's figures: its endpoint, its model without the effort qualifier and that
    qualifier as a mode name, its price record and which of its figures are estimates."""
    company, variant = same_endpoint(row.host)
    base, effort = split_effort(row.model)
    if effort is None:  # a name with no effort qualifier: the model at its own default effort
        effort = "reasoning" if row.reasoning else "non-reasoning"
    return Entry(
        row,
        path,
        company,
        variant,
        base,
        slug(effort),
        _price_record(priced.input, priced.output, priced.cached, priced.long),
        priced.source,
        priced.capacity,
        priced.capacity_src,
        priced.context or row.context,
        priced.gateway,
        priced.input == 0 and priced.output == 0,
        [*row.estimated, *priced.estimated, *(["thinking.tokens"] if row.thinking else [])],
        priced.tiers,
    )


def _price_record(p_in: float, p_out: float, cached: float | None, long: LongPrice | None) -> dict:
    """A catalog price: per 1M tokens, to 6 decimals; `long_context` only when there is one."""
    out: dict = {"input": round(p_in, 6), "output": round(p_out, 6)}
    if cached is not None:
        out["cached_input"] = round(cached, 6)
    if long is not None:
        out["long_context"] = long.record()
    return out


# What each tier's `source` says beside its prices: litellm gives prices, nobody measures these tiers' speed.
TIER_NOTES = {
    "batch": "litellm states no window: 24 h",
    "flex": "speed not measured: unknown",
    "priority": "speed not measured: the list speed",
}


def _tier_record(t: TierPrice, key: str) -> dict:
    """A catalog price tier from litellm: no speed (Artificial Analysis measures the standard API only),
    so flex is judged of unknown speed and priority at the offering's; batch takes the default window."""
    suffix = dict(TIERS)[t.name]
    return {
        "name": t.name,
        "price": _price_record(t.input, t.output, t.cached_input, t.long_context),
        "source": f"litellm '{key}' *{suffix} prices; {TIER_NOTES[t.name]}",
    }


def _tiers_text(price: Price) -> str:
    """The offering source's note on its tiers; "" without any."""
    if not price.tiers:
        return ""
    names = [t.name for t in price.tiers]
    speeds = [x for n, x in (("flex", "flex judged unknown"), ("priority", "priority at the list speed")) if n in names]
    text = f"; tiers: litellm '{price.key}' {', '.join(names)}"
    return text + (f" (speeds not measured: {', '.join(speeds)})" if speeds else "")


def free_reason(capacity: dict | None, *, free_tiers: bool) -> str | None:
    """Why a free tier stays out (None: it enters): it needs the option and a published rate limit."""
    if capacity is None:
        return "free tier with no published rate limit"
    if not free_tiers:
        return "free tier; import with --free-tiers to include it with its rate limits"
    return None


def _blended(p_in: float, p_out: float) -> float:
    return (3 * p_in + p_out) / 4  # Artificial Analysis's 3:1 blend


def _typical_prices(rows: list[AARow]) -> dict[str, float]:
    """Per model (without its effort qualifier), the median blended price of the table's priced rows,
    where at least 3 rows price it: what a host's price is compared with to spot a placeholder."""
    by: dict[str, list[float]] = {}
    for r in rows:
        if r.input is not None and r.output is not None and (r.input or r.output) and not r.deleted:
            by.setdefault(normalize_model(split_effort(r.model)[0]), []).append(_blended(r.input, r.output))
    return {m: statistics.median(v) for m, v in by.items() if len(v) >= 3}


def hidden_thinking(rows: list[AARow]) -> None:
    """Reasoning rows measured with no thinking time (thinking 0) on hosts that do not stream it (OpenAI,
    Azure, Bedrock, Anthropic, Google...): their time to first token holds the thinking. It is split:
    the first token takes what the same host's non-reasoning rows take (their median), the rest is
    thinking, so its tokens are billed; both are estimates. With no non-reasoning row on the host there
    is nothing to split by: the thinking is unknown and the row is left out. The total to the first
    answer token stays the measured one."""
    plain: dict[str, list[float]] = {}
    for r in rows:
        if not r.reasoning and r.ttft is not None and not r.deleted:
            plain.setdefault(r.host, []).append(r.ttft)
    for r in rows:
        if not r.reasoning or r.thinking != 0 or r.ttft is None or r.ttft <= 0:
            continue
        if r.host not in plain:
            r.thinking = None  # hidden in the first token, with nothing to tell it from the input time
            continue
        first = min(statistics.median(plain[r.host]), r.ttft)
        r.thinking, r.ttft = r.ttft - first, first
        r.estimated += ["thinking.seconds", "speed.ttft_s"]
        r.ttft_pct = None  # its first-token percentiles hold the thinking, which only the median is split of


def shallow_thinkers(rows: list[tuple[AARow, Path]]) -> dict[tuple[str, int], str]:
    """Reasoning rows that think under a quarter of the tokens the same model thinks on its other hosts
    (median over at least 3): the endpoint likely does not run that effort, so the model's score (one
    per model, not per host) would not hold there. Keyed by (file, line), with the reason."""
    tokens: dict[str, list[tuple[tuple[str, int], float]]] = {}
    for r, path in rows:
        if r.reasoning and r.thinking is not None and r.tps and not r.deleted:
            tokens.setdefault(r.model, []).append(((str(path), r.line), r.thinking * r.tps))
    out = {}
    for found in tokens.values():
        if len(found) < 3:
            continue
        median = statistics.median(t for _, t in found)
        for key, t in found:
            if t < median / 4:
                out[key] = (
                    f"thinks {t:,.0f} tokens a call against a median of {median:,.0f} for this model on other "
                    "hosts: the endpoint likely does not run this effort, so the model's score would not hold"
                )
    return out
