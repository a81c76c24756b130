"""What the commands that show one plan or its inputs print on a terminal: a plan's summary (`solve`),
`explain`'s options, `catalog show` and rows as a table, JSON or CSV; rich tables at 100 columns or
wider. What sets plans side by side (what-if, compare, frontier, replay) is comparisons.py's."""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

from rich.cells import cell_len

from planner.core.fmt import cell, count, figure, money, percent, seconds, short, visible, who
from planner.optimize.options import Options
from planner.outputs.console import (
    TABLE_ROWS,
    console,
    fit_widths,
    input_row,
    say,
    styled,
    titled_table,
    wrap_at_separators,
)
from planner.outputs.tables import allocations_csv, rows_csv, rows_json
from planner.plan.model import Plan

RISKS = 5  # risks a summary lists; the plan file and the report carry all


def print_plan(plan: Plan, fmt: str, paths: dict[str, Path], *, text: str) -> None:
    """The plan as its summary (the total against simple rules, the routes with who serves them,
    spend by company, the top risks and what to do), its file as JSON (`text`, as written: trimmed
    unless --full), or its allocations as CSV."""
    if fmt == "json":
        sys.stdout.write(text)
        return
    if fmt == "csv":
        sys.stdout.write(allocations_csv(plan))
        return
    cur = plan.currency
    out = console()
    relaxed = " under the smallest relaxation" if plan.status == "infeasible" else ""
    say(
        out,
        f"{plan.name}: {_status_words(plan)}, "
        f"{money(plan.total_cost, cur)} a {plan.period}{relaxed} · catalog {plan.inputs.catalog} "
        f"({plan.inputs.as_of or 'date unknown'})"
        + "".join(f" + overlay {o.name} ({len(o.changes)} changes)" for o in plan.overlays),
    )
    for b in plan.baselines:
        misses = f", breaks the rules of {b.misses} workload{'s' if b.misses != 1 else ''}" if b.misses else ""
        say(out, f"  against {b.label}: {money(b.total_cost, cur)}{misses}", "  ")
    if plan.deployability is not None and plan.status != "infeasible":  # (infeasible: in the diagnosis)
        say(out, f"  {plan.deployability.text}", "  ")
    out.print(_routes_table(plan, out.width))
    if plan.vendors:
        shown = " · ".join(f"{v.vendor} {money(v.spend, cur)} ({percent(v.share)})" for v in plan.vendors[:8])
        more = f" · {len(plan.vendors) - 8} more" if len(plan.vendors) > 8 else ""
        say(out, f"spend by company: {shown}{more}")
    for c in plan.commitments or ():
        say(out, f"commitment {c.id} ({c.vendor}): {c.text}", "  ")
    if plan.switching is not None:
        for line in switching_lines(plan):
            say(out, line, "  ")
    for line in plan.diagnosis[:TABLE_ROWS]:
        say(out, f"! {line}", style="yellow")
    if plan.risks:
        out.print("top risks:")
        for k, r in enumerate(plan.risks[:RISKS], 1):
            say(out, f"{k}. [{r.severity}] {r.text}", style="red" if r.severity == "high" else "yellow")
            say(out, f"   do: {r.action}", "   ")
        if len(plan.risks) > RISKS:
            out.print(visible(f"   and {len(plan.risks) - RISKS} more in the report"))
    for b in sorted(plan.binding, key=lambda b: -(b.worth or 0))[:TABLE_ROWS]:
        if plan.status != "infeasible" and b.worth is not None and b.worth >= 0.005:
            say(out, f"binding: {b.label or b.constraint}: {b.meaning}")
    out.print(visible(f"plan:   {paths['plan']}") + "\n" + visible(f"report: {paths['report']}"))


def _status_words(plan: Plan) -> str:
    if plan.status == "optimal":
        return "optimal"
    if plan.status == "feasible" and plan.solver.time_limit is None:
        return "not proven optimal: a re-solve of the review found a cheaper plan (see the plan's assumptions)"
    if plan.status == "feasible":
        gap = plan.solver.gap
        within = f"within {percent(gap)} of optimal" if gap is not None else "gap not reported by the solver"
        return f"best plan found in the {seconds(plan.solver.time_limit or 0)} limit, not proven optimal ({within})"
    return "no feasible plan"


def switching_lines(plan: Plan, most: int = 5) -> list[str]:
    """The moves a plan made from the --from plan and the ones it declined, with their savings."""
    sw, cur, per = plan.switching, plan.currency, plan.period
    if sw is None:
        return []
    lines = [
        f"from {sw.from_plan}: {len(sw.moved)} workload(s) moved, {len(sw.declined)} move(s) declined; "
        f"switching costs {money(sw.cost, cur)} this {per}"
    ]
    for m in sw.moved[:most]:
        lines.append(
            f"moved {m.workload}: {', '.join(m.before)} -> {', '.join(m.after)}; "
            + (f"saves {money(m.saving, cur)} a {per}, " if m.saving is not None else "")
            + f"switch {money(m.switch_cost, cur)}"
        )
    for m in sw.declined[:most]:
        lines.append(
            f"declined {m.workload}: -> {', '.join(m.after)} would save {money(m.saving, cur)} a {per}, "
            f"less than its switch cost {money(m.switch_cost, cur)}"
        )
    return lines


def _routes_table(plan: Plan, width: int):
    """One row per route: the workload and its budget (on its first route), the option, who bills
    and serves it, its share, latency and cost; the largest spends when there are many. Option ids
    break only at their separators, so a host is never split."""
    from rich.text import Text

    cur = plan.currency
    shown = plan.workloads
    if len(shown) > TABLE_ROWS:  # the largest spends and every infeasible workload; the rest is in the report
        keep = {w.id for w in sorted(shown, key=lambda w: (w.status == "ok", -w.cost))[:TABLE_ROWS]}
        shown = [w for w in shown if w.id in keep]
    rows = []
    shown = sorted(shown, key=lambda w: (w.status == "ok", -w.cost, w.id))  # as the report's summary
    for w in shown:
        budget = f"budget {seconds(w.budget_s)}" if w.budget_s else "no budget"
        if w.within_budget_share_required < 1 and w.budget_s:
            budget += f" for {percent(w.within_budget_share_required)}"
        if w.status != "ok":
            rows.append((w.id, budget, None, "-", "-", "-", "-"))
            continue
        for k, a in enumerate(sorted(w.allocations, key=lambda a: (-a.share, a.offering, a.mode))):
            over = "" if a.within_budget or not w.budget_s else " over"
            if a.within_budget_share is not None and a.within_budget_share < 1:  # sample tasks: how many are in
                over = f" ({percent(a.within_budget_share)} in)"
            rows.append(
                (
                    w.id if k == 0 else "",
                    budget if k == 0 else "",
                    a.option,
                    a.who,
                    percent(a.share),
                    ("≤" if a.price_tier == "batch" else "") + seconds(a.latency_s) + over,  # (a batch window)
                    money(a.cost, cur),
                )
            )
    heads = ("workload · budget", "option", "company", "share", "latency", f"cost/{plan.period}")
    fixed = [
        min(20, max(len(heads[0]), *(max(len(r[0]), len(r[1])) for r in rows))),
        min(18, max(len(heads[2]), *(len(r[3]) for r in rows))),
        *(max(len(heads[k]), *(len(r[k + 1]) for r in rows)) for k in (3, 4, 5)),
    ]
    room = max(16, width - sum(fixed) - 3 * len(heads) - 1)
    table = titled_table("")
    table.add_column(heads[0], overflow="fold", width=fixed[0])
    table.add_column(heads[1], overflow="fold", width=min(room, max(len(heads[1]), *(len(r[2] or "") for r in rows))))
    table.add_column(heads[2], overflow="fold", width=fixed[1])
    for head in heads[3:]:
        table.add_column(head, justify="right", no_wrap=True)
    for wid, budget, opt, company, share, latency, cost in rows:
        who = Text(visible(wid) + ("\n" if wid else ""))
        who.append(visible(budget), style="dim")
        if opt is None:
            table.add_row(who, styled("no eligible option", "red"), company, share, latency, cost)
            continue
        table.add_row(who, wrap_at_separators(visible(opt), room), visible(company), share, latency, cost)
    if len(shown) < len(plan.workloads):
        table.caption = f"{len(shown)} of {len(plan.workloads)} workloads: the largest spends and any infeasible"
    return table


def print_rows(rows: list[dict[str, Any]], fmt: str, title: str = "") -> None:
    """Rows as a table, JSON or CSV."""
    if fmt == "json":
        sys.stdout.write(rows_json(rows))
        return
    if fmt == "csv":
        sys.stdout.write(rows_csv(rows))
        return
    table = titled_table(title)
    for col in rows[0] if rows else {}:
        table.add_column(col)
    for r in rows:
        input_row(table, *[cell(v) for v in r.values()])
    console().print(table)


HEAD_MAX = 16  # a figures column is as wide as its header up to this; a longer header folds


def print_catalog(catalog, opts: Options, metrics: list[str], title: str, metric: str | None) -> None:
    """catalog show as a table people can read at 100 columns, below what each capability metric is
    (tables.metric_lines): one line an option whenever its id fits, one metric's score (the full
    figures, the model names and every metric are in --format json|csv)."""
    from rich import box
    from rich.table import Table

    out = console()
    for line in metrics:
        out.print(visible(line))
    out.print(visible(f"{title}: {len(opts)} options; capability: {metric or 'none'}"))
    offerings = [catalog.offerings[int(i)] for i in opts.offering_index]
    score = opts.score(metric) if metric else None
    limits = any(o.capacity and o.capacity.tokens_per_minute for o in catalog.offerings)
    wrapped = [
        ("id", [visible(opts.label(o)) for o in range(len(opts))]),
        ("company", [visible(who(o.vendor, o.host_name, o.served_by)) for o in offerings]),
        ("tier", [visible(o.tier) for o in offerings]),
    ]
    fixed = [
        (
            "$/M in/out",
            [
                f"{figure(float(i))}/{figure(float(o))}"
                for i, o in zip(opts.price_input, opts.price_output, strict=True)
            ],
        ),
        (
            "speed\ntok/s",
            [
                "batch" if math.isinf(x) else count(float(x)) + ("" if known else "?")
                for x, known in zip(opts.output_tps, opts.speed_known, strict=True)
            ],
        ),
        (
            "first\ntoken",
            [
                f"≤{seconds(float(t))}" if math.isinf(x) else seconds(float(t))
                for x, t in zip(opts.output_tps, opts.ttft_s, strict=True)
            ],
        ),
    ]
    if score is not None:
        fixed.append((visible(metric), ["-" if x != x else figure(float(x)) for x in score]))
    if limits:
        tpm = [o.capacity.tokens_per_minute if o.capacity else None for o in offerings]
        fixed.append(("capacity\ntok/min", [count(x) for x in tpm]))
    fixed_widths = [
        max(min(HEAD_MAX, max(map(cell_len, head.split("\n")))), *map(cell_len, cells)) for head, cells in fixed
    ]
    gaps = 2 * (len(wrapped) + len(fixed) - 1)  # a separator and a padding between columns, none at the edges
    widths = fit_widths([cells for _, cells in wrapped], [h for h, _ in wrapped], out.width - gaps - sum(fixed_widths))
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0))
    for (head, _), width in zip(wrapped, widths, strict=True):
        table.add_column(head, width=width, overflow="fold")
    for (head, _), width in zip(fixed, fixed_widths, strict=True):
        table.add_column(head, width=width, justify="right", overflow="fold")
    for o in range(len(opts)):
        table.add_row(
            *(wrap_at_separators(cells[o], width) for (_, cells), width in zip(wrapped, widths, strict=True)),
            *(cells[o] for _, cells in fixed),
        )
    out.print(table)


EXPLAIN_ROWS = 40  # options explain prints; --format csv|json has every one


def print_explain(rows: list[dict[str, Any]], title: str, currency: str = "USD") -> None:
    """explain as a table people can read at 100 columns: the cheapest options first, each id broken
    only at its separators, figures kept whole, and for an option not eligible why not."""
    out = console()
    say(out, title)
    shown = rows[:EXPLAIN_ROWS]
    sampled = bool(rows) and "within_budget_share" in rows[0]  # the share of sample tasks within budget
    medians = any(r.get("speeds") == "median" for r in shown)  # judged at a median for lack of percentiles
    heads = ("latency", "cost/task", "score") + (("within",) if sampled else ())
    figures = [
        (
            ("≥" if r.get("latency_known") is False else "")
            + seconds(r["latency_s"])
            + ("*" if r.get("speeds") == "median" else ""),
            money(r["cost_per_task"], currency),
            "-" if r["capability"] is None else short(r["capability"]),
        )
        + ((percent(r["within_budget_share"]) if r["within_budget_share"] is not None else "-",) if sampled else ())
        for r in shown
    ]
    fixed = [max(len(h), *(len(f[k]) for f in figures)) if figures else len(h) for k, h in enumerate(heads)]
    room = max(40, out.width - sum(fixed) - 3 * (len(heads) + 3) - 1)  # option, company and why-not share the rest
    option_w = min(30, max(12, *(len(r["option"]) for r in shown))) if shown else 12
    company_w = min(16, max(7, *(len(_where(r)) for r in shown))) if shown else 7
    option_w = min(option_w, room // 3)
    table = titled_table("")
    table.add_column("option", overflow="fold", width=option_w)
    table.add_column("company", overflow="fold", width=company_w)
    for head in heads:
        table.add_column(head, justify="right", no_wrap=True)
    table.add_column("eligible, or why not", ratio=1, overflow="fold")
    for r, cells in zip(shown, figures):
        why = "eligible" if r["eligible"] else "; ".join(r["reasons"])
        table.add_row(
            wrap_at_separators(visible(r["option"]), option_w),
            wrap_at_separators(visible(_where(r)), company_w),
            *cells,
            styled(why, "green") if r["eligible"] else visible(why),
        )
    notes = []
    if len(rows) > len(shown):
        notes.append(f"the {len(shown)} cheapest of {len(rows)} options; --format csv lists every one")
    if sampled:
        notes.append("within: the share of the sample tasks within budget")
    if medians:
        notes.append("*: judged at the median speeds (no percentiles measured)")
    if notes:
        table.caption = "; ".join(notes)
    out.print(table)


def _where(r: dict[str, Any]) -> str:
    return r["vendor"] if r["host"] == r["vendor"] else f"{r['vendor']} · {r['host']}"
