"""From a plan to a gateway's routing configuration (SPEC "Exports that deploy").

Every id, provider slug and effort written is checked against the gateways' lists (gateway_ids);
what is not found is returned as unknown (option label -> what is unknown), for the command to refuse
or, with --allow-unknown, to write and list.

LiteLLM Router (proxy config.yaml): one model group per workload, named by the workload id, with a
deployment per allocated option weighted by its share (`simple-shuffle` picks deployments in
proportion to `weight`); a `<workload>-fallback` group of the eligible runner-ups (the unused options
the break-even table lists, cheapest cut first), wired as the workload's fallback. A reasoning mode
sets `reasoning_effort`; every deployment has its own `model_info.id`.

OpenRouter: one chat-completions request body per route (an allocated option), since `reasoning` and
the provider preferences hold for a whole request: `model`, fallback `models` (the workload's other
options that take the same reasoning setting), `reasoning`, and `provider` (`order` and `only` with
OpenRouter's provider slugs, `allow_fallbacks: false`, `sort` by the budget's kind, `max_price` over
every model of the request, `preferred_max_latency` and `preferred_min_throughput` from the budget).
OpenRouter does not split traffic by weight: the shares go in a separate document.
"""

from __future__ import annotations

from typing import Any

from planner.core.fmt import percent
from planner.market import addressing
from planner.market.addressing import AGGREGATOR as AGGREGATOR
from planner.market.addressing import Target, label
from planner.market.gateway_ids import Sources
from planner.plan.model import Plan

FALLBACKS = 3
PERCENTILES = ((0.5, "p50"), (0.75, "p75"), (0.9, "p90"))  # else p99 (OpenRouter's documented cutoffs)
TIGHT = 0.9  # a route taking this share of its budget or more has no time to spare (the near_budget risk)

__all__ = ["Resolver", "Target", "label", "to_litellm", "to_openrouter"]


class Resolver(addressing.Resolver):
    """Ids, slugs and efforts of a plan's options (its offering_info), looked up once each."""

    def __init__(self, plan: Plan, sources: Sources):
        super().__init__(plan.offering_info, sources)
        self.plan = plan


def _runner_ups(w) -> list:
    """The unused options of the break-even table, one per offering and mode (its price tiers are one
    model to a gateway), at most FALLBACKS."""
    out, seen = [], set()
    for b in w.break_even:
        if not b.used and (b.offering, b.mode) not in seen:
            seen.add((b.offering, b.mode))
            out.append(b)
    return out[:FALLBACKS]


def _allocs(w) -> list:
    return sorted(w.allocations, key=lambda a: (-a.share, a.offering, a.mode))


def _note(unknown: dict[str, list[str]], t: Target) -> None:
    for p in t.problems:
        if p not in unknown.setdefault(t.label, []):
            unknown[t.label].append(p)


# ---------------------------------------------------------------------------- LiteLLM


def _route(name: str, a) -> str:
    """A route's name: the option's label, and its price tier when not the list price."""
    return f"{name}@{a.price_tier}" if a.price_tier else name


def batch_notes(plan: Plan, gateway: str) -> list[str]:
    """Shares on a batch tier: a gateway routes live calls, so these go through the vendor's batch API."""
    return [
        f"{w.id}: {percent(a.share)} on {a.option} goes through the vendor's batch API, not {gateway}: "
        "left out of the export"
        for w in plan.workloads
        for a in _allocs(w)
        if a.price_tier == "batch"
    ]


def to_litellm(plan: Plan, sources: Sources) -> tuple[dict[str, Any], dict[str, list[str]], list[str]]:
    """The Router config, the unknown options and notes. A flex or priority share sets `service_tier`;
    a share inside a reservation is a deployment of its own (`planner_reserved`: point it at the
    reserved deployment); batch shares are left out (notes)."""
    r = Resolver(plan, sources)
    unknown: dict[str, list[str]] = {}
    model_list: list[dict[str, Any]] = []
    fallbacks: list[dict[str, list[str]]] = []

    def deployment(group: str, x, seen: dict, extra: dict) -> dict[str, Any]:
        t = r.litellm(x.offering, x.mode)
        tier, reserved = getattr(x, "price_tier", None), getattr(x, "reserved", None)
        key = (t.model, t.params.get("reasoning_effort"), tier, reserved)
        if key in seen:  # two options would be one deployment: nothing would tell them apart
            t.problems.append(f"effort: the same litellm_params as {seen[key]} in group {group}")
        seen.setdefault(key, t.label)
        _note(unknown, t)
        params = {"model": t.model, **extra, **t.params}
        if tier:
            params["service_tier"] = tier
        name = t.label + (f"@{tier}" if tier else "") + (f"/reserved-{reserved}" if reserved else "")
        info = {"id": f"{group}/{name}", "planner_offering": x.offering, "planner_mode": x.mode}
        if tier:
            info["planner_price_tier"] = tier
        if reserved:
            info["planner_reserved"] = reserved
        if t.unpriced:
            info["planner_note"] = (
                f"not in litellm's price table: routed by its provider {t.unpriced}, cost not tracked"
            )
        return {"model_name": group, "litellm_params": params, "model_info": info}

    for w in plan.workloads:
        if w.status != "ok":
            continue
        live = [a for a in _allocs(w) if a.price_tier != "batch"]
        if not live:  # every share through the batch API: nothing for the Router (batch_notes says so)
            continue
        seen: dict = {}
        for a in live:
            d = deployment(w.id, a, seen, {"weight": round(a.share, 6)})
            d["model_info"].update({"planner_share": round(a.share, 6), "planner_cost_per_task": a.cost_per_task})
            model_list.append(d)
        backups = _runner_ups(w)
        if backups:
            group, seen = f"{w.id}-fallback", {}
            model_list.extend(deployment(group, b, seen, {}) for b in backups)
            fallbacks.append({w.id: [group]})
    config = {
        "model_list": model_list,
        "router_settings": {"routing_strategy": "simple-shuffle", "num_retries": 2, "fallbacks": fallbacks},
    }
    return config, unknown, batch_notes(plan, "the Router")


# ---------------------------------------------------------------------------- OpenRouter


def sort_for(plan: Plan, w, a) -> str:
    """OpenRouter's `sort` for a route: price without a budget; latency for a budget to the first
    token (streaming), an interactive one (at most the `attentive` threshold) or a tight one (the
    route takes 90% of it or more); throughput for a long budget whose calls spend longer generating
    than waiting for first tokens (at the route's measured speeds)."""
    if w.budget_s is None:
        return "price"
    attentive = plan.thresholds.get("attentive") or 10.0
    if w.streaming or w.budget_s <= attentive or a.latency_s >= TIGHT * w.budget_s:
        return "latency"
    use = _use(plan, a.offering)
    if use is None or not use.output_tps or use.ttft_s is None or a.output_tokens is None:
        return "latency"
    generating = a.output_tokens / use.output_tps
    waiting = w.turns * use.ttft_s
    return "throughput" if generating > waiting else "latency"


def _use(plan: Plan, offering: str):
    return next((o for o in plan.offerings if o.id == offering), None)


def preferences(plan: Plan, w, a) -> dict[str, Any]:
    """`preferred_max_latency` and `preferred_min_throughput` for a route within its budget: the route's
    measured first-token time and output speed, each loosened by the budget's slack s = (budget - tool
    time) / (route latency - tool time), so that a provider at both cutoffs takes the whole budget; at
    the percentile that covers the share of tasks that must be within it (p50, p75, p90, else p99)."""
    if w.budget_s is None or not a.within_budget:
        return {}
    use = _use(plan, a.offering)
    if use is None or not use.output_tps or not use.ttft_s:
        return {}
    tools = (w.turns - 1) * w.tool_latency_s
    model_time = a.latency_s - tools
    if model_time <= 0:
        return {}
    slack = (w.budget_s - tools) / model_time
    if slack < 1:
        return {}
    q = w.within_budget_share_required
    pct = next((p for limit, p in PERCENTILES if q <= limit), "p99")
    return {
        "preferred_max_latency": {pct: _sig(use.ttft_s * slack)},
        "preferred_min_throughput": {pct: _sig(use.output_tps / slack)},
    }


def _sig(x: float) -> float:
    return float(f"{x:.4g}")


def to_openrouter(
    plan: Plan, sources: Sources
) -> tuple[dict[str, Any], dict[str, Any], dict[str, list[str]], list[str]]:
    """The request bodies, the shares, the unknown options and notes."""
    r = Resolver(plan, sources)
    unknown: dict[str, list[str]] = {}
    notes: list[str] = []
    usd = plan.currency.upper() == "USD"
    if not usd:
        notes.append(f"no max_price: the plan's prices are in {plan.currency}, OpenRouter's in USD")
    requests: dict[str, dict[str, Any]] = {}
    shares: dict[str, dict[str, float]] = {}
    notes += batch_notes(plan, "OpenRouter")
    for w in plan.workloads:
        if w.status != "ok":
            continue
        allocs = [a for a in _allocs(w) if a.price_tier != "batch" and a.reserved is None]
        for a in _allocs(w):
            if a.reserved is not None:
                notes.append(
                    f"{w.id}: {percent(a.share)} on {a.option}: reserved capacity is the vendor's own, not "
                    "OpenRouter's: left out of the export"
                )
        if not allocs:
            continue
        options = list(dict.fromkeys([(x.offering, x.mode) for x in allocs + _runner_ups(w)]))
        targets = {o: r.openrouter(*o) for o in options}
        routes: dict[str, dict[str, Any]] = {}
        seen: dict = {}
        for a in allocs:
            t = targets[(a.offering, a.mode)]
            same = [
                o
                for o in options
                if o != (a.offering, a.mode) and targets[o].params == t.params and targets[o].pinned == t.pinned
            ]
            members = [(a.offering, a.mode), *same]
            for o in members:  # only what is written counts: a runner-up no request takes is not exported
                _note(unknown, targets[o])
            body: dict[str, Any] = {"model": t.model}
            models = [m for m in dict.fromkeys(targets[o].model for o in same) if m != t.model]
            if models:
                body["models"] = models
            body.update(t.params)
            if a.price_tier:  # flex or priority: OpenRouter passes the tier to the provider (best effort)
                body["service_tier"] = a.price_tier
            provider: dict[str, Any] = {}
            if t.pinned:
                slugs = list(dict.fromkeys(targets[o].slug for o in members if targets[o].slug))
                if slugs:
                    provider.update({"order": slugs, "only": slugs})
                provider["allow_fallbacks"] = False
            provider["sort"] = sort_for(plan, w, a)
            provider.update(preferences(plan, w, a))
            infos = [plan.offering_info[o] for o, _ in members if o in plan.offering_info]
            if usd and infos:
                provider["max_price"] = {
                    "prompt": max(i.price_input for i in infos),
                    "completion": max(i.price_output for i in infos),
                }
            body["provider"] = provider
            key = repr(body)
            if key in seen:
                t.problems.append(f"effort: the same request as {seen[key]}")
                _note(unknown, t)
            seen.setdefault(key, t.label)
            routes[_route(t.label, a)] = body
        requests[w.id] = routes
        shares[w.id] = {_route(label(a.offering, a.mode), a): round(a.share, 6) for a in allocs}
    return {"plan": plan.name, "workloads": requests}, {"plan": plan.name, "workloads": shares}, unknown, notes
