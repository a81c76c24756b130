"""An independent implementation of SPEC sections 3 and 4, for checking the planner.

Plain Python on the raw YAML dictionaries, written from the SPEC text without calling the
planner's own arithmetic: option expansion, latency, cost, eligibility, an LP solved with
scipy's HiGHS (with brute force over option subsets for max_options), and a checker that
verifies a plan file against every constraint.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

MINUTES = {"day": 1440, "week": 10080, "month": 43200, "quarter": 129600, "year": 525600}


def _caps(value):
    return {"overall": float(value)} if isinstance(value, (int, float)) else dict(value)


@dataclass
class Pair:
    w: int
    offering: str
    mode: str
    vendor: str
    companies: frozenset  # who bills it and who serves it
    latency: float
    cost: float  # per task
    tokens: float  # per task
    capability: float | None
    eligible: bool
    within: bool  # every task within budget
    frac: float = 1.0  # the share of tasks within budget (of the sample tasks' weight, with a distribution)


def options(catalog: dict) -> list[dict]:
    out = []
    for off in catalog["offerings"]:
        base = _caps(off["capability"])
        speed, thinking = off["speed"], off.get("thinking")
        out.append({"off": off, "mode": "default", "rf": 1.0, "caps": base, "speed": speed, "thinking": thinking})
        for m in off.get("modes", []) or []:
            caps = dict(base)
            if m.get("capability") is not None:
                caps.update(_caps(m["capability"]))
            out.append(
                {
                    "off": off,
                    "mode": m["name"],
                    "rf": m.get("reasoning_factor", 1.0),
                    "caps": caps,
                    "speed": m.get("speed") or speed,
                    "thinking": m.get("thinking") or thinking,
                }
            )
    return out


def floor_of(value, metric: str, catalog: dict):
    """A floor as a number: a bare score, or {like, mode, times}: that model's score times `times`."""
    if value is None or isinstance(value, (int, float)):
        return value
    found = []
    for opt in options(catalog):
        off = opt["off"]
        model = (
            off["model"]
            if opt["mode"] == "default"
            else (next(m for m in off["modes"] if m["name"] == opt["mode"]).get("model") or off["model"])
        )
        mode_ok = opt["mode"] == (value.get("mode") or "default")
        if (
            (off["id"] == value["like"] and mode_ok)
            or (model == value["like"] and (value.get("mode") is None or mode_ok))
        ) and metric in opt["caps"]:
            found.append(opt["caps"][metric])
    return min(100.0, max(found) * value.get("times", 1.0))


def traffic(wl: dict, basis: str) -> float:
    """What a share cap counts per workload: tasks, or the tokens the workload states."""
    if basis == "tasks":
        return wl["tasks"]
    tok = wl["tokens"]
    return wl["tasks"] * wl.get("turns", 1) * (tok["input"] + tok["output"] + tok.get("reasoning", 0))


def budget_of(wl: dict, ws: dict):
    lat = wl.get("latency", {}) or {}
    if lat.get("budget_s") is not None:
        return lat["budget_s"]
    th = {"immediate": 1, "attentive": 10, "background": None}
    th.update(ws.get("thresholds", {}) or {})
    if lat.get("threshold") is not None:
        return th[lat["threshold"]]
    return None


def speed_at(speed: dict, name: str, q: float) -> float:
    """A speed figure at percentile q (SPEC "Traffic as a distribution"): straight lines between the
    measured percentiles, the median at 50; the nearest end beyond them; the median when none."""
    measured = (speed.get("percentiles") or {}).get(name) or {}
    if not measured:
        return speed[name]
    points = sorted({**{int(k): v for k, v in measured.items()}, 50: speed[name]}.items())
    if q <= points[0][0]:
        return points[0][1]
    if q >= points[-1][0]:
        return points[-1][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x0 <= q < x1:
            return y0 + (q - x0) / (x1 - x0) * (y1 - y0)
    raise AssertionError("unreachable")


def at_length(speed: dict, name: str, inp: float) -> float:
    """A median speed figure at `inp` input tokens per call (SPEC "Speeds by prompt length"): straight lines
    in log(input tokens) between the lengths it was measured at (input_tokens and by_input), the nearest
    one's figure outside them; the figure itself when it was measured at one length."""
    at = speed.get("input_tokens")
    points = {int(k): v[name] for k, v in (speed.get("by_input") or {}).items() if v.get(name) is not None}
    if at is None or not points:
        return speed[name]
    points = sorted({**points, at: speed[name]}.items())
    if inp <= points[0][0]:
        return points[0][1]
    if inp >= points[-1][0]:
        return points[-1][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x0 <= inp < x1:
            return y0 + (math.log(inp) - math.log(x0)) / (math.log(x1) - math.log(x0)) * (y1 - y0)
    raise AssertionError("unreachable")


def speed_for(speed: dict, name: str, inp: float, q) -> float:
    """The figure a call of `inp` input tokens is judged at, at percentile q of the figure (None: the
    median): the percentile's figure times the median at the call's length over the median at
    input_tokens (for a first-token time whose median is 0: plus their difference)."""
    median, here = speed[name], at_length(speed, name, inp)
    if q is None:
        return here
    at_q = speed_at(speed, name, q)
    return at_q * here / median if median > 0 else at_q + here - median


def read_tokens(speed: dict) -> float:
    """Input tokens a measured first-token time already reads: the longest length it is measured at; 0
    when the speed states no length."""
    if speed.get("input_tokens") is None:
        return 0.0
    lengths = [int(k) for k, v in (speed.get("by_input") or {}).items() if v.get("ttft_s") is not None]
    return float(max([speed["input_tokens"], *lengths]))


def task_latency(calls, ttft, tps, prefill_tps, inp, out, reasoning, tool, streaming, read=0.0) -> float:
    """One task of `calls` model calls at these speeds, SPEC 3 (v1.2 streaming: to the final call's first
    answer token, after its thinking); `read`: the input tokens ttft already reads (v1.8)."""
    prefill = max(inp - read, 0.0) / prefill_tps if prefill_tps else 0.0
    call = ttft + prefill + (reasoning + out) / tps
    if streaming:
        return (calls - 1) * (call + tool) + ttft + prefill + reasoning / tps
    return calls * call + (calls - 1) * tool


def pairs(ws: dict, catalog: dict, samples: dict | None = None) -> list[list[Pair]]:
    """samples: per distribution file, its sample tasks as (weight, calls, input, output, reasoning,
    cached_input) rows."""
    policy = ws.get("policy", {}) or {}
    result = []
    for w, wl in enumerate(ws["workloads"]):
        tok = wl["tokens"]
        inp, out, reas = tok["input"], tok["output"], tok.get("reasoning", 0)
        c = tok.get("cached_input_share", 0)
        turns = wl.get("turns", 1)
        tool = wl.get("tool_latency_s", 0)
        lat_spec = wl.get("latency", {}) or {}
        budget = budget_of(wl, ws)
        q = lat_spec.get("within_budget_share", 1.0)
        pct = lat_spec.get("percentile")
        tasks = (samples or {})[wl["distribution"]] if wl.get("distribution") else None
        capspec = wl.get("capability", {}) or {}
        metric = capspec.get("metric", "overall")
        floor = floor_of(capspec.get("min"), metric, catalog)
        vend = wl.get("vendors", {}) or {}
        allow, deny = vend.get("allow", []) or [], vend.get("deny", []) or []
        regions = wl.get("regions") if wl.get("regions") is not None else policy.get("regions")
        row = []
        for opt in options(catalog):
            off = opt["off"]
            sp, pr = opt["speed"], off["price"]
            th = opt["thinking"]
            thought = None  # measured thinking tokens: at the median speed (the measurement's)
            if th:
                thought = th["tokens"] if th.get("tokens") is not None else th["seconds"] * sp["output_tps"]

            def reasoning_of(stated, rf=opt["rf"], thought=thought):
                return stated * rf if thought is None else max(stated * rf, thought)

            r = reasoning_of(reas)
            tps = speed_for(sp, "output_tps", inp, None if pct is None else 100 - pct)
            ttft = speed_for(sp, "ttft_s", inp, pct)
            streaming = bool(lat_spec.get("streaming"))
            read = read_tokens(sp)
            latency = task_latency(turns, ttft, tps, sp.get("prefill_tps"), inp, out, r, tool, streaming, read)
            cached_price = pr.get("cached_input", pr["input"])
            if cached_price is None:
                cached_price = pr["input"]
            call_cost = (inp * (1 - c) * pr["input"] + inp * c * cached_price + (r + out) * pr["output"]) / 1e6
            score = opt["caps"].get(metric)
            vendor = off["vendor"]
            ok_vendor = (
                vendor not in (policy.get("deny_vendors") or [])
                and vendor not in deny
                and (not allow or vendor in allow)
            )
            ok_region = True
            if regions:
                ok_region = bool(off.get("regions")) and bool(set(off["regions"]) & set(regions))
            ok_context = off.get("context_window") is None or inp + r + out <= off["context_window"]
            ok_cap = score is not None and (floor is None or score >= floor)
            if tasks is None:
                frac = 1.0 if budget is None or latency <= budget else 0.0
            else:  # the weight of the sample tasks within budget, each at its own calls and tokens
                frac = 1.0
                if budget is not None:
                    inside = sum(
                        wt
                        for wt, calls, i_s, o_s, r_s, _ in tasks
                        if task_latency(
                            calls,
                            speed_for(sp, "ttft_s", i_s, pct),
                            speed_for(sp, "output_tps", i_s, None if pct is None else 100 - pct),
                            sp.get("prefill_tps"),
                            i_s,
                            o_s,
                            reasoning_of(r_s),
                            tool,
                            streaming,
                            read,
                        )
                        <= budget
                    )
                    frac = inside / sum(t[0] for t in tasks)
            within = frac == 1.0
            eligible = ok_vendor and ok_region and ok_context and ok_cap and (within or q < 1)
            row.append(
                Pair(
                    w,
                    off["id"],
                    opt["mode"],
                    vendor,
                    frozenset({vendor, off.get("host") or vendor}),
                    latency,
                    turns * call_cost,
                    turns * (inp + r + out),
                    score,
                    eligible,
                    within,
                    frac,
                )
            )
        result.append(row)
    return result


def peak(wl: dict, ws: dict) -> float:
    if wl.get("peak_tasks_per_minute") is not None:
        return wl["peak_tasks_per_minute"]
    pf = (ws.get("policy", {}) or {}).get("peak_factor", 1.0)
    return wl["tasks"] / MINUTES[ws.get("period", "month")] * pf


TOLERANCE = [1e-10]  # the LP's feasibility tolerances (a list: reference_optimum may loosen it)


def reference_optimum(ws: dict, catalog: dict, samples: dict | None = None, tolerance: float | None = None):
    """The minimum total cost (None when infeasible), by LP; max_options by brute force over subsets.
    tolerance: the LP's feasibility tolerance instead of 1e-10 (a portfolio feasible only at a
    boundary, caps of 30% and 70% filling exactly 100%, is infeasible by a rounding at 1e-10)."""
    saved = TOLERANCE[0]
    TOLERANCE[0] = saved if tolerance is None else tolerance
    try:
        return _over_subsets(ws, catalog, None, samples=samples)
    finally:
        TOLERANCE[0] = saved


def reference_latency(ws: dict, catalog: dict, optimum: float, slowest: bool = False, samples: dict | None = None):
    """SPEC 4's tie rule, second stage: the least (or, with slowest, the greatest) task-weighted latency
    (sum of tasks x latency) over the plans whose cost is the optimum. The cost is capped at the
    optimum itself when the solver's tolerances allow (any slack is spent on speed: with near-free
    options 1e-10 of cost bought 1e-4 of latency), else at the smallest relative slack they do."""
    value = None
    for rel in (0.0, 1e-12, 1e-10, 1e-8, 1e-6):
        value = _over_subsets(ws, catalog, optimum * (1 + rel), -1.0 if slowest else 1.0, samples)
        if value is not None:
            break
    return None if value is None else value * (-1.0 if slowest else 1.0)


def _over_subsets(ws: dict, catalog: dict, cost_cap, sign: float = 1.0, samples: dict | None = None):
    table = pairs(ws, catalog, samples)
    if any(not any(p.eligible for p in row) for row in table):
        return None
    var = [(w, o) for w, row in enumerate(table) for o, p in enumerate(row) if p.eligible]
    choices = []
    for w, wl in enumerate(ws["workloads"]):
        mine = [j for j, (ww, _) in enumerate(var) if ww == w]
        k = wl.get("max_options")
        if k and k < len(mine):
            choices.append([set(s) for s in itertools.combinations(mine, k)])
        else:
            choices.append([set(mine)])
    best = None
    for combo in itertools.product(*choices):
        allowed = set().union(*combo)
        value = _lp(ws, catalog, table, var, allowed, cost_cap, sign)
        if value is not None and (best is None or value < best):
            best = value
    return best


def _lp(ws, catalog, table, var, allowed, cost_cap=None, sign=1.0):
    """Minimum cost; with cost_cap, minimum task-weighted latency among plans costing at most cost_cap."""
    policy = ws.get("policy", {}) or {}
    n = len(var)
    wls = ws["workloads"]
    spend = np.array([wls[w]["tasks"] * table[w][o].cost for w, o in var])
    A_eq, b_eq, A_ub, b_ub = [], [], [], []
    for w, wl in enumerate(wls):
        A_eq.append([1.0 if vw == w else 0.0 for vw, _ in var])
        b_eq.append(1.0)
        lat = wl.get("latency", {}) or {}
        q = lat.get("within_budget_share", 1.0)
        if q < 1 and budget_of(wl, ws) is not None:
            A_ub.append([-table[w][o].frac if vw == w else 0.0 for vw, o in var])
            b_ub.append(-q)
        mm = (wl.get("capability", {}) or {}).get("mean_min")
        if mm is not None:
            A_ub.append([-(table[w][o].capability) if vw == w else 0.0 for vw, o in var])
            b_ub.append(-mm)
        m = wl.get("max_vendor_share")
        if m is not None:
            for v in {c for vw, o in var if vw == w for c in table[w][o].companies}:
                A_ub.append([1.0 if vw == w and v in table[w][o].companies else 0.0 for vw, o in var])
                b_ub.append(m)
    for off in catalog["offerings"]:
        cap = off.get("capacity") or {}
        if cap.get("tokens_per_minute"):
            A_ub.append(
                [peak(wls[w], ws) * table[w][o].tokens if table[w][o].offering == off["id"] else 0.0 for w, o in var]
            )
            b_ub.append(cap["tokens_per_minute"])
        if cap.get("requests_per_minute"):
            A_ub.append(
                [
                    peak(wls[w], ws) * wls[w].get("turns", 1) if table[w][o].offering == off["id"] else 0.0
                    for w, o in var
                ]
            )
            b_ub.append(cap["requests_per_minute"])
    companies = {c for off in catalog["offerings"] for c in (off["vendor"], off.get("host") or off["vendor"])}
    basis = policy.get("share_of", "tokens")
    load = [traffic(wls[w], basis) for w, _ in var]
    total_load = sum(traffic(wl, basis) for wl in wls)
    for v in sorted(companies):
        s = (policy.get("vendor_share") or {}).get(v, policy.get("max_vendor_share"))
        if s is not None:
            on = [1.0 if v in table[w][o].companies else 0.0 for w, o in var]
            if basis == "spend":
                A_ub.append([spend[j] * (on[j] - s) for j in range(n)])
                b_ub.append(0.0)
            else:
                A_ub.append([load[j] * on[j] for j in range(n)])
                b_ub.append(s * total_load)
        cap = (policy.get("vendor_spend") or {}).get(v)
        if cap is not None:
            A_ub.append([spend[j] if v in table[w][o].companies else 0.0 for j, (w, o) in enumerate(var)])
            b_ub.append(cap)
    if policy.get("budget") is not None:
        A_ub.append(list(spend))
        b_ub.append(policy["budget"])
    objective = spend
    free_only = cost_cap is not None and cost_cap <= 0  # a zero optimum: only free options
    if cost_cap is not None and not free_only:  # scaled to 1: the solver's tolerance becomes relative
        A_ub.append(list(spend / cost_cap))
        b_ub.append(1.0)
    if cost_cap is not None:
        objective = sign * np.array([wls[w]["tasks"] * table[w][o].latency for w, o in var])
    bounds = [(0, 1) if j in allowed and not (free_only and spend[j] > 0) else (0, 0) for j in range(n)]
    res = linprog(
        objective,
        A_ub=np.array(A_ub) if A_ub else None,
        b_ub=b_ub or None,
        A_eq=np.array(A_eq),
        b_eq=b_eq,
        bounds=bounds,
        method="highs",
        options={"primal_feasibility_tolerance": TOLERANCE[0], "dual_feasibility_tolerance": TOLERANCE[0]},
    )
    return float(res.fun) if res.status == 0 else None


def check_plan(plan: dict, ws: dict, catalog: dict, tol: float = 1e-6, samples: dict | None = None) -> list[str]:
    """Every SPEC section 4 constraint on an 'optimal' plan file, and the plan's own accounting."""
    problems = []
    table = pairs(ws, catalog, samples)
    policy = ws.get("policy", {}) or {}
    wls = ws["workloads"]
    spend_v: dict[str, float] = {}
    load_v: dict[str, float] = {}
    basis = policy.get("share_of", "tokens")
    total_load = sum(traffic(wl, basis) for wl, wp in zip(wls, plan["workloads"]) if wp["allocations"])
    load_tpm: dict[str, float] = {}
    load_rpm: dict[str, float] = {}
    total = 0.0
    for w, (wl, wp) in enumerate(zip(wls, plan["workloads"])):
        if wp["id"] != wl["id"]:
            problems.append(f"workload order: {wp['id']} != {wl['id']}")
        shares = 0.0
        within = 0.0
        capsum = 0.0
        used = 0
        per_vendor: dict[str, float] = {}
        for a in wp["allocations"]:
            p = next(p for p in table[w] if p.offering == a["offering"] and p.mode == a["mode"])
            if not p.eligible:
                problems.append(f"{wl['id']}: {a['offering']}/{a['mode']} is not eligible")
            if a["share"] <= 1e-9:
                problems.append(f"{wl['id']}: allocation with share {a['share']}")
            used += 1
            s = a["share"]
            shares += s
            within += s * p.frac
            if wl.get("distribution") and (a.get("within_budget_share") is None) != (budget_of(wl, ws) is None):
                problems.append(f"{wl['id']}: {a['offering']}: within_budget_share {a.get('within_budget_share')}")
            elif wl.get("distribution") and budget_of(wl, ws) is not None:
                if not math.isclose(a["within_budget_share"], p.frac, rel_tol=1e-9, abs_tol=1e-12):
                    problems.append(f"{wl['id']}: {a['offering']}: within {a['within_budget_share']} != {p.frac}")
            capsum += s * (p.capability or 0.0)
            for c in p.companies:
                per_vendor[c] = per_vendor.get(c, 0.0) + s
                load_v[c] = load_v.get(c, 0.0) + s * traffic(wl, basis)
            cost = s * wl["tasks"] * p.cost
            if not math.isclose(a["cost"], cost, rel_tol=1e-9, abs_tol=1e-9):
                problems.append(f"{wl['id']}: allocation cost {a['cost']} != {cost}")
            if not math.isclose(a["latency_s"], p.latency, rel_tol=1e-9, abs_tol=1e-12):
                problems.append(f"{wl['id']}: latency {a['latency_s']} != {p.latency}")
            total += cost
            for c in p.companies:
                spend_v[c] = spend_v.get(c, 0.0) + cost
            load_tpm[p.offering] = load_tpm.get(p.offering, 0.0) + s * peak(wl, ws) * p.tokens
            load_rpm[p.offering] = load_rpm.get(p.offering, 0.0) + s * peak(wl, ws) * wl.get("turns", 1)
        if abs(shares - 1) > tol:
            problems.append(f"{wl['id']}: shares sum to {shares}")
        lat = wl.get("latency", {}) or {}
        if lat.get("within_budget_share", 1.0) < 1 and budget_of(wl, ws) is not None:
            if within < lat["within_budget_share"] - tol:
                problems.append(f"{wl['id']}: within-budget share {within}")
        mm = (wl.get("capability", {}) or {}).get("mean_min")
        if mm is not None and capsum < mm - tol * 100:
            problems.append(f"{wl['id']}: mean capability {capsum} < {mm}")
        m = wl.get("max_vendor_share")
        if m is not None and any(x > m + tol for x in per_vendor.values()):
            problems.append(f"{wl['id']}: vendor share {per_vendor} > {m}")
        k = wl.get("max_options")
        if k and used > k:
            problems.append(f"{wl['id']}: {used} options > {k}")
    for off in catalog["offerings"]:
        cap = off.get("capacity") or {}
        if cap.get("tokens_per_minute") and load_tpm.get(off["id"], 0) > cap["tokens_per_minute"] * (1 + tol):
            problems.append(f"{off['id']}: tpm {load_tpm[off['id']]} > {cap['tokens_per_minute']}")
        if cap.get("requests_per_minute") and load_rpm.get(off["id"], 0) > cap["requests_per_minute"] * (1 + tol):
            problems.append(f"{off['id']}: rpm {load_rpm[off['id']]} > {cap['requests_per_minute']}")
    for v, sv in spend_v.items():
        s = (policy.get("vendor_share") or {}).get(v, policy.get("max_vendor_share"))
        if s is not None and basis == "spend" and sv > s * total + tol * max(1.0, total):
            problems.append(f"vendor {v}: spend {sv} > {s} x {total}")
        if s is not None and basis != "spend" and load_v[v] > s * total_load + tol * max(1.0, total_load):
            problems.append(f"vendor {v}: traffic {load_v[v]} > {s} x {total_load}")
        cap = (policy.get("vendor_spend") or {}).get(v)
        if cap is not None and sv > cap * (1 + tol):
            problems.append(f"vendor {v}: spend {sv} > cap {cap}")
    if policy.get("budget") is not None and total > policy["budget"] * (1 + tol):
        problems.append(f"total {total} > budget {policy['budget']}")
    if not math.isclose(plan["total_cost"], total, rel_tol=1e-9, abs_tol=1e-9):
        problems.append(f"total_cost {plan['total_cost']} != sum of allocations {total}")
    return problems
