"""The option list: every (offering, mode, price tier) the catalog sells, one row each, as numpy
columns (`Options`, `build_options`), and each option's speeds read at a latency percentile.

The workload x option table (pairs.py) is computed over these rows; the catalog table of `catalog
show` and `explain` list them.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from planner.core.fmt import option
from planner.model.schema import Catalog, Offering, Price, PriceTier, Speed

Points = tuple[tuple[float, ...], tuple[float, ...]]  # (percentiles ascending, the figure at each)


LIST = "list"  # the price tier of an offering's own `price`: the way it is sold when no other is named


@dataclass(frozen=True)
class Options:
    """One row per option: an (offering, mode, price tier) triple, in catalog order: per offering each
    mode (`default` first), and per mode its list price, then each of its price tiers, then the list
    price inside reserved capacity when a reserved-throughput commitment covers the offering."""

    offering_index: np.ndarray  # int, index into catalog.offerings
    offering_id: list[str]
    mode: list[str]
    vendor: list[str]
    host: list[str]
    tier: list[str]
    model: list[str]
    companies: list[tuple[str, ...]]  # who bills it, then who serves it when another company
    outage_companies: list[tuple[str, ...]]  # vendor, host, then the companies behind an aggregator host
    ttft_s: np.ndarray  # batch: its window (a job completes within it), with output_tps inf
    prefill_tps: np.ndarray  # nan: absent (folded into ttft_s)
    output_tps: np.ndarray
    price_input: np.ndarray  # per 1M tokens
    price_cached_input: np.ndarray
    price_output: np.ndarray
    context_window: np.ndarray  # inf: unlimited
    reasoning_factor: np.ndarray
    thinking: np.ndarray  # measured thinking tokens per call; nan: none measured
    capability: dict[str, np.ndarray]  # metric -> score per option, nan where missing
    regions: list[frozenset[str] | None]
    tps_points: list[Points | None]  # output_tps by percentile, the median at 50; None: only the median
    ttft_points: list[Points | None]  # ttft_s likewise
    tps_lengths: list[Points | None]  # median output_tps by input tokens per call, ascending; None: one length
    ttft_lengths: list[Points | None]  # median ttft_s likewise
    prefill_from: np.ndarray  # input tokens a measured ttft_s already reads (prefill_tps reads the rest); 0: none
    measured_at: np.ndarray  # speed.input_tokens: the length output_tps and ttft_s are measured at; nan: none
    sale: list[str]  # the price tier: list, batch, flex or priority
    reserved: list[str | None]  # the reserved-throughput commitment whose capacity serves it; None: pay as you go
    discounted: list[str | None]  # the committed-spend commitment that discounts it once signed
    speed_known: np.ndarray  # bool: False for a flex tier with no speed of its own (judged with the list speed)
    long_above: np.ndarray  # input tokens per call above which the long-context prices apply; inf: none
    long_input: np.ndarray  # per 1M tokens of a long call (nan without long_above)
    long_cached_input: np.ndarray
    long_output: np.ndarray

    def __len__(self) -> int:
        return len(self.offering_id)

    def label(self, o: int) -> str:
        return option(self.offering_id[o], self.mode[o], self.sale[o], self.reserved[o])

    def key(self, o: int) -> tuple[str, str, str, str | None]:
        """What tells one option from every other: (offering, mode, price tier, reservation)."""
        return self.offering_id[o], self.mode[o], self.sale[o], self.reserved[o]

    def sold(self, o: int) -> dict[str, str]:
        """How an option is sold, as plan records name it: its price tier unless the list price, and the
        commitment whose reservation serves it; each key absent when it does not apply."""
        out = {}
        if self.sale[o] != LIST:
            out["price_tier"] = self.sale[o]
        if self.reserved[o] is not None:
            out["reserved"] = self.reserved[o]
        return out

    def involving(self, company: str) -> np.ndarray:
        """Per option, whether the company bills or serves it."""
        return np.array([company in cs for cs in self.companies], dtype=bool)

    def down_without(self, company: str) -> np.ndarray:
        """Per option, whether an outage of the company takes it down (Offering.down_without)."""
        return np.array([company in cs[:2] or cs[2:] == (company,) for cs in self.outage_companies], dtype=bool)

    @cached_property
    def standard_tier(self) -> np.ndarray:
        return np.array([t == "standard" for t in self.tier], dtype=bool)

    @cached_property
    def listed(self) -> np.ndarray:
        """Per option, whether it is the offering's list price paid as you go (no tier, no reservation)."""
        return np.array([s == LIST and r is None for s, r in zip(self.sale, self.reserved)], dtype=bool)

    @cached_property
    def batch(self) -> np.ndarray:
        return np.array([s == "batch" for s in self.sale], dtype=bool)

    @cached_property
    def in_capacity(self) -> np.ndarray:
        """Per option, whether its load counts toward its offering's per-minute limits: batch jobs queue
        apart from them and reserved capacity is its own."""
        return ~self.batch & np.array([r is None for r in self.reserved], dtype=bool)

    def score(self, metric: str) -> np.ndarray:
        got = self.capability.get(metric)
        return got if got is not None else np.full(len(self), np.nan)


_NO_LONG = (np.inf, np.nan, np.nan, np.nan)


def _long(price: Price, factor: float = 1.0) -> tuple[float, float, float, float]:
    lc = price.long_context
    if lc is None:
        return _NO_LONG
    cached = lc.input if lc.cached_input is None else lc.cached_input
    return float(lc.above), lc.input * factor, cached * factor, lc.output * factor


def build_options(catalog: Catalog) -> Options:
    """Every option of the catalog, laid out in columns in the order Options states."""
    return _columns(_option_rows(catalog))


def _option_rows(catalog: Catalog) -> list[dict]:
    """One dict per option, in catalog order: per offering each mode (_variants), and per mode its list
    price, then each price tier (_tier_row), then the list price inside reserved capacity when a
    reserved-throughput commitment covers the offering."""
    reserved_by = {o.id: c.id for c in catalog.commitments if c.reserved for o in catalog.offerings if c.covers(o)}
    factor_of = {c.id: c.factor for c in catalog.commitments if c.reserved}
    spend_by = {o.id: c.id for c in catalog.commitments if not c.reserved for o in catalog.offerings if c.covers(o)}
    rows: list[dict] = []
    for i, off in enumerate(catalog.offerings):
        for name, factor, caps, speed, thinking, model in _variants(off):
            base = dict(
                i=i,
                off=off,
                mode=name,
                factor=factor,
                caps=caps,
                speed=speed,
                thinking=thinking,
                model=model,
                sale=LIST,
                reserved=None,
                discounted=spend_by.get(off.id),
                known=True,
                window=None,
                price=off.price,
                scale=1.0,
            )
            rows.append(base)
            rows.extend(_tier_row(base, t) for t in off.price_tiers)
            if off.id in reserved_by:
                c = reserved_by[off.id]
                rows.append({**base, "reserved": c, "discounted": None, "scale": factor_of[c]})
    return rows


def _variants(off: Offering) -> list[tuple]:
    """The offering's modes as (name, reasoning factor, capability, speed, thinking, model): `default`
    first, then each named mode, with what it does not state taken from the offering."""
    variants = [("default", 1.0, dict(off.capability), off.speed, off.thinking, off.model)]
    for mode in off.modes:
        caps = {**off.capability, **(mode.capability or {})}
        variants.append(
            (
                mode.name,
                mode.reasoning_factor,
                caps,
                mode.speed or off.speed,
                mode.thinking or off.thinking,
                mode.model or off.model,
            )
        )
    return variants


def _tier_row(base: dict, tier: PriceTier) -> dict:
    """A mode's option sold at one price tier: the tier's price and speed (a flex tier without a speed of its
    own is judged at the mode's, marked unknown), and a batch tier's window."""
    known = tier.speed is not None or tier.name != "flex"
    return {
        **base,
        "sale": tier.name,
        "price": tier.price,
        "speed": tier.speed or base["speed"],
        "known": known,
        "window": tier.window if tier.name == "batch" else None,
    }


def _columns(rows: list[dict]) -> Options:
    """The option rows as Options' columns: a batch tier's figures are its window (ttft_s, no output speed
    limit); prices scaled by a reservation's price factor."""
    metrics = sorted({m for r in rows for m in r["caps"]})

    def arr(values) -> np.ndarray:
        return np.array(values, dtype=float)

    def tps(r) -> float:
        return np.inf if r["window"] is not None else r["speed"].output_tps

    def ttft(r) -> float:
        return r["window"] if r["window"] is not None else r["speed"].ttft_s

    def prefill(r) -> float:
        s = r["speed"]
        return np.nan if r["window"] is not None or s.prefill_tps is None else s.prefill_tps

    longs = [_long(r["price"], r["scale"]) for r in rows]
    return Options(
        offering_index=np.array([r["i"] for r in rows], dtype=int),
        offering_id=[r["off"].id for r in rows],
        mode=[r["mode"] for r in rows],
        vendor=[r["off"].vendor for r in rows],
        host=[r["off"].host_name for r in rows],
        tier=[r["off"].tier for r in rows],
        model=[r["model"] for r in rows],
        companies=[r["off"].companies for r in rows],
        outage_companies=[(r["off"].vendor, r["off"].host_name, *r["off"].served_by) for r in rows],
        ttft_s=arr([ttft(r) for r in rows]),
        prefill_tps=arr([prefill(r) for r in rows]),
        output_tps=arr([tps(r) for r in rows]),
        price_input=arr([r["price"].input * r["scale"] for r in rows]),
        price_cached_input=arr([r["price"].cached_input_or_input * r["scale"] for r in rows]),
        price_output=arr([r["price"].output * r["scale"] for r in rows]),
        context_window=arr([np.inf if r["off"].context_window is None else r["off"].context_window for r in rows]),
        reasoning_factor=arr([r["factor"] for r in rows]),
        thinking=arr(
            [np.nan if r["thinking"] is None else r["thinking"].tokens_at(r["speed"].output_tps) for r in rows]
        ),
        capability={m: arr([r["caps"].get(m, np.nan) for r in rows]) for m in metrics},
        regions=[None if r["off"].regions is None else frozenset(r["off"].regions) for r in rows],
        tps_points=[None if r["window"] is not None else _points(r["speed"], "output_tps") for r in rows],
        ttft_points=[None if r["window"] is not None else _points(r["speed"], "ttft_s") for r in rows],
        tps_lengths=[None if r["window"] is not None else _lengths(r["speed"], "output_tps") for r in rows],
        ttft_lengths=[None if r["window"] is not None else _lengths(r["speed"], "ttft_s") for r in rows],
        prefill_from=arr([0.0 if r["window"] is not None else _read_input(r["speed"]) for r in rows]),
        measured_at=arr([np.nan if r["speed"].input_tokens is None else r["speed"].input_tokens for r in rows]),
        sale=[r["sale"] for r in rows],
        reserved=[r["reserved"] for r in rows],
        discounted=[r["discounted"] for r in rows],
        speed_known=np.array([r["known"] for r in rows], dtype=bool),
        long_above=arr([x[0] for x in longs]),
        long_input=arr([x[1] for x in longs]),
        long_cached_input=arr([x[2] for x in longs]),
        long_output=arr([x[3] for x in longs]),
    )


def _points(speed: Speed, name: str) -> Points | None:
    measured = getattr(speed.percentiles, name) if speed.percentiles is not None else None
    if not measured:
        return None
    ordered = sorted({**measured, 50: getattr(speed, name)}.items())
    return tuple(float(k) for k, _ in ordered), tuple(float(v) for _, v in ordered)


def _lengths(speed: Speed, name: str) -> Points | None:
    """A median figure by prompt length (input tokens per call), the figure itself at input_tokens; None
    when it is measured at one length only."""
    if speed.input_tokens is None or not speed.by_input:
        return None
    measured = {k: getattr(v, name) for k, v in speed.by_input.items() if getattr(v, name) is not None}
    if not measured:
        return None
    ordered = sorted({**measured, speed.input_tokens: getattr(speed, name)}.items())
    return tuple(float(k) for k, _ in ordered), tuple(float(v) for _, v in ordered)


def _read_input(speed: Speed) -> float:
    """Input tokens per call that the measured first-token times already read: the longest length ttft_s is
    measured at; 0 when the speed states no length (ttft_s is then a fixed time, SPEC section 3)."""
    if speed.input_tokens is None:
        return 0.0
    at = [k for k, v in (speed.by_input or {}).items() if v.ttft_s is not None]
    return float(max([speed.input_tokens, *at]))


def at_lengths(points: list[Points | None], reference: np.ndarray, inputs: np.ndarray) -> np.ndarray | None:
    """Per input length (rows: input tokens per call) and option (columns), the option's median figure there:
    straight lines in log(input tokens) between the lengths it was measured at, the nearest measured length's
    figure outside them, the reference figure where it is measured at one length. None when no option is
    measured at more than one length."""
    groups: dict[tuple[float, ...], list[int]] = {}
    for o, p in enumerate(points):
        if p is not None:
            groups.setdefault(p[0], []).append(o)
    if not groups:
        return None
    inputs = np.asarray(inputs, dtype=float)
    value = np.repeat(np.asarray(reference, dtype=float)[None, :], len(inputs), axis=0)
    for lengths, members in groups.items():  # options measured at the same lengths, interpolated together
        ys = np.array([points[o][1] for o in members], dtype=float)  # members x lengths
        xs = np.log(np.array(lengths))
        x = np.log(np.clip(inputs, lengths[0], lengths[-1]))
        j = np.clip(np.searchsorted(xs, x, side="right") - 1, 0, len(lengths) - 2)
        t = (x - xs[j]) / (xs[j + 1] - xs[j])
        low, high = ys[:, j].T, ys[:, j + 1].T  # inputs x members
        got = low + t[:, None] * (high - low)  # monotone in the input, exact at the lower point
        value[:, members] = np.where((inputs >= lengths[-1])[:, None], ys[:, -1][None, :], got)
    return value


def at_percentile(
    points: list[Points | None], median: np.ndarray, q: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per option, its figure at percentile q: linear in the percentile between the measured points
    (the median at 50), the end value beyond them; the median where none are measured. Also, per option,
    whether it had no points (judged at its median) and whether q lies beyond its points (judged at the
    nearest measured one: an extrapolation limit)."""
    value = np.array(median, dtype=float, copy=True)
    missing = np.array([p is None for p in points], dtype=bool)
    beyond = np.zeros(len(points), dtype=bool)
    groups: dict[tuple[float, ...], list[int]] = {}
    for o, p in enumerate(points):
        if p is not None:
            groups.setdefault(p[0], []).append(o)
    for xs, members in groups.items():  # options measured at the same percentiles, interpolated together
        ys = np.array([points[o][1] for o in members], dtype=float)
        if q <= xs[0]:
            got = ys[:, 0]
            beyond[members] = q < xs[0]
        elif q >= xs[-1]:
            got = ys[:, -1]
            beyond[members] = q > xs[-1]
        else:
            j = int(np.searchsorted(xs, q, side="right")) - 1
            t = (q - xs[j]) / (xs[j + 1] - xs[j])
            got = ys[:, j] + t * (ys[:, j + 1] - ys[:, j])
        value[members] = got
    return value, missing, beyond


def speeds_at(opts: Options, percentile: float) -> tuple[np.ndarray, np.ndarray]:
    """Per option, (output_tps, ttft_s) a latency at `percentile` is judged with: the slow tail of both,
    the (100 - p)th percentile of output speed and the p-th of time to first token; nan: the medians."""
    if np.isnan(percentile):
        return opts.output_tps, opts.ttft_s
    return (
        at_percentile(opts.tps_points, opts.output_tps, 100.0 - percentile)[0],
        at_percentile(opts.ttft_points, opts.ttft_s, percentile)[0],
    )


def speeds_at_input(
    opts: Options, inputs: np.ndarray, percentile: float, at_p: tuple[np.ndarray, np.ndarray] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(output_tps, ttft_s) per input length (rows: input tokens per call) and option, for a latency judged at
    `percentile` (nan: the medians): each median at the input's length (at_lengths); at a percentile, the
    figure at that percentile (speeds_at, measured at input_tokens) times the ratio of the median at the
    input's length to the median at input_tokens (a first-token time whose median is 0 shifts by the
    difference instead). One row for every input when no option is measured at more than one length.
    at_p: speeds_at(opts, percentile), when already at hand."""
    tps_p, ttft_p = speeds_at(opts, percentile) if at_p is None else at_p
    tps_len = at_lengths(opts.tps_lengths, opts.output_tps, inputs)
    ttft_len = at_lengths(opts.ttft_lengths, opts.ttft_s, inputs)
    if np.isnan(percentile):
        tps = tps_p[None, :] if tps_len is None else tps_len
        ttft = ttft_p[None, :] if ttft_len is None else ttft_len
        return tps, ttft
    tps, ttft = tps_p[None, :], ttft_p[None, :]
    if tps_len is not None:
        has = np.array([p is not None for p in opts.tps_lengths], dtype=bool)
        ratio = np.where(has[None, :], tps_len / np.where(has, opts.output_tps, 1.0)[None, :], 1.0)
        tps = tps * ratio
    if ttft_len is not None:
        has = np.array([p is not None for p in opts.ttft_lengths], dtype=bool)
        median = np.where(has, opts.ttft_s, 1.0)[None, :]
        ratio = ttft_len / np.where(median > 0, median, 1.0)
        scaled = np.where(median > 0, ttft * ratio, ttft + ttft_len - median)
        ttft = np.where(has[None, :], scaled, ttft)
    return tps, ttft


def percentile_gaps(opts: Options, percentile: float) -> tuple[np.ndarray, np.ndarray]:
    """Per option, whether a latency at `percentile` is judged (for a figure) at its median for lack of
    measured percentiles, and whether (for a measured figure) at its last measured point."""
    _, no_tps, past_tps = at_percentile(opts.tps_points, opts.output_tps, 100.0 - percentile)
    _, no_ttft, past_ttft = at_percentile(opts.ttft_points, opts.ttft_s, percentile)
    return no_tps | no_ttft, past_tps | past_ttft
