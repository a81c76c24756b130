"""Render plans as self-contained HTML: autoescaped jinja2, inline CSS and SVG, no scripts."""

from __future__ import annotations

import math
from functools import lru_cache

from planner.core import fmt
from planner.plan.model import Plan, estimated_fields, estimated_figures, overlaid_figures
from planner.plan.trim import charted


def _compiled(jinja2):
    """Templates compiled once per user, not once per run (what it saves: benchmarks/RESULTS.md, issue 29):
    jinja2's bytecode cache in files.cache_dir, its entries checked against each template's source and
    the Python version, the folder named for this module's text (the environment's options) and jinja2's
    version. None when there is no cache folder; an entry that cannot be read is compiled again,
    one that cannot be written is skipped."""
    import hashlib
    from pathlib import Path

    import jinja2.bccache

    from planner.core.files import cache_dir

    this = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]  # _env's options are in this file
    folder = cache_dir(f"templates-{this}-jinja2-{jinja2.__version__}")
    if folder is None:
        return None

    class Kept(jinja2.bccache.FileSystemBytecodeCache):
        def load_bytecode(self, bucket) -> None:
            try:
                super().load_bytecode(bucket)
            except Exception:  # a damaged entry (a crash mid-write): compiled again, and written anew
                bucket.reset()

        def dump_bytecode(self, bucket) -> None:
            try:
                super().dump_bytecode(bucket)
            except OSError:  # a full or read-only disk: the next run compiles again
                pass

    return Kept(str(folder), "%s.cache")


@lru_cache(maxsize=1)
def _env():
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("planner.outputs.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        bytecode_cache=_compiled(jinja2),
    )
    env.filters.update(
        money=fmt.money,
        seconds=fmt.seconds,
        percent=fmt.percent,
        num=fmt.count,
        logpos=_logpos,
        signed=fmt.signed_percent,
        option=fmt.option,
        change=fmt.money_change,
        amount=fmt.in_unit,
        figure_any=_figure_any,
        short=fmt.short,
        ordinal=fmt.ordinal,
        abs=abs,
    )
    env.globals["estimated"] = estimated_figures
    env.globals["shares_apart"] = fmt.shares_apart
    env.globals["estimated_fields"] = estimated_fields
    env.globals["overlaid"] = overlaid_figures
    return env


BUY_ROWS = 25  # workloads in the summary's table of routes (the largest spends, and any infeasible)
RISKS = 5  # risks in the summary
CAPS = ("vendor_share", "vendor_spend_share", "vendor_spend")  # a company's binding caps
OVERLAY_ROWS = 40  # changes listed per overlay in the report; the plan file has all
CARDS = 60  # workload cards (and their break-even rows) in one report; a table lists every workload
BASELINE_MISSES = 12  # per baseline rule, the workloads listed where it breaks something
LOG_MIN, LOG_MAX = 0.1, 1000.0  # seconds, the span of the latency strips


def _figure_any(v) -> str:
    """An overlay's before or after value: figures as fmt writes them, lists joined, none as a dash."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, int | float):
        return fmt.figure(float(v), 6)
    if isinstance(v, list):
        return ", ".join(str(x) for x in v) or "none"
    return str(v)


def _logpos(x) -> float:
    """Position 0..100 (%) of a latency on the strip's log scale."""
    if x is None or x <= 0:
        return 0.0
    x = min(max(x, LOG_MIN), LOG_MAX)
    return round(100 * (math.log10(x) - math.log10(LOG_MIN)) / (math.log10(LOG_MAX) - math.log10(LOG_MIN)), 2)


def render_plan_report(plan: Plan) -> str:
    from planner.outputs.report import charts

    charts.reset_ids()
    compounding = {w.id: charts.compounding_chart(plan, w) for w in charted(plan.workloads)}
    cards = plan.workloads
    if len(cards) > CARDS:  # large portfolios: cards for the largest spends and every infeasible workload
        keep = {w.id for w in sorted(cards, key=lambda w: (w.status == "ok", -w.cost, w.id))[:CARDS]}
        cards = [w for w in cards if w.id in keep]
    buy = sorted(plan.workloads, key=lambda w: (w.status == "ok", -w.cost, w.id))[:BUY_ROWS]
    return (
        _env()
        .get_template("plan.html.j2")
        .render(
            plan=plan,
            compounding=compounding,
            cards=cards,
            carded={w.id for w in cards},
            number={w.id: k for k, w in enumerate(plan.workloads, 1)},
            buy=buy,
            buy_more=len(buy) < len(plan.workloads),
            buy_shown=len(buy),
            risk_count=RISKS,
            capped={b.constraint.split(":", 1)[1] for b in plan.binding if b.constraint.split(":")[0] in CAPS},
            overlay_rows=OVERLAY_ROWS,
            baselines_svg=charts.baselines_chart(plan),
            vendors_svg=charts.vendor_chart(plan),
            strip_ticks=[0.1, 1, 10, 100, 1000],
            baseline_misses=BASELINE_MISSES,
            deploys=_deploys(plan, cards),
            fees=_reserved_fees(plan),
        )
    )


def _reserved_fees(plan: Plan) -> dict[str, str]:
    """Per commitment whose reserved units the plan buys: its fees in words, as the routes it serves show
    them beside their $0 of tokens (the fees are paid once, in the plan's total, not per workload)."""
    cur = plan.currency
    out = {}
    for c in plan.commitments or []:
        if c.kind != "reserved" or not c.units:
            continue
        users = [w.id for w in plan.workloads if any(a.reserved == c.id for a in w.allocations)]
        shared = f"shared by {fmt.joined(users)}" if len(users) > 1 else f"used by {users[0]}" if users else "unused"
        out[c.id] = (
            f"{c.id}: {c.units} unit{'s' if c.units != 1 else ''} × {fmt.money(c.fee, cur)} = "
            f"{fmt.money(c.cost, cur)} a {plan.period} in fees, {shared}; its tokens cost nothing more, "
            "so its routes show $0 and the fees count once, in the plan's total"
        )
    return out


def _deploys(plan: Plan, cards) -> dict[str, str]:
    """How each route of the carded workloads deploys (SPEC "Deployability"): the id each gateway is sent,
    or that it has none; a batch share goes through the vendor's batch API."""
    from planner.market.addressing import Resolver
    from planner.market.gateway_ids import packaged_sources

    resolver = Resolver(plan.offering_info, packaged_sources())
    out: dict[str, str] = {}
    for a in (a for w in cards for a in w.allocations):
        if a.option in out or a.offering not in plan.offering_info:
            continue
        if a.price_tier == "batch":
            out[a.option] = "the vendor's batch API (no gateway route)"
            continue
        parts = []
        for gateway in ("litellm", "openrouter"):
            t = (
                resolver.litellm(a.offering, a.mode)
                if gateway == "litellm"
                else resolver.openrouter(a.offering, a.mode)
            )
            if resolver.problems(gateway, a.offering, a.mode, a.price_tier or "list", a.reserved):
                parts.append(f"no {gateway} route")
            else:
                parts.append(f"{gateway} {t.model}" + (" (not in litellm's price table)" if t.unpriced else ""))
        out[a.option] = "; ".join(parts)
    return out


def render_whatif_report(base: Plan, results) -> str:
    return _env().get_template("whatif.html.j2").render(base=base, results=results)


def render_compare_report(comparison) -> str:
    return _env().get_template("compare.html.j2").render(c=comparison)


def _grouped(rows: list) -> list:
    """A frontier table's rows with each run of three or more points without a plan as one line
    ("x0.1 to x0.848: no plan at any of 14 points")."""
    out: list = []
    run: list = []
    for p in [*rows, None]:
        if p is not None and not p.feasible and not p.today:
            run.append(p)
            continue
        if len(run) >= 3:
            out.append(f"{run[0].label} to {run[-1].label}: no plan at any of these {len(run)} points")
        else:
            out.extend(run)
        run = []
        if p is not None:
            out.append(p)
    return out


def render_frontier_report(frontier) -> str:
    from planner.outputs.report import charts

    charts.reset_ids()
    return (
        _env()
        .get_template("frontier.html.j2")
        .render(
            f=frontier,
            grouped=_grouped,
            latency_svg=charts.frontier_chart(frontier, "latency"),
            capability_svg=charts.frontier_chart(frontier, "capability"),
        )
    )


def render_replay_report(result, source: str, rules: list[str]) -> str:
    """The replay: per workload its routes, cost, percentiles and share within budget against the
    plan's promise, and its latency curve."""
    from planner.outputs.report import charts

    charts.reset_ids()
    curves = {w.id: charts.replay_chart(w, result.plan.thresholds) for w in result.workloads[:CARDS]}
    return (
        _env()
        .get_template("replay.html.j2")
        .render(r=result, plan=result.plan, source=source, rules=rules, curves=curves, cards=result.workloads[:CARDS])
    )
