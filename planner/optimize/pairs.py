"""The workload x option table: SPEC section 3, computed once, vectorised, read by everyone.

The LP, `explain`, the plan file and the reports all take latency, cost and eligibility from
here, so they cannot disagree. The options (the table's columns) are options.py's; the names it
defines are still importable from here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from functools import cached_property, lru_cache

import numpy as np

from planner.core.arrays import per_workload
from planner.core.fmt import number, percent, short
from planner.model.distribution import Distribution
from planner.model.schema import Catalog, WorkloadSet, floor_value
from planner.optimize.options import LIST as LIST
from planner.optimize.options import Options, build_options, speeds_at
from planner.optimize.options import at_percentile as at_percentile
from planner.optimize.options import percentile_gaps as percentile_gaps


@dataclass(frozen=True)
class WorkloadArrays:
    """The workloads' figures as arrays, one entry per workload in file order."""

    ids: list[str]
    tasks: np.ndarray
    peak_tasks_per_minute: np.ndarray
    peak_assumed: np.ndarray  # bool: peak derived from the average load
    turns: np.ndarray
    tool_latency_s: np.ndarray
    input: np.ndarray
    output: np.ndarray
    reasoning: np.ndarray
    cached_share: np.ndarray
    streaming: np.ndarray
    budget_s: np.ndarray  # nan: no budget
    threshold: list[str | None]
    within_budget_share: np.ndarray
    metric: list[str]
    cap_min: np.ndarray  # nan: none
    cap_mean_min: np.ndarray  # nan: none
    max_vendor_share: np.ndarray  # nan: none
    max_options: np.ndarray  # 0: none
    percentile: np.ndarray  # the latency percentile options are judged at; nan: the medians
    distributions: tuple[Distribution | None, ...]  # each workload's sample tasks, if it has them

    @cached_property
    def sampled(self) -> np.ndarray:
        """Per workload, whether its budget is judged on sample tasks (it has a distribution)."""
        return np.array([d is not None for d in self.distributions], dtype=bool)


def build_workloads(
    ws: WorkloadSet, catalog: Catalog, distributions: dict[str, Distribution] | None = None
) -> WorkloadArrays:
    """catalog: for floors stated relative to a model (RelativeFloor), read from its scores;
    distributions: the sample tasks of the workloads that name a distribution file (load.Inputs)."""
    distributions = distributions or {}
    missing = [w.id for w in ws.workloads if w.distribution is not None and w.id not in distributions]
    if missing:
        raise ValueError(f"the distribution of workload(s) {', '.join(missing)} was not read (load_distributions)")
    thresholds = ws.all_thresholds
    minutes = ws.minutes
    wl = ws.workloads

    def arr(values) -> np.ndarray:
        return np.array(values, dtype=float)

    def budget(w) -> float:
        if w.latency.budget_s is not None:
            return w.latency.budget_s
        if w.latency.threshold is not None:
            value = thresholds[w.latency.threshold]
            return np.nan if value is None else value
        return np.nan

    peak = [
        w.peak_tasks_per_minute if w.peak_tasks_per_minute is not None else w.tasks / minutes * ws.policy.peak_factor
        for w in wl
    ]
    return WorkloadArrays(
        ids=[w.id for w in wl],
        tasks=arr([w.tasks for w in wl]),
        peak_tasks_per_minute=arr(peak),
        peak_assumed=np.array([w.peak_tasks_per_minute is None for w in wl], dtype=bool),
        turns=arr([w.turns for w in wl]),
        tool_latency_s=arr([w.tool_latency_s for w in wl]),
        input=arr([w.tokens.input for w in wl]),
        output=arr([w.tokens.output for w in wl]),
        reasoning=arr([w.tokens.reasoning for w in wl]),
        cached_share=arr([w.tokens.cached_input_share for w in wl]),
        streaming=np.array([w.latency.streaming for w in wl], dtype=bool),
        budget_s=arr([budget(w) for w in wl]),
        threshold=[w.latency.threshold if w.latency.budget_s is None else None for w in wl],
        within_budget_share=arr([w.latency.within_budget_share for w in wl]),
        metric=[w.capability.metric for w in wl],
        cap_min=arr([floor_value(w.capability.min, w.capability.metric, catalog) for w in wl]),
        cap_mean_min=arr([floor_value(w.capability.mean_min, w.capability.metric, catalog) for w in wl]),
        max_vendor_share=arr([np.nan if w.max_vendor_share is None else w.max_vendor_share for w in wl]),
        max_options=np.array([w.max_options or 0 for w in wl], dtype=int),
        percentile=arr([np.nan if w.latency.percentile is None else w.latency.percentile for w in wl]),
        distributions=tuple(distributions.get(w.id) if w.distribution is not None else None for w in wl),
    )


@dataclass
class Pairs:
    """Dense W x O arrays of SPEC section 3, plus the eligibility masks behind every reason."""

    workloads: WorkloadArrays
    options: Options
    reasoning: np.ndarray
    call_s: np.ndarray
    first_token_s: np.ndarray  # to the first answer token: ttft_s + input / prefill_tps + reasoning / output_tps
    latency_s: np.ndarray
    call_cost: np.ndarray
    cost_per_task: np.ndarray
    task_tokens: np.ndarray
    peak_tpm: np.ndarray
    peak_rpm: np.ndarray
    capability: np.ndarray  # score in the workload's metric, nan where missing
    vendor_ok: np.ndarray
    region_ok: np.ndarray
    context_ok: np.ndarray
    capability_ok: np.ndarray
    within_budget: np.ndarray  # latency_s <= budget_s, or no budget; with sample tasks: every one within it
    eligible: np.ndarray
    within_share: np.ndarray  # the share of tasks within budget: of the sample tasks' weight, else 1 or 0
    need_s: np.ndarray  # the least budget every task meets: the slowest sample task's latency, else latency_s
    sale_ok: np.ndarray  # the option's price tier is one the workload may use (batch: it can wait; flex: no budget)
    gateway_ok: np.ndarray  # the gateway of policy.deployable_on can address the option (all True without one)
    vendor_why: dict[tuple[int, str], str] = field(default_factory=dict)  # (w, vendor) -> reason
    region_need: list[frozenset[str] | None] = field(default_factory=list)
    gateway: str | None = None  # policy.deployable_on
    gateway_why: dict[tuple, str] = field(default_factory=dict)  # Options.key(o) -> why the gateway cannot address it

    def without_gateway(self) -> Pairs:
        """The same table with policy.deployable_on lifted: every option the gateway could not address is
        eligible again where the other rules allow it (the unrestricted optimum's table)."""
        if self.gateway is None:
            return self
        ok = np.ones_like(self.gateway_ok)
        eligible = _eligible(self, ok)
        return replace(self, gateway_ok=ok, eligible=eligible, gateway=None, gateway_why={})

    @property
    def shape(self) -> tuple[int, int]:
        return self.eligible.shape

    def reasons(self, w: int, o: int) -> list[str]:
        """Every reason option o is not eligible for workload w (empty when eligible)."""
        return self.reasons_many(np.array([w]), np.array([o]))[0]

    def reasons_many(self, ws: np.ndarray, os: np.ndarray) -> list[list[str]]:
        """reasons(w, o) for many pairs at once: the rules are checked as arrays, and only the
        failures are formatted."""
        ws, os = np.asarray(ws, dtype=int), np.asarray(os, dtype=int)
        out: list[list[str]] = [[] for _ in range(len(ws))]
        opts, wa = self.options, self.workloads
        for k in np.flatnonzero(~self.vendor_ok[ws, os]):
            w, v = int(ws[k]), opts.vendor[os[k]]
            out[k].append(self.vendor_why.get((w, v), f"vendor {v} not allowed"))
        for k in np.flatnonzero(~self.region_ok[ws, os]):
            need = ", ".join(sorted(self.region_need[ws[k]] or ()))
            have = opts.regions[os[k]]
            out[k].append(
                f"region: runs in {', '.join(sorted(have))}, needs one of {need}"
                if have
                else f"region: unknown, needs one of {need}"
            )
        bad = np.flatnonzero(~self.context_ok[ws, os])
        if len(bad):
            used = wa.input[ws[bad]] + self.reasoning[ws[bad], os[bad]] + wa.output[ws[bad]]
            for k, u, window in zip(bad.tolist(), used.tolist(), opts.context_window[os[bad]].tolist()):
                out[k].append(_context_text(u, window))
        bad = np.flatnonzero(~self.capability_ok[ws, os])
        if len(bad):
            scores = self.capability[ws[bad], os[bad]]
            floors = wa.cap_min[ws[bad]]
            for k, w, score, floor in zip(bad.tolist(), ws[bad].tolist(), scores.tolist(), floors.tolist()):
                out[k].append(_capability_text(wa.metric[w], None if score != score else score, floor))  # nan: none
        for k in np.flatnonzero(~self.sale_ok[ws, os]).tolist():
            out[k].append(_sale_text(self, int(ws[k]), int(os[k])))
        for k in np.flatnonzero(~self.gateway_ok[ws, os]).tolist():
            why = self.gateway_why.get(opts.key(int(os[k])), "no id in its lists")
            out[k].append(f"not deployable on {self.gateway}: {why}")
        bad = np.flatnonzero(~self.within_budget[ws, os] & (wa.within_budget_share[ws] >= 1) & self.sale_ok[ws, os])
        if len(bad):
            budgets = wa.budget_s[ws[bad]]
            sampled = wa.sampled[ws[bad]].tolist()
            lats = self.latency_s[ws[bad], os[bad]].tolist()
            needs = self.need_s[ws[bad], os[bad]].tolist()
            inside = self.within_share[ws[bad], os[bad]].tolist()
            for k, lat, budget, tail, need, share in zip(bad.tolist(), lats, budgets.tolist(), sampled, needs, inside):
                out[k].append(_tail_text(1.0 - share, need, budget) if tail else _latency_text(lat, budget))
        return out

    @cached_property
    def eligible_count(self) -> np.ndarray:
        return self.eligible.sum(axis=1)


# A rejection's reasons repeat across workloads and across what-if scenarios: texts are made once per
# distinct set of figures.
@lru_cache(maxsize=65536)
def _context_text(used: float, window: float) -> str:
    return f"context {number(used)} tokens > window {number(window)}"


@lru_cache(maxsize=65536)
def _capability_text(metric: str, score: float | None, floor: float) -> str:
    return f"no '{metric}' capability score" if score is None else f"{metric} {number(score)} < floor {number(floor)}"


@lru_cache(maxsize=65536)
def _latency_text(latency: float, budget: float) -> str:
    return f"latency {short(latency)} s > budget {short(budget)} s"


@lru_cache(maxsize=65536)
def _tail_text(over: float, slowest: float, budget: float) -> str:
    return f"latency: {percent(over)} of sample tasks over budget {short(budget)} s (slowest {short(slowest)} s)"


def _sale_text(pairs: Pairs, w: int, o: int) -> str:
    """Why a workload may not use an option's price tier."""
    wa, opts = pairs.workloads, pairs.options
    budget = wa.budget_s[w]
    if opts.sale[o] == "batch":
        window = short(float(opts.ttft_s[o]) / 3600)
        if np.isnan(budget):
            return (
                f"batch: jobs complete within {window} h; the workload states no deadline (a threshold without a "
                "budget, such as background, or a budget of at least that lets it wait)"
            )
        return f"batch: a task completes within {short(pairs.latency_s[w, o] / 3600)} h; budget {short(budget)} s"
    return f"{opts.sale[o]}: speed not measured for this tier; only workloads without a latency budget may use it"


def _sale_rule(wa: WorkloadArrays, opts: Options, latency: np.ndarray) -> np.ndarray:
    """W x O bool: the price tiers each workload may use. Batch: a workload that can wait (its
    threshold is a class without a budget, such as background, or its budget is at least the batch
    task's latency: turns x window); never a workload that needs any share of its tasks faster. A tier
    with no speed of its own (flex): workloads without a latency budget."""
    no_budget = np.isnan(wa.budget_s)
    can_wait = np.array([t is not None for t in wa.threshold], dtype=bool) & no_budget
    with np.errstate(invalid="ignore"):
        batch_ok = np.where(no_budget[:, None], can_wait[:, None], latency <= wa.budget_s[:, None])
    ok = np.where(opts.batch[None, :], batch_ok, True)
    return ok & (opts.speed_known[None, :] | no_budget[:, None])


def _call_cost(inp, cached_share, billed_output, opts: Options, *, judged=True) -> np.ndarray:
    """SPEC 3's call cost per row (input tokens, cached share, output + reasoning tokens: columns) and
    option; a call whose input is above an option's long-context threshold bills at those prices, where
    `judged` (a long call of a workload with sample tasks is judged on them instead)."""
    cost = (
        inp * (1 - cached_share) * opts.price_input[None, :]
        + inp * cached_share * opts.price_cached_input[None, :]
        + billed_output * opts.price_output[None, :]
    ) / 1e6
    long = judged & (inp > opts.long_above[None, :])
    if np.any(long):
        dear = (
            inp * (1 - cached_share) * np.nan_to_num(opts.long_input)[None, :]
            + inp * cached_share * np.nan_to_num(opts.long_cached_input)[None, :]
            + billed_output * np.nan_to_num(opts.long_output)[None, :]
        ) / 1e6
        cost = np.where(long, dear, cost)
    return cost


def _long_surcharge(dist: Distribution, opts: Options) -> np.ndarray:
    """Per option, what a task's long calls add to its cost, over the sample tasks: a sample whose input per
    call is above the threshold bills its calls at the long-context prices instead of the list ones (its
    own cached share: cached_input / input)."""
    out = np.zeros(len(opts))
    has = np.isfinite(opts.long_above)
    if not has.any():
        return out
    col = lambda a: a[:, None]
    share = col(np.clip(dist.cached_input / np.where(dist.input > 0, dist.input, 1.0), 0.0, 1.0))
    billed = col(dist.output) + _reasoning(col(dist.reasoning), opts)
    inp = col(dist.input)
    plain = _call_cost(inp, share, billed, opts, judged=False)
    dear = _call_cost(inp, share, billed, opts, judged=True)
    extra = (dear - plain) * col(dist.calls) * col(dist.weight)
    return extra.sum(axis=0) / float(dist.weight.sum())


def tie_latency(pairs: Pairs, var_w: np.ndarray, var_o: np.ndarray) -> np.ndarray:
    """The latency ties are broken on: an option whose speed is unknown (a flex tier without one) counts
    as slower than any other of its workload, so that between equal prices a known speed or a stated
    batch window wins over a guess."""
    lat = pairs.latency_s[var_w, var_o]
    unknown = ~pairs.options.speed_known[var_o]
    if len(lat) and unknown.any():
        lat = np.where(unknown, 2.0 * per_workload(np.maximum, lat, var_w) + 1.0, lat)
    return lat


def vendor_caps(ws: WorkloadSet, vendors: Iterable[str]) -> dict[str, float]:
    """The spend-share cap of each vendor: vendor_share overrides max_vendor_share."""
    caps = {}
    for v in sorted(set(vendors)):
        s = ws.policy.vendor_share.get(v, ws.policy.max_vendor_share)
        if s is not None:
            caps[v] = s
    return caps


def task_latency(call_s, first_token_s, turns, tool_latency_s, streaming):
    """SPEC 3: a task's latency from one call's time; streaming ends at the final call's first token.

    first_token_s is ttft_s + input / prefill_tps + reasoning / output_tps (hidden thinking comes before
    the first answer token). Works on scalars and broadcast arrays alike.
    """
    full = turns * call_s + (turns - 1) * tool_latency_s
    streamed = (turns - 1) * (call_s + tool_latency_s) + first_token_s
    return np.where(streaming, streamed, full)


def build_pairs(
    ws: WorkloadSet,
    catalog: Catalog,
    options: Options | None = None,
    workloads: WorkloadArrays | None = None,
    vendor_rule: tuple[np.ndarray, dict] | None = None,
    distributions: dict[str, Distribution] | None = None,
) -> Pairs:
    """Compute every workload x option figure of SPEC section 3 at once (options, workloads and the
    vendor rule's verdicts: the catalog's and ws's, when already at hand; distributions: the sample
    tasks of the workloads that name a file, load.Inputs.distributions)."""
    opts = build_options(catalog) if options is None else options
    wa = build_workloads(ws, catalog, distributions) if workloads is None else workloads
    time = _timing(wa, opts)
    cost = _costs(wa, opts, time)
    capability, capability_ok = _scores(wa, opts, time.latency.shape)
    budget = _budgets(wa, opts, time)
    context_ok = (wa.input[:, None] + time.reasoning + wa.output[:, None]) <= opts.context_window[None, :]
    vendor_ok, vendor_why = _vendor_rule(ws, opts) if vendor_rule is None else vendor_rule
    region_ok, region_need = _region_rule(ws, opts)
    sale_ok = _sale_rule(wa, opts, time.latency)
    gateway = ws.policy.deployable_on
    addressable, gateway_why = gateway_rule(catalog, opts, gateway)
    gateway_ok = np.broadcast_to(addressable[None, :], time.latency.shape).copy()
    pairs = Pairs(
        workloads=wa,
        options=opts,
        reasoning=time.reasoning,
        call_s=time.call_s,
        first_token_s=time.first_token_s,
        latency_s=time.latency,
        call_cost=cost.call_cost,
        cost_per_task=cost.cost_per_task,
        task_tokens=cost.task_tokens,
        peak_tpm=cost.peak_tpm,
        peak_rpm=cost.peak_rpm,
        capability=capability,
        vendor_ok=vendor_ok,
        region_ok=region_ok,
        context_ok=context_ok,
        capability_ok=capability_ok,
        within_budget=budget.within_budget,
        eligible=np.zeros(0, dtype=bool),  # set below, from every rule
        within_share=budget.within_share,
        need_s=budget.need_s,
        sale_ok=sale_ok,
        gateway_ok=gateway_ok,
        vendor_why=vendor_why,
        region_need=region_need,
        gateway=gateway,
        gateway_why=gateway_why,
    )
    pairs.eligible = _eligible(pairs, gateway_ok)
    return pairs


def _eligible(pairs: Pairs, gateway_ok: np.ndarray) -> np.ndarray:
    """SPEC 3's eligibility: every rule of a pair (the latency rule only when every task must be within the
    budget), and policy.deployable_on's gateway."""
    latency_ok = pairs.within_budget | (pairs.workloads.within_budget_share < 1)[:, None]
    rules = pairs.vendor_ok & pairs.region_ok & pairs.context_ok & pairs.capability_ok & latency_ok & pairs.sale_ok
    return rules & gateway_ok


def gateway_rule(catalog: Catalog, opts: Options, gateway: str | None) -> tuple[np.ndarray, dict[tuple, str]]:
    """Per option, whether the gateway can address it (SPEC "Deployability": its id, provider slug and effort
    in the gateway's shipped lists; no batch tier; for OpenRouter, no reservation), and why not."""
    if gateway is None:
        return np.ones(len(opts), dtype=bool), {}
    from planner.market.addressing import Facts, Resolver
    from planner.market.gateway_ids import packaged_sources

    offerings = catalog.offerings
    infos = {}
    for i in np.unique(opts.offering_index).tolist():
        o = offerings[i]
        infos[o.id] = Facts.of(o)
    resolver = Resolver(infos, packaged_sources())
    ok = np.ones(len(opts), dtype=bool)
    why: dict[tuple, str] = {}
    for k in range(len(opts)):
        problems = resolver.problems(gateway, opts.offering_id[k], opts.mode[k], opts.sale[k], opts.reserved[k])
        if problems:
            ok[k] = False
            why[opts.key(k)] = "; ".join(problems)
    return ok, why


@dataclass(frozen=True)
class _Timing:
    """SPEC 3's times per workload (rows) and option (columns), and the speeds they were judged at."""

    reasoning: np.ndarray  # reasoning tokens per call
    tps: np.ndarray  # output_tps and ttft_s: one row for every workload, or one per workload (_speeds)
    ttft: np.ndarray
    call_s: np.ndarray
    first_token_s: np.ndarray
    latency: np.ndarray  # a task's


def _timing(wa: WorkloadArrays, opts: Options) -> _Timing:
    """A call's time, to its first answer token and in full, and a task's latency."""
    col = lambda a: a[:, None]
    # a call reasons at least what the workload states and at least what the option was measured to think
    reasoning = _reasoning(col(wa.reasoning), opts)
    prefill_s = _prefill(col(wa.input), opts)
    tps, ttft = _speeds(wa, opts)
    call_s = ttft + prefill_s + (reasoning + col(wa.output)) / tps
    first_token_s = ttft + prefill_s + reasoning / tps  # the first answer token
    latency = task_latency(call_s, first_token_s, col(wa.turns), col(wa.tool_latency_s), col(wa.streaming))
    return _Timing(reasoning, tps, ttft, call_s, first_token_s, latency)


@dataclass(frozen=True)
class _Costs:
    """SPEC 3's cost and load per workload and option."""

    call_cost: np.ndarray
    cost_per_task: np.ndarray
    task_tokens: np.ndarray
    peak_tpm: np.ndarray
    peak_rpm: np.ndarray


def _costs(wa: WorkloadArrays, opts: Options, time: _Timing) -> _Costs:
    """A call's cost and a task's; a task's tokens and the peak load in tokens and calls a minute. A
    workload with sample tasks has its long calls billed one by one, from the samples."""
    col = lambda a: a[:, None]
    turns = col(wa.turns)
    inp = col(wa.input)
    call_cost = _call_cost(
        inp, col(wa.cached_share), time.reasoning + col(wa.output), opts, judged=~wa.sampled[:, None]
    )
    cost_per_task = turns * call_cost
    if wa.sampled.any() and np.isfinite(opts.long_above).any():  # long calls judged one by one, from the samples
        for w in np.flatnonzero(wa.sampled).tolist():
            cost_per_task[w] += _long_surcharge(wa.distributions[w], opts)
    task_tokens = turns * (inp + time.reasoning + col(wa.output))
    peak_tpm = col(wa.peak_tasks_per_minute) * task_tokens
    peak_rpm = np.broadcast_to(col(wa.peak_tasks_per_minute * wa.turns), time.latency.shape).copy()
    return _Costs(call_cost, cost_per_task, task_tokens, peak_tpm, peak_rpm)


def _scores(wa: WorkloadArrays, opts: Options, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Each option's score in each workload's metric (nan where missing), and whether it meets the floor."""
    W, O = shape
    capability = np.empty((W, O))
    metric = np.array(wa.metric, dtype=object)
    for m in sorted(set(wa.metric)):
        capability[metric == m] = opts.score(m)
    floor = np.where(np.isnan(wa.cap_min), -np.inf, wa.cap_min)
    with np.errstate(invalid="ignore"):
        capability_ok = ~np.isnan(capability) & (capability >= floor[:, None])
    return capability, capability_ok


@dataclass(frozen=True)
class _Budgets:
    """How each option meets each workload's latency budget (Pairs' fields of the same names)."""

    within_budget: np.ndarray
    within_share: np.ndarray
    need_s: np.ndarray


def _budgets(wa: WorkloadArrays, opts: Options, time: _Timing) -> _Budgets:
    """Whether a task's latency is within its workload's budget; for a workload with sample tasks, the
    share of them within it (within_budget: every one) and the slowest one's latency."""
    latency = time.latency
    with np.errstate(invalid="ignore"):
        within_budget = np.isnan(wa.budget_s[:, None]) | (latency <= wa.budget_s[:, None])
    within_share, need_s = within_budget.astype(float), latency
    if wa.sampled.any():  # the budget is met by the sample tasks, each judged at the option's speeds
        within_share, need_s = within_share.copy(), latency.copy()
        for w in np.flatnonzero(wa.sampled).tolist():
            budget = wa.budget_s[w]
            tps_w, ttft_w = np.broadcast_to(time.tps, latency.shape)[w], np.broadcast_to(time.ttft, latency.shape)[w]
            share, slowest = sample_shares(
                wa.distributions[w],
                np.array([] if np.isnan(budget) else [budget]),
                tps_w,
                ttft_w,
                opts,
                wa.tool_latency_s[w],
                streaming=bool(wa.streaming[w]),
            )
            need_s[w] = slowest
            if not np.isnan(budget):
                within_share[w] = share[0]
                within_budget[w] = share[0] >= 1.0
    return _Budgets(within_budget, within_share, need_s)


def _reasoning(stated: np.ndarray, opts: Options) -> np.ndarray:
    """Reasoning tokens per call: the stated ones x the option's factor, at least what it was measured
    to think (stated: a column, one row per workload or sample task)."""
    reasoning = stated * opts.reasoning_factor[None, :]
    measured = ~np.isnan(opts.thinking)
    if measured.any():
        reasoning = np.where(measured[None, :], np.maximum(reasoning, np.nan_to_num(opts.thinking)[None, :]), reasoning)
    return reasoning


def _prefill(inputs: np.ndarray, opts: Options) -> np.ndarray:
    """Seconds to read the input, per row of `inputs` (a column) and option; 0 without prefill_tps."""
    return np.where(
        np.isnan(opts.prefill_tps)[None, :],
        0.0,
        inputs / np.where(np.isnan(opts.prefill_tps), 1.0, opts.prefill_tps)[None, :],
    )


def _speeds(wa: WorkloadArrays, opts: Options) -> tuple[np.ndarray, np.ndarray]:
    """(output_tps, ttft_s) each workload's latency is judged with: a row of the medians for all when
    no workload names a percentile, else one row per workload."""
    if np.isnan(wa.percentile).all():
        return opts.output_tps[None, :], opts.ttft_s[None, :]
    tps = np.repeat(opts.output_tps[None, :], len(wa.ids), axis=0)
    ttft = np.repeat(opts.ttft_s[None, :], len(wa.ids), axis=0)
    for p in np.unique(wa.percentile[~np.isnan(wa.percentile)]).tolist():
        rows = wa.percentile == p
        tps[rows], ttft[rows] = speeds_at(opts, p)
    return tps, ttft


SAMPLE_BLOCK = 1 << 20  # sample x option latencies computed at once (a block of 8 MB)


def sample_shares(
    dist: Distribution,
    budgets: np.ndarray,
    tps: np.ndarray,
    ttft: np.ndarray,
    opts: Options,
    tool_latency_s: float,
    *,
    streaming: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """For one workload's sample tasks, per option (speeds tps and ttft, one per option of opts): the
    share of the tasks' weight within each budget (len(budgets) x options) and the slowest task's
    latency. Each task's latency is SPEC 3's with its own tokens per call and its calls as turns. The
    weight within and over are summed apart, so a share is exactly 1 when no task is over and exactly 0
    when none is within."""
    n_opt = len(opts)
    inside = np.zeros((len(budgets), n_opt))
    over = np.zeros((len(budgets), n_opt))
    slowest = np.full(n_opt, -np.inf)
    step = max(1, SAMPLE_BLOCK // max(n_opt, 1))
    col = lambda a: a[:, None]
    for a in range(0, len(dist), step):
        b = slice(a, a + step)
        reasoning = _reasoning(col(dist.reasoning[b]), opts)
        prefill_s = _prefill(col(dist.input[b]), opts)
        call_s = ttft + prefill_s + (reasoning + col(dist.output[b])) / tps
        first_token_s = ttft + prefill_s + reasoning / tps
        latency = task_latency(call_s, first_token_s, col(dist.calls[b]), tool_latency_s, streaming)
        np.maximum(slowest, latency.max(axis=0), out=slowest)
        weight = col(dist.weight[b])
        for k, budget in enumerate(budgets.tolist()):
            ok = latency <= budget
            inside[k] += np.where(ok, weight, 0.0).sum(axis=0)
            over[k] += np.where(ok, 0.0, weight).sum(axis=0)
    with np.errstate(invalid="ignore"):
        share = np.where(over == 0, 1.0, inside / (inside + over))
    return share, slowest


def changed_options(before: Catalog, after: Catalog, opts: Options) -> np.ndarray | None:
    """Per option of `after` (laid out as opts), whether its offering differs from `before`'s; None
    when the two catalogs do not list the same offerings (id, vendor, modes) in the same order."""
    a, b = before.offerings, after.offerings

    def layout(cat: Catalog, x) -> tuple:  # what decides an offering's rows among the options
        covered = tuple(c.id for c in cat.commitments if c.covers(x))
        return x.id, x.companies, [m.name for m in x.modes], [t.name for t in x.price_tiers], covered

    if len(a) != len(b) or any(layout(before, x) != layout(after, y) for x, y in zip(a, b)):
        return None
    if before.commitments != after.commitments:
        return None
    return np.array([x != y for x, y in zip(a, b)], dtype=bool)[opts.offering_index]


def repriced_pairs(base: Pairs, ws: WorkloadSet, catalog: Catalog, opts: Options, changed: np.ndarray) -> Pairs:
    """The pairs of the same workloads with the options `changed` (bool per option) recomputed and the
    others taken from `base`: every figure of a pair depends only on its workload and its option, so
    this equals build_pairs(ws, catalog) value for value. The catalogs list the same offerings with
    the same vendors and modes (changed_options says so)."""
    cols = np.flatnonzero(changed)
    sub_opts = Options(**{f.name: _take(getattr(opts, f.name), cols) for f in fields(Options)})
    # the same offerings keep their vendors (changed_options), so the vendor rule's verdicts are the base's
    sub = build_pairs(ws, catalog, sub_opts, base.workloads, (base.vendor_ok[:, cols], {}))
    grid = {}
    for f in fields(Pairs):
        value = getattr(base, f.name)
        if isinstance(value, np.ndarray) and value.shape == base.shape:
            fresh = getattr(sub, f.name)
            if not np.array_equal(value[:, cols], fresh, equal_nan=value.dtype.kind == "f"):
                value = value.copy()
                value[:, cols] = fresh
            grid[f.name] = value  # unchanged: shared with base (no one writes into a pair table)
    return Pairs(
        base.workloads,
        opts,
        **grid,
        vendor_why=base.vendor_why,
        region_need=base.region_need,
        gateway=base.gateway,
        gateway_why={**base.gateway_why, **sub.gateway_why},
    )


def _take(value, cols: np.ndarray):
    if isinstance(value, np.ndarray):
        return value[cols]
    if isinstance(value, dict):
        return {k: v[cols] for k, v in value.items()}
    return [value[i] for i in cols.tolist()]


def _vendor_rule(ws: WorkloadSet, opts: Options) -> tuple[np.ndarray, dict]:
    vendors = sorted(set(opts.vendor))
    vendor_idx = np.array([vendors.index(v) for v in opts.vendor], dtype=int)
    ok = np.ones((len(ws.workloads), len(vendors)), dtype=bool)
    why: dict[tuple[int, str], str] = {}
    policy_deny = set(ws.policy.deny_vendors)
    for w, wl in enumerate(ws.workloads):
        allow, deny = set(wl.vendors.allow), set(wl.vendors.deny)
        for j, v in enumerate(vendors):
            if v in policy_deny:
                ok[w, j], why[(w, v)] = False, f"vendor {v} denied by policy"
            elif v in deny:
                ok[w, j], why[(w, v)] = False, f"vendor {v} denied for this workload"
            elif allow and v not in allow:
                ok[w, j], why[(w, v)] = False, f"vendor {v} not in allow list"
    return ok[:, vendor_idx], why


def _region_rule(ws: WorkloadSet, opts: Options) -> tuple[np.ndarray, list]:
    """An empty or absent region list means no rule; otherwise the offering must list one of them."""
    W, O = len(ws.workloads), len(opts)
    ok = np.ones((W, O), dtype=bool)
    need_all: list[frozenset[str] | None] = []
    cache: dict[frozenset[str], np.ndarray] = {}
    for w, wl in enumerate(ws.workloads):
        rule = wl.regions if wl.regions is not None else ws.policy.regions
        need = frozenset(rule) if rule else None
        need_all.append(need)
        if need is None:
            continue
        if need not in cache:
            cache[need] = np.array([bool(r and (r & need)) for r in opts.regions], dtype=bool)
        ok[w] = cache[need]
    return ok, need_all
