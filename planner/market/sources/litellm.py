"""litellm's price table (model_prices_and_context_window.json): its chat entries' list prices, cached-input
prices, rate limits, long-context prices and batch, flex and priority tiers; every other entry listed."""

from __future__ import annotations

import re
from pathlib import Path

from planner.core.errors import InputError
from planner.market.names import LITELLM_PROVIDER_ALIASES
from planner.market.sources.figures import num, read_cached, read_context, read_json, read_rate, why_no_price
from planner.market.sources.records import LongPrice, Price, TierPrice

# litellm's key suffix of each price tier, in the order the catalog lists them (SPEC v1.6).
TIERS = (("batch", "_batches"), ("flex", "_flex"), ("priority", "_priority"))
# A long-context price key: `input_cost_per_token_above_272k_tokens`, a tier's with its suffix.
LONG_KEY = re.compile(r"(?:input|output)_cost_per_token_above_(\d+)([km])_tokens((?:_batches|_flex|_priority)?)")
MAX_PRICE = 1e6  # per 1M tokens: the catalog schema's limit


def _per_million(raw) -> float | None:
    """A per-token price as per 1M tokens, when the schema takes it (a finite number from 0 to 1e6)."""
    value = num(raw)
    return None if value is None or value < 0 or value * 1e6 > MAX_PRICE else value * 1e6


def _prices(v: dict, keys: tuple[str, str, str], name: str, left: list) -> tuple[float, float, float | None] | None:
    """The input, output and cached-input prices (per 1M) under these keys of a litellm entry. None when
    it gives no input and no output price; None too, listed in `left` as `name` with the reason, when a
    price given is missing its pair or is not a number from 0 to 1e6 per 1M: such prices are left out
    whole, never half read."""
    raw_in, raw_out, raw_cached = (v.get(k) for k in keys)
    if raw_in is None and raw_out is None:
        return None
    pin, pout, cached = _per_million(raw_in), _per_million(raw_out), _per_million(raw_cached)
    if pin is None or pout is None:
        why = why_no_price(raw_in, raw_out)
        given = raw_in is not None and raw_out is not None
    elif raw_cached is not None and cached is None:
        why, given = f"no usable cached-input price (found {repr(raw_cached)[:40]})", True
    else:
        return pin, pout, cached
    if given:  # a price out of range, not a missing one: say the range
        why += f": a price is a number from 0 to {MAX_PRICE:,.0f} per 1M tokens"
    left.append(("litellm", name, why))
    return None


def _long_context(v: dict, suffix: str, name: str, left: list) -> LongPrice | None:
    """An entry's long-context prices for the list price (suffix "") or a tier ("_batches"...). Several
    thresholds (`above_32k` and `above_256k`) are steps the catalog cannot hold, as it has one threshold:
    the lowest with input and output prices is taken, so every call past the first step bills at least
    at that step's prices (a call past a higher step bills at the first step's: below litellm's)."""
    found = {}
    for key in v:
        m = LONG_KEY.fullmatch(key)
        if m and m.group(3) == suffix:
            found[int(m.group(1)) * (1000 if m.group(2) == "k" else 1_000_000)] = f"{m.group(1)}{m.group(2)}"
    for above in sorted(found):
        got = _prices(
            v, _price_keys(f"_above_{found[above]}_tokens{suffix}"), f"{name} long context above {above}", left
        )
        if got is not None:
            return LongPrice(above, *got)
    return None


def _price_keys(suffix: str) -> tuple[str, str, str]:
    """litellm's input, output and cached-input price keys with a suffix (a tier's, a threshold's)."""
    return (
        f"input_cost_per_token{suffix}",
        f"output_cost_per_token{suffix}",
        f"cache_read_input_token_cost{suffix}",
    )


def _tiers(v: dict, key: str, left: list) -> list[TierPrice]:
    """The entry's batch, flex and priority prices, each with its own long-context prices (none when
    litellm gives the tier none: the list price's are not the tier's)."""
    out = []
    for name, suffix in TIERS:
        got = _prices(v, _price_keys(suffix), f"{key} {name}", left)
        if got is not None:
            out.append(TierPrice(name, *got, _long_context(v, suffix, f"{key} {name}", left)))
    return out


def read_litellm(path: Path, left: list | None = None) -> list[Price]:
    """litellm's chat entries with both prices, with their long-context prices and price tiers; the others
    with a price problem (and each tier or long-context price that cannot be used) go to `left`."""
    left = [] if left is None else left
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError.single(str(path), "", "expected litellm's price table: a JSON object of model entries")
    out = []
    for key, v in data.items():
        why = _not_chat(key, v)
        if why:
            left.append(("litellm", str(key), why))
            continue
        raw_in, raw_out = v.get("input_cost_per_token"), v.get("output_cost_per_token")
        pin, pout = num(raw_in), num(raw_out)
        if pin is None or pout is None or pin < 0 or pout < 0:
            left.append(("litellm", str(key), why_no_price(raw_in, raw_out)))
            continue
        provider = str(v.get("litellm_provider") or "")
        provider = LITELLM_PROVIDER_ALIASES.get(provider, provider)
        cached, no_cached = read_cached(v.get("cache_read_input_token_cost"))
        context, no_context = read_context(v.get("max_input_tokens"))
        rpm, no_rpm = read_rate(v.get("rpm"), "rpm", "requests")
        tpm, no_tpm = read_rate(v.get("tpm"), "tpm", "tokens")
        why = no_cached or no_context or no_rpm or no_tpm
        if why:
            left.append(("litellm", str(key), why))
            continue
        write = num(v.get("cache_creation_input_token_cost"))  # read only to spot a scrape's swapped prices
        out.append(
            Price(
                key,
                provider,
                key,
                pin * 1e6,
                pout * 1e6,
                cached,
                context,
                rpm,
                tpm,
                None if write is None or write <= 0 else write * 1e6,
                _long_context(v, "", str(key), left),
                _tiers(v, str(key), left),
                _date(v.get("deprecation_date")),
            )
        )
    return out


def _not_chat(key, v) -> str | None:
    """Why a litellm entry is no chat model's price (None: it is one): every entry is read or listed."""
    if key == "sample_spec":
        return "litellm's sample entry, which documents the fields: not a model"
    if not isinstance(v, dict):
        return f"not a model entry (found a {type(v).__name__})"
    mode = v.get("mode")
    if mode is None:
        return "no mode: not known to be a chat model"
    if mode != "chat":
        return f"mode {repr(mode)[:40]}, not chat: the planner prices chat calls"
    return None


def _date(raw) -> str:
    """A YYYY-MM-DD date as litellm gives it; "" for none or anything else (never a guessed date)."""
    text = str(raw or "").strip()
    return text if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text) else ""
