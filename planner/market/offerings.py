"""Offering records: one per Artificial Analysis endpoint, model and price (its effort variants as modes);
the pieces every offering is built of (speed block, tier, unique id, thinking time); and the plausibility
filter, which leaves out an offering the catalog schema rejects and lists the field and the value."""

from __future__ import annotations

import copy
import math
from pathlib import Path

from planner.market.merge import Entry
from planner.market.names import slug

FAST_TPS = 500.0


def aa_offerings(
    entries: list[Entry], ids: dict[str, int], as_of: str | None, offering_of: dict[tuple[str, int], str] | None = None
) -> list[dict]:
    """One offering per endpoint, model and price: effort variants are its modes (section 2). `offering_of`,
    when given, gets each entry's offering id by (file, line)."""
    groups: dict[tuple, list[list[Entry]]] = {}
    for e in entries:
        key = (
            e.company,
            e.variant,
            e.base,
            _frozen(e.price),
            tuple(sorted((e.capacity or {}).items())),
            e.free,
            _frozen(e.tiers),
        )
        slots = groups.setdefault(key, [])
        slot = next((s for s in slots if all(x.effort != e.effort for x in s)), None)
        if slot is None:
            slots.append([e])
        else:
            slot.append(e)
    prices_of: dict[tuple, int] = {}
    for key, slots in groups.items():
        prices_of[key[:3]] = prices_of.get(key[:3], 0) + len(slots)
    made = []
    for key, slots in groups.items():
        for slot in slots:
            made.append((min(e.row.line for e in slot), key, slot))
    out = []
    for _, key, slot in sorted(made, key=lambda m: (m[0], str(Path(m[2][0].path)))):
        order = sorted(slot, key=lambda e: least_thinking([e]))
        d = order[0]
        where = f"{d.company}-{d.variant}" if d.variant else d.company
        name = d.base if prices_of[key[:3]] == 1 else d.row.model
        oid = unique_id(ids, f"{slug(name.replace('(', '').replace(')', ''))}@{where}")
        out.append(_aa_offering(oid, order, as_of))
        if offering_of is not None:
            offering_of.update({(str(e.path), e.row.line): oid for e in order})
    return out


def _aa_offering(oid: str, order: list[Entry], as_of: str | None) -> dict:
    d = order[0]
    offering: dict = {"id": oid, "model": d.row.model, "vendor": d.company, "host": d.company}
    if d.row.creator:
        offering["creator"] = d.row.creator
    offering["tier"] = tier_name(d.row.tps, d.variant, free=d.free)
    offering["capability"] = dict(d.row.caps)
    offering["price"] = copy.deepcopy(d.price)
    if d.tiers:
        offering["price_tiers"] = copy.deepcopy(d.tiers)
    offering["speed"] = speed_record(d.row.tps, d.row.ttft, d.row.tps_pct, d.row.ttft_pct)
    if d.row.thinking:
        offering["thinking"] = {"seconds": ceil_ms(d.row.thinking)}
    contexts = [e.context for e in order if e.context]
    if contexts:
        offering["context_window"] = int(min(contexts))
    if d.capacity:
        offering["capacity"] = dict(d.capacity)
    estimated = [x for x in d.estimated if x != "price.cached_input"]
    modes = []
    for e in order[1:]:
        name = e.effort
        mode: dict = {"name": name, "model": e.row.model, "reasoning_factor": 1.0, "capability": dict(e.row.caps)}
        if e.row.thinking:
            mode["thinking"] = {"seconds": ceil_ms(e.row.thinking)}
        mode["speed"] = speed_record(e.row.tps, e.row.ttft, e.row.tps_pct, e.row.ttft_pct)
        modes.append(mode)
        estimated += [f"modes.{name}.{x}" for x in e.estimated if x != "price.cached_input"]
    if modes:
        offering["modes"] = modes
    what = (
        "speed, first token, thinking, scores" if any(e.row.thinking for e in order) else "speed, first token, scores"
    )
    offering["source"] = (
        f"Artificial Analysis providers leaderboard{' (' + as_of + ')' if as_of else ''}, "
        f"{_lines(order)}: {what}; {d.price_src}{d.capacity_src}"
    )
    if any("price.cached_input" in e.estimated for e in order):
        estimated.insert(0, "price.cached_input")
    if estimated:
        offering["estimated"] = estimated
    if d.gateway:
        offering["gateway"] = dict(d.gateway)
    if d.unlisted:
        offering["gateway_unlisted"] = list(d.unlisted)
    return offering


def _frozen(value):
    """A record (dicts and lists of numbers and text) as a hashable value, to group equal records."""
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def least_thinking(entries: list[Entry]) -> tuple:
    """Sort key: non-reasoning first, then the least thinking time, then the file's order."""
    e = entries[0]
    return (any(x.row.reasoning for x in entries), max(x.thinks for x in entries), e.row.line)


def speed_record(tps: float, ttft: float, tps_pct: dict | None = None, ttft_pct: dict | None = None) -> dict:
    """A speed block: the medians, and the other measured percentiles of each when known (rounded as
    the medians are, which keeps their order)."""
    speed: dict = {"output_tps": round(tps, 3), "ttft_s": round(ttft, 4)}
    pct = {}
    if tps_pct:
        pct["output_tps"] = {k: round(v, 3) for k, v in sorted(tps_pct.items())}
    if ttft_pct:
        pct["ttft_s"] = {k: round(v, 4) for k, v in sorted(ttft_pct.items())}
    if pct:
        speed["percentiles"] = pct
    return speed


def _lines(entries: list[Entry]) -> str:
    by_file: dict[str, list[int]] = {}
    for e in entries:
        by_file.setdefault(Path(e.path).name, []).append(e.row.line)
    return "; ".join(
        f"{name} line{'s' if len(lines) > 1 else ''} {', '.join(map(str, sorted(lines)))}"
        for name, lines in by_file.items()
    )


def tier_name(tps: float, variant: str, *, free: bool = False) -> str:
    """free; else fast or standard by the measured speed, with the endpoint variant: standard-fp8."""
    if free:
        return "free"
    tier = "fast" if tps >= FAST_TPS else "standard"
    return tier if not variant or variant == tier else f"{tier}-{variant}"


def plausible(offerings: list[dict], left: list) -> list[dict]:
    """The offerings the catalog schema accepts; one with a figure out of range (SPEC's plausibility
    limits) is left out and listed with the field and the value, and the rest still import."""
    from pydantic import ValidationError

    from planner.model.schema import Offering

    kept = []
    for offering in offerings:
        try:
            Offering.model_validate(offering)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            found = repr(err.get("input"))[:40]
            left.append(("import", str(offering.get("id", "?")), f"{where}: {err['msg']} (found {found})"))
            continue
        kept.append(offering)
    return kept


def unique_id(ids: dict[str, int], base: str) -> str:
    """An offering id no offering of this import has yet: `base`, then `base-2`, `base-3`..."""
    n = ids.get(base, 0)
    ids[base] = n + 1
    return base if n == 0 else f"{base}-{n + 1}"


def ceil_ms(seconds: float) -> float:
    """Seconds rounded up to the millisecond: the catalog never understates a measured time."""
    value = math.ceil(seconds * 1000) / 1000
    return value if value >= seconds else value + 0.001
