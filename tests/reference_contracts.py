"""An independent implementation of SPEC "Every way vendors sell (v1.6, issue 19)", for checking the planner.

Plain Python on the raw YAML dictionaries, written from the SPEC text without calling the planner's own
arithmetic: options per offering x mode x (list price, each price tier, inside a reservation), their cost
(long-context prices per call), latency and eligibility; brute force over every integer decision (units of
each reserved commitment, signing of each committed-spend contract, each workload's switch) with one LP
(scipy's HiGHS) per combination; and a checker of a plan file's allocations, commitments and switching.

Scope, by design (the generated instances keep inside it): no regions, context windows, distributions,
percentiles, streaming, thinking, modes with their own speed, mean floors, max_options or vendor share caps.
"""

from __future__ import annotations

import fnmatch
import itertools
import math
from dataclasses import dataclass

import numpy as np
from reference import MINUTES, budget_of, peak, read_tokens, speed_for, task_latency
from scipy.optimize import linprog

BATCH_WINDOW_S = 86400.0  # SPEC: window_s default
LIST = "list"


def _caps(value):
    return {"overall": float(value)} if isinstance(value, (int, float)) else dict(value)


def threshold_without_budget(wl: dict, ws: dict) -> bool:
    """The workload's `threshold` names a class whose budget is null (background)."""
    lat = wl.get("latency") or {}
    name = lat.get("threshold")
    if name is None:
        return False
    th = {"immediate": 1, "attentive": 10, "background": None}
    th.update(ws.get("thresholds") or {})
    return th[name] is None


def covers(commitment: dict, off: dict) -> bool:
    if off["vendor"] != commitment["vendor"]:
        return False
    globs = commitment.get("offerings")
    return globs is None or any(fnmatch.fnmatchcase(off["id"], g) for g in globs)


def is_reserved(commitment: dict) -> bool:
    return "unit" in commitment


def per_period(commitment: dict, value: float, period: str) -> float:
    """A fee or minimum stated per the commitment's period, per the plan's (pro rata by minutes)."""
    own = commitment.get("period") or period
    return value * MINUTES[period] / MINUTES[own]


def call_cost(price: dict, inp: float, out: float, reasoning: float, c: float) -> float:
    """One call at `price`, SPEC 3, with long-context prices for a call whose input is above `above`."""
    long = price.get("long_context")
    if long is not None and inp > long["above"]:
        price = long
    pin, pout = price["input"], price["output"]
    pcached = price.get("cached_input")
    if pcached is None:
        pcached = pin
    return (inp * (1 - c) * pin + inp * c * pcached + (reasoning + out) * pout) / 1e6


@dataclass
class Option:
    off: dict
    mode: str
    rf: float
    caps: dict
    tier: str  # list, batch, flex, priority
    price: dict
    speed: dict | None  # None: batch (a window) or flex without its own speed (unknown)
    window: float | None  # batch
    reserved: str | None  # the reserved commitment whose capacity serves it

    @property
    def route(self) -> tuple[str, str, str]:
        return self.off["id"], self.mode, self.tier


def options(catalog: dict) -> list[Option]:
    """Every option: per offering, per mode, the list price, each tier, inside a reservation."""
    reserved = [c for c in catalog.get("commitments") or [] if is_reserved(c)]
    out = []
    for off in catalog["offerings"]:
        base = _caps(off["capability"])
        modes = [("default", 1.0, base)]
        for m in off.get("modes") or []:
            caps = dict(base)
            if m.get("capability") is not None:
                caps.update(_caps(m["capability"]))
            modes.append((m["name"], m.get("reasoning_factor", 1.0), caps))
        for name, rf, caps in modes:
            out.append(Option(off, name, rf, caps, LIST, off["price"], off["speed"], None, None))
            for t in off.get("price_tiers") or []:
                if t["name"] == "batch":
                    window = t.get("window_s") or BATCH_WINDOW_S
                    out.append(Option(off, name, rf, caps, "batch", t["price"], None, window, None))
                elif t["name"] == "flex":
                    out.append(Option(off, name, rf, caps, "flex", t["price"], t.get("speed"), None, None))
                else:  # priority: its own speed, else the offering's
                    out.append(
                        Option(off, name, rf, caps, "priority", t["price"], t.get("speed") or off["speed"], None, None)
                    )
            for c in reserved:
                if covers(c, off):
                    out.append(Option(off, name, rf, caps, LIST, off["price"], off["speed"], None, c["id"]))
    return out


@dataclass
class Pair:
    w: int
    opt: Option
    latency: float
    cost: float  # per task
    tokens: float  # per task
    capability: float | None
    eligible: bool
    within: bool  # every task within budget (the latency share row)
    reasons: list[str]


def pairs(ws: dict, catalog: dict) -> list[list[Pair]]:
    policy = ws.get("policy") or {}
    factor = {c["id"]: c.get("price_factor", 0.0) for c in catalog.get("commitments") or [] if is_reserved(c)}
    table = []
    for w, wl in enumerate(ws["workloads"]):
        tok = wl["tokens"]
        inp, out, reas = tok["input"], tok["output"], tok.get("reasoning", 0)
        c = tok.get("cached_input_share", 0)
        turns = wl.get("turns", 1)
        tool = wl.get("tool_latency_s", 0)
        lat = wl.get("latency") or {}
        budget = budget_of(wl, ws)
        q = lat.get("within_budget_share", 1.0)
        capspec = wl.get("capability") or {}
        metric = capspec.get("metric", "overall")
        floor = capspec.get("min")
        vend = wl.get("vendors") or {}
        allow, deny = vend.get("allow") or [], vend.get("deny") or []
        row = []
        for opt in options(catalog):
            off = opt.off
            r = reas * opt.rf
            reasons = []
            if opt.tier == "batch":
                latency = turns * opt.window + (turns - 1) * tool
                ok = (budget is not None and budget >= latency) or threshold_without_budget(wl, ws)
                within = ok
                if not ok:
                    reasons.append("batch")
            else:
                sp = opt.speed or off["speed"]  # flex without a speed: the list speed as a lower bound
                tps, ttft = speed_for(sp, "output_tps", inp, None), speed_for(sp, "ttft_s", inp, None)
                latency = task_latency(
                    turns, ttft, tps, sp.get("prefill_tps"), inp, out, r, tool, False, read_tokens(sp)
                )
                within = budget is None or latency <= budget
                if opt.tier == "flex" and opt.speed is None:
                    ok = budget is None
                    if not ok:
                        reasons.append("flex without speed")
                else:
                    ok = within or q < 1
                    if not ok:
                        reasons.append("latency")
            cost = turns * call_cost(opt.price, inp, out, r, c)
            if opt.reserved is not None:
                cost *= factor[opt.reserved]
            vendor = off["vendor"]
            if vendor in (policy.get("deny_vendors") or []) or vendor in deny or (allow and vendor not in allow):
                reasons.append("vendor")
            score = opt.caps.get(metric)
            if score is None or (floor is not None and score < floor):
                reasons.append("capability")
            row.append(
                Pair(
                    w, opt, latency, cost, turns * (inp + r + out), score, not reasons, within and not reasons, reasons
                )
            )
        table.append(row)
    return table


def switch_cost_of(wl: dict, ws: dict) -> float:
    own = wl.get("switch_cost")
    if own is not None:
        return own
    return (ws.get("policy") or {}).get("switch_cost") or 0.0


def reference_optimum(ws: dict, catalog: dict, previous: dict | None = None):
    """The least money + switch costs over every integer decision (None: no plan).

    previous: workload id -> set of routes (offering, mode, tier) of the plan switched from."""
    best = _search(ws, catalog, previous)
    return None if best is None else best[0]


def reference_decisions(ws: dict, catalog: dict, previous: dict | None = None):
    """(optimum, units, signed, switched) of the best combination (the first found among ties)."""
    return _search(ws, catalog, previous)


def _search(ws, catalog, previous):
    table = pairs(ws, catalog)
    if any(not any(p.eligible for p in row) for row in table):
        return None
    comms = catalog.get("commitments") or []
    reserved = [c for c in comms if is_reserved(c)]
    spend = [c for c in comms if not is_reserved(c)]
    previous = previous or {}
    movers = [w for w, wl in enumerate(ws["workloads"]) if wl["id"] in previous and switch_cost_of(wl, ws) > 0]
    best = None
    for units in itertools.product(*[range(c["max_units"] + 1) for c in reserved]):
        for signed in itertools.product((0, 1), repeat=len(spend)):
            for switched in itertools.product((0, 1), repeat=len(movers)):
                value = _lp(
                    ws,
                    catalog,
                    table,
                    dict(zip([c["id"] for c in reserved], units)),
                    dict(zip([c["id"] for c in spend], signed)),
                    dict(zip(movers, switched)),
                    previous,
                )
                if value is not None and (best is None or value < best[0] - 1e-9 * max(1.0, abs(value))):
                    best = (value, units, signed, switched)
    return best


def _lp(ws, catalog, table, units, signed, switched, previous):
    """Least money + switch costs with every integer decision fixed; None when infeasible."""
    policy = ws.get("policy") or {}
    period = ws.get("period", "month")
    wls = ws["workloads"]
    var = [(w, o) for w, row in enumerate(table) for o, p in enumerate(row) if p.eligible]
    comms = {c["id"]: c for c in catalog.get("commitments") or []}
    signed_ids = [cid for cid, s in signed.items() if s]
    n = len(var) + 2 * len(signed_ids)  # shares, then (discounted, shortfall) per signed contract
    money = np.zeros(n)
    for j, (w, o) in enumerate(var):
        money[j] = wls[w]["tasks"] * table[w][o].cost
    fixed = 0.0  # fees and switch costs
    for cid, u in units.items():
        fixed += u * per_period(comms[cid], comms[cid]["unit"]["fee"], period)
    bounds = [(0, 1)] * len(var) + [(0, None)] * (2 * len(signed_ids))
    A_eq, b_eq, A_ub, b_ub = [], [], [], []

    def row():
        return np.zeros(n)

    for w in range(len(wls)):
        r = row()
        for j, (vw, _) in enumerate(var):
            if vw == w:
                r[j] = 1.0
        A_eq.append(r)
        b_eq.append(1.0)
        lat = wls[w].get("latency") or {}
        q = lat.get("within_budget_share", 1.0)
        if q < 1 and budget_of(wls[w], ws) is not None:
            r = row()
            for j, (vw, o) in enumerate(var):
                if vw == w and table[w][o].within:
                    r[j] = -1.0
            A_ub.append(r)
            b_ub.append(-q)
    for off in catalog["offerings"]:  # batch and reserved shares are not in the offering's limits
        cap = off.get("capacity") or {}
        for key, per in (("tokens_per_minute", "tokens"), ("requests_per_minute", "requests")):
            if not cap.get(key):
                continue
            r = row()
            for j, (w, o) in enumerate(var):
                p = table[w][o]
                if p.opt.off["id"] == off["id"] and p.opt.tier != "batch" and p.opt.reserved is None:
                    r[j] = peak(wls[w], ws) * (p.tokens if per == "tokens" else wls[w].get("turns", 1))
            A_ub.append(r)
            b_ub.append(cap[key])
    for cid, u in units.items():  # row reserved:<id>
        r = row()
        for j, (w, o) in enumerate(var):
            if table[w][o].opt.reserved == cid:
                r[j] = peak(wls[w], ws) * table[w][o].tokens
        A_ub.append(r)
        b_ub.append(u * comms[cid]["unit"]["tokens_per_minute"])
    for k, cid in enumerate(signed_ids):
        c = comms[cid]
        g, s = len(var) + 2 * k, len(var) + 2 * k + 1
        r = row()  # discounted <= list spend on the options it covers (not inside a reservation)
        for j, (w, o) in enumerate(var):
            p = table[w][o]
            if p.opt.reserved is None and covers(c, p.opt.off):
                r[j] = -money[j]
        r[g] = 1.0
        A_ub.append(r)
        b_ub.append(0.0)
        r = row()  # min_spend x signed - (1 - discount) x discounted - shortfall <= 0
        r[g] = -(1 - c["discount"])
        r[s] = -1.0
        A_ub.append(r)
        b_ub.append(-per_period(c, c["min_spend"], period))
        money[g] = -c["discount"]
        money[s] = 1.0
    for w, moved in switched.items():
        if moved:
            fixed_switch = switch_cost_of(wls[w], ws)
            fixed += fixed_switch
        else:  # no share on a route the previous plan did not use
            old = previous[wls[w]["id"]]
            for j, (vw, o) in enumerate(var):
                if vw == w and table[w][o].opt.route not in old:
                    bounds[j] = (0, 0)
    vendor_fees = sum(u * per_period(comms[cid], comms[cid]["unit"]["fee"], period) for cid, u in units.items())
    if policy.get("budget") is not None:
        A_ub.append(money.copy())
        b_ub.append(policy["budget"] - vendor_fees)
    res = linprog(
        money,
        A_ub=np.array(A_ub) if A_ub else None,
        b_ub=b_ub or None,
        A_eq=np.array(A_eq),
        b_eq=b_eq,
        bounds=bounds,
        method="highs",
        options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10},
    )
    return float(res.fun) + fixed if res.status == 0 else None


def _close(a: float, b: float, tol: float = 1e-6) -> bool:
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def check_plan(plan: dict, ws: dict, catalog: dict, previous: dict | None = None, tol: float = 1e-6) -> list[str]:
    """The v1.6 rules on an 'optimal' plan file: every allocation names an eligible option (its price tier
    included), shares sum to 1, reservations carry their shares, costs are tasks x share x price (after
    the discount, or x price_factor inside a reservation), total_cost = allocations + fees + shortfalls,
    switching.cost = the switch costs of the workloads that moved."""
    problems = []
    table = pairs(ws, catalog)
    wls = ws["workloads"]
    period = ws.get("period", "month")
    comms = {c["id"]: c for c in catalog.get("commitments") or []}
    used = {c["id"]: c for c in plan.get("commitments") or []}
    if set(used) != set(comms):
        problems.append(f"commitments {sorted(used)} != catalog's {sorted(comms)}")
        return problems
    load_res: dict[str, float] = {}
    load_tpm: dict[str, float] = {}
    list_spend: dict[str, float] = {}
    total = 0.0
    moved_cost = 0.0
    previous = previous or {}
    for w, (wl, wp) in enumerate(zip(wls, plan["workloads"])):
        if wp["id"] != wl["id"]:
            problems.append(f"workload order: {wp['id']} != {wl['id']}")
        shares = 0.0
        moved = False
        for a in wp["allocations"]:
            tier = a.get("price_tier") or LIST
            if tier == LIST and "price_tier" in a:
                problems.append(f"{wl['id']}: price_tier written for the list price")
            found = [
                p
                for p in table[w]
                if (p.opt.off["id"], p.opt.mode, p.opt.tier, p.opt.reserved)
                == (a["offering"], a["mode"], tier, a.get("reserved"))
            ]
            if len(found) != 1:
                problems.append(f"{wl['id']}: no option {a['offering']}/{a['mode']}/{tier}/{a.get('reserved')}")
                continue
            p = found[0]
            if not p.eligible:
                problems.append(f"{wl['id']}: {a['offering']}/{a['mode']}/{tier} is not eligible: {p.reasons}")
            if not _close(a["latency_s"], p.latency, 1e-9):
                problems.append(f"{wl['id']}: {a['offering']}/{tier}: latency {a['latency_s']} != {p.latency}")
            if tier == "batch" and (a.get("output_tps") is not None or a.get("ttft_s") is not None):
                problems.append(f"{wl['id']}: a batch option with a speed {a.get('output_tps')}, {a.get('ttft_s')}")
            s = a["share"]
            shares += s
            if p.opt.route not in previous.get(wl["id"], {p.opt.route}):
                moved = True
            cost = s * wl["tasks"] * p.cost  # reserved: p.cost is already x price_factor
            d = a.get("discounted")
            if d is not None:
                c = comms.get(d)
                if (
                    c is None
                    or is_reserved(c)
                    or p.opt.reserved is not None
                    or not covers(c, p.opt.off)
                    or not used[d]["signed"]
                ):
                    problems.append(f"{wl['id']}: discounted by {d}, which does not discount it")
                else:
                    list_spend[d] = list_spend.get(d, 0.0) + cost
                    cost *= 1 - c["discount"]
            elif p.opt.reserved is None:
                for cid, c in comms.items():
                    if not is_reserved(c) and covers(c, p.opt.off) and used[cid]["signed"]:
                        problems.append(f"{wl['id']}: {a['offering']} not discounted under signed {cid}")
            if not _close(a["cost"], cost, 1e-9):
                problems.append(f"{wl['id']}: {a['offering']}/{tier}: cost {a['cost']} != {cost}")
            total += cost
            if p.opt.reserved is not None:
                load_res[p.opt.reserved] = load_res.get(p.opt.reserved, 0.0) + s * peak(wl, ws) * p.tokens
            elif tier != "batch":
                oid = p.opt.off["id"]
                load_tpm[oid] = load_tpm.get(oid, 0.0) + s * peak(wl, ws) * p.tokens
        if abs(shares - 1) > tol:
            problems.append(f"{wl['id']}: shares sum to {shares}")
        if moved and switch_cost_of(wl, ws) > 0:
            moved_cost += switch_cost_of(wl, ws)
    for off in catalog["offerings"]:
        cap = (off.get("capacity") or {}).get("tokens_per_minute")
        if cap and load_tpm.get(off["id"], 0.0) > cap * (1 + tol):
            problems.append(f"{off['id']}: tpm {load_tpm[off['id']]} > {cap}")
    extra = 0.0
    for cid, c in comms.items():
        u = used[cid]
        if is_reserved(c):
            units = u["units"]
            if not (isinstance(units, int) and 0 <= units <= c["max_units"]):
                problems.append(f"{cid}: units {units}")
                continue
            if u["signed"] != (units > 0):
                problems.append(f"{cid}: signed {u['signed']} with {units} units")
            capacity = units * c["unit"]["tokens_per_minute"]
            if load_res.get(cid, 0.0) > capacity * (1 + tol) + tol:
                problems.append(f"{cid}: reserved peak {load_res.get(cid, 0.0)} > {units} units = {capacity}")
            fee = units * per_period(c, c["unit"]["fee"], period)
            if not _close(u["cost"], fee):
                problems.append(f"{cid}: cost {u['cost']} != fees {fee}")
            extra += fee
        else:
            if u["signed"]:
                minimum = per_period(c, c["min_spend"], period)
                shortfall = max(0.0, minimum - (1 - c["discount"]) * list_spend.get(cid, 0.0))
                if not _close(u["shortfall"] or 0.0, shortfall):
                    problems.append(f"{cid}: shortfall {u['shortfall']} != {shortfall}")
                if not _close(u["cost"], shortfall):
                    problems.append(f"{cid}: cost {u['cost']} != its shortfall {shortfall}")
                extra += shortfall
            elif u.get("shortfall"):
                problems.append(f"{cid}: unsigned with a shortfall {u['shortfall']}")
    total += extra
    policy = ws.get("policy") or {}
    if policy.get("budget") is not None and total > policy["budget"] * (1 + tol):
        problems.append(f"total {total} > budget {policy['budget']}")
    if not _close(plan["total_cost"], total, 1e-9):
        problems.append(f"total_cost {plan['total_cost']} != allocations + fees + shortfalls {total}")
    if previous:
        sw = plan.get("switching") or {}
        paid = sw.get("cost")
        if paid is None or not _close(paid, moved_cost):
            problems.append(f"switching.cost {paid} != switch costs of the moved workloads {moved_cost}")
        new = [wl["id"] for wl in wls if wl["id"] not in previous]
        if sorted(sw.get("new") or []) != sorted(new):
            problems.append(f"switching.new {sw.get('new')} != {new}")
        for w, wl in enumerate(wls):
            if wl["id"] in previous and switch_cost_of(wl, ws) > 0:
                stuck = not any(p.eligible and p.opt.route in previous[wl["id"]] for p in table[w])
                if stuck != (wl["id"] in (sw.get("forced") or [])):
                    problems.append(f"{wl['id']}: forced {not stuck} in the plan, {stuck} here")
    return problems
