"""What the commands print on a terminal: rich tables at 100 columns or wider, and progress bars."""

from __future__ import annotations

import itertools
import math
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from rich.cells import cell_len

from planner.core.fmt import (
    cell,
    count,
    figure,
    money,
    money_change,
    option,
    percent,
    seconds,
    short,
    signed_percent,
    visible,
)
from planner.optimize.options import Options
from planner.outputs.tables import allocations_csv, rows_csv, rows_json
from planner.pipeline.frontier import Frontier
from planner.plan.model import Plan
from planner.review.compare import Comparison

TABLE_ROWS = 25  # terminal tables show at most this many rows; files carry everything
RISKS = 5  # risks a summary lists; the plan file and the report carry all


def console():
    """A console that reads no markup (names and reasons from input files are printed as they are)
    and ends no line with padding (rich pads a table's title and caption to the table's width)."""
    from rich.console import Console

    class Trimmed(Console):
        def _render_buffer(self, buffer) -> str:
            text = super()._render_buffer(buffer)
            return _TRAILING.sub("", text)

    width = max(100, shutil.get_terminal_size((120, 24)).columns)
    return Trimmed(highlight=False, soft_wrap=False, markup=False, width=width)


_TRAILING = re.compile(r"[ \t]+(?=(?:\x1b\[[0-9;]*m)*\n)")  # spaces before a line's end (and its style resets)


def _table(title: str):
    from rich.table import Table

    return Table(title=visible(title), title_justify="left")


def _row(table, *cells) -> None:
    """A table row of text from the inputs: control characters shown as escapes, never as markup."""
    table.add_row(*(c if not isinstance(c, str) else visible(c) for c in cells))


def _styled(text: str, style: str):
    from rich.text import Text

    return Text(visible(text), style=style)


def print_plan(plan: Plan, fmt: str, paths: dict[str, Path]) -> None:
    """The plan as its summary (the total against simple rules, the routes with who serves them,
    spend by company, the top risks and what to do), its file as JSON, or its allocations as CSV."""
    if fmt == "json":
        sys.stdout.write(plan.to_json())
        return
    if fmt == "csv":
        sys.stdout.write(allocations_csv(plan))
        return
    cur = plan.currency
    out = console()
    relaxed = " under the smallest relaxation" if plan.status == "infeasible" else ""
    _say(
        out,
        f"{plan.name}: {_status_words(plan)}, "
        f"{money(plan.total_cost, cur)} a {plan.period}{relaxed} · catalog {plan.inputs.catalog} "
        f"({plan.inputs.as_of or 'date unknown'})"
        + "".join(f" + overlay {o.name} ({len(o.changes)} changes)" for o in plan.overlays),
    )
    for b in plan.baselines:
        misses = f", breaks the rules of {b.misses} workload{'s' if b.misses != 1 else ''}" if b.misses else ""
        _say(out, f"  against {b.label}: {money(b.total_cost, cur)}{misses}", "  ")
    out.print(_routes_table(plan, out.width))
    if plan.vendors:
        shown = " · ".join(f"{v.vendor} {money(v.spend, cur)} ({percent(v.share)})" for v in plan.vendors[:8])
        more = f" · {len(plan.vendors) - 8} more" if len(plan.vendors) > 8 else ""
        _say(out, f"spend by company: {shown}{more}")
    for c in plan.commitments or ():
        _say(out, f"commitment {c.id} ({c.vendor}): {c.text}", "  ")
    if plan.switching is not None:
        for line in switching_lines(plan):
            _say(out, line, "  ")
    for line in plan.diagnosis[:TABLE_ROWS]:
        _say(out, f"! {line}", style="yellow")
    if plan.risks:
        out.print("top risks:")
        for k, r in enumerate(plan.risks[:RISKS], 1):
            _say(out, f"{k}. [{r.severity}] {r.text}", style="red" if r.severity == "high" else "yellow")
            _say(out, f"   do: {r.action}", "   ")
        if len(plan.risks) > RISKS:
            out.print(visible(f"   and {len(plan.risks) - RISKS} more in the report"))
    for b in sorted(plan.binding, key=lambda b: -(b.worth or 0))[:TABLE_ROWS]:
        if plan.status != "infeasible" and b.worth is not None and b.worth >= 0.005:
            _say(out, f"binding: {b.label or b.constraint}: {b.meaning}")
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
                    a.vendor if a.host == a.vendor else f"{a.vendor} · {a.host}",
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
    table = _table("")
    table.add_column(heads[0], overflow="fold", width=fixed[0])
    table.add_column(heads[1], overflow="fold", width=min(room, max(len(heads[1]), *(len(r[2] or "") for r in rows))))
    table.add_column(heads[2], overflow="fold", width=fixed[1])
    for head in heads[3:]:
        table.add_column(head, justify="right", no_wrap=True)
    for wid, budget, opt, company, share, latency, cost in rows:
        who = Text(visible(wid) + ("\n" if wid else ""))
        who.append(visible(budget), style="dim")
        if opt is None:
            table.add_row(who, _styled("no eligible option", "red"), company, share, latency, cost)
            continue
        table.add_row(who, wrap_at_separators(visible(opt), room), visible(company), share, latency, cost)
    if len(shown) < len(plan.workloads):
        table.caption = f"{len(shown)} of {len(plan.workloads)} workloads: the largest spends and any infeasible"
    return table


def _say(out, text: str, indent: str = "", style: str | None = None) -> None:
    """A sentence wrapped to the console's width, its continuation lines indented under its start."""
    import textwrap

    lines = textwrap.wrap(
        visible(text), width=out.width, subsequent_indent=indent + "   ", break_on_hyphens=False, break_long_words=False
    )
    for line in lines:
        out.print(_styled(line, style) if style else line)


def print_rows(rows: list[dict[str, Any]], fmt: str, title: str = "") -> None:
    """Rows as a table, JSON or CSV."""
    if fmt == "json":
        sys.stdout.write(rows_json(rows))
        return
    if fmt == "csv":
        sys.stdout.write(rows_csv(rows))
        return
    table = _table(title)
    for col in rows[0] if rows else {}:
        table.add_column(col)
    for r in rows:
        _row(table, *[cell(v) for v in r.values()])
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
        ("company", [visible(" · ".join(o.companies)) for o in offerings]),
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
    widths = _fit([cells for _, cells in wrapped], [h for h, _ in wrapped], out.width - gaps - sum(fixed_widths))
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


_PIECE = re.compile(r"@?[^@\-/ ]*[\-/ ]*")


def _pieces(text: str) -> list[str]:
    """text cut where a line may break: after - / and spaces, before @."""
    return [p for p in _PIECE.findall(text) if p]


def _hosts_whole(pieces: list[str], width: int) -> list[str]:
    """The pieces with a host (from its `@` to the next space) made one piece when it fits a line, so a
    line breaks before the host rather than inside it."""
    out: list[str] = []
    host: list[str] = []
    for p in pieces:
        if p.startswith("@"):
            host = [p]
        elif host and not host[-1].endswith(" "):
            host.append(p)
        else:
            out.append(p)
            continue
        if host[-1].endswith(" ") or p is pieces[-1]:
            joined = "".join(host)
            out.extend([joined] if cell_len(joined.rstrip()) <= width else host)
            host = []
    if host:
        joined = "".join(host)
        out.extend([joined] if cell_len(joined.rstrip()) <= width else host)
    return out


def wrap_at_separators(text: str, width: int) -> str:
    """text in lines of at most width cells, broken only where _pieces allows (a piece longer than a
    line stays whole here; the table folds it)."""
    lines, line = [], ""
    for piece in _hosts_whole(_pieces(text), width):
        if line and cell_len((line + piece).rstrip()) > width:
            lines.append(line.rstrip())
            line = piece
        else:
            line += piece
    lines.append(line.rstrip())
    return "\n".join(lines)


def _fit(columns: list[list[str]], heads: list[str], room: int) -> list[int]:
    """Widths for columns whose text wraps, within room cells: each column's widest cell when they all
    fit; else the first column takes what the others leave, their widths chosen for the fewest rows
    folded mid-word, then the fewest rows on more than one line, then the widest first column."""
    import numpy as np

    full = [np.array([cell_len(c) for c in cells] or [0]) for cells in columns]
    piece = [
        np.array([max((cell_len(p.rstrip()) for p in _pieces(c)), default=0) for c in cells] or [0])
        for cells in columns
    ]
    least = [cell_len(h) for h in heads]
    natural = [max(h, int(f.max())) for h, f in zip(least, full, strict=True)]
    if sum(natural) <= room:
        return natural
    choices = [
        sorted({int(x) for x in (*np.unique(full[k]), *np.unique(piece[k])) if least[k] <= x <= room // 2} | {least[k]})
        for k in range(1, len(columns))
    ]
    best, chosen = None, least
    for rest in itertools.product(*choices):
        widths = [min(room - sum(rest), natural[0]), *rest]
        if widths[0] < least[0]:
            continue
        folded = np.zeros(len(full[0]), bool)
        wrapped = np.zeros(len(full[0]), bool)
        for k, w in enumerate(widths):
            folded |= piece[k] > w
            wrapped |= full[k] > w
        key = (int(folded.sum()), int(wrapped.sum()), -widths[0])
        if best is None or key < best:
            best, chosen = key, widths
    return chosen


EXPLAIN_ROWS = 40  # options explain prints; --format csv|json has every one


def print_explain(rows: list[dict[str, Any]], title: str, currency: str = "USD") -> None:
    """explain as a table people can read at 100 columns: the cheapest options first, each id broken
    only at its separators, figures kept whole, and for an option not eligible why not."""
    out = console()
    _say(out, title)
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
    table = _table("")
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
            _styled(why, "green") if r["eligible"] else visible(why),
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


def print_whatif(base: Plan, results, report: Path) -> None:
    """Each scenario's status, cost, change against the base and rerouted workloads; an infeasible
    scenario shows what it lacks and no cost or change (its cost is a relaxation's, not a plan's)."""
    cur = base.currency
    table = _table(f"{base.name}: base {base.status}, {money(base.total_cost, cur)} a {base.period}")
    table.add_column("scenario", overflow="fold", max_width=24)
    table.add_column("status", no_wrap=True)
    table.add_column(f"cost/{base.period}", justify="right", no_wrap=True)
    table.add_column("change", justify="right", no_wrap=True)
    table.add_column("rerouted, or what it lacks", ratio=1)
    for sc, plan, cmp in results:
        if plan.status != "optimal":
            _row(table, sc.name, _styled("no feasible plan", "red"), "-", "-", f"lacks: {cmp.lacks_after}")
            continue
        rerouted = ", ".join(w.id for w in cmp.workloads if w.changed) or "none"
        change = money_change(cmp.delta, cur) if cmp.comparable else "-"
        _row(table, sc.name, plan.status, money(plan.total_cost, cur), change, rerouted)
    out = console()
    out.print(table)
    if base.status != "optimal":
        _say(out, "the base has no feasible plan: changes in cost are not shown", style="yellow")
    out.print(visible(f"report: {report}"))


def print_frontier(result: Frontier, name: str, workload: str | None, html: Path, csv_path: Path) -> None:
    """The latency sweep as a reader needs it: where plans start (the first feasible point, and the
    last infeasible one before it), today's point, every breakpoint and the last point, each priced
    against today's plan."""
    cur = result.currency
    rows = result.table("latency")
    today = next((p for p in rows if p.today), None)
    against = today if today is not None and today.feasible else None
    title = visible(f"{name}: cost of speed{' for ' + workload if workload else ' (all budgets scaled)'}")
    table = _table(title)
    table.min_width = min(len(title), 100)  # the title on one line, however narrow the columns
    columns = [("budget", "left"), (f"cost/{result.period}", "right")]
    columns += [("vs today", "right")] if against else []
    for col, just in columns + [("chosen", "left")]:
        table.add_column(col, justify=just)
    shown = {len(rows) - 1} | {k for k, p in enumerate(rows) if p.breakpoint or p.today}
    swept = result.on_curve("latency") is not None  # today's row stands for a swept point too
    for first in (  # the first point with a plan, today's or swept, and the point before it without one
        next((k for k, p in enumerate(rows) if p.feasible), None),
        next((k for k, p in enumerate(rows) if p.feasible and (swept or not p.today)), None),
    ):
        if first is not None:
            shown |= {first} | ({first - 1} if first and not rows[first - 1].feasible else set())
    for k in sorted(shown):
        p = rows[k]
        cells = [f"{p.label} (today)" if p.today else p.label, money(p.cost, cur) if p.feasible else "infeasible"]
        if against:
            cells.append(money_change(p.cost - against.cost, cur) if p.feasible and not p.today else "")
        if workload:
            cells.append(p.chosen if p.feasible else "")
        else:
            cells.append("routing changes" if p.breakpoint else "")
        if p.today:
            table.add_row(*(_styled(c, "bold") for c in cells))
        else:
            _row(table, *cells)
    out = console()
    out.print(table)
    out.print(visible(f"report: {html}") + "\n" + visible(f"csv:    {csv_path}"))


def print_compare(cmp: Comparison, html: Path) -> None:
    """The change in total and its bridge (volumes, prices, catalog, routing), the metrics put on a
    new scale, per workload and per company, what changed on each rerouted workload's routes, and the
    offerings' changes. A plan with no feasible routing shows what it lacks, and no change in cost."""
    cur = cmp.currency
    out = console()

    def total(value: float, status: str, lacks: str) -> str:
        return money(value, cur) if status == "optimal" else f"no feasible plan ({lacks})"

    head = (
        f"{cmp.label_before} -> {cmp.label_after}: {total(cmp.total_before, cmp.status_before, cmp.lacks_before)}"
        f" -> {total(cmp.total_after, cmp.status_after, cmp.lacks_after)}"
    )
    if cmp.comparable:
        rel = f", {signed_percent(cmp.delta / cmp.total_before)}" if cmp.total_before > 0 else ""
        head += f" a {cmp.period} ({money_change(cmp.delta, cur)}{rel})"
    else:
        head += "; costs are compared only between two feasible plans"
    _say(out, head)
    for note in cmp.notes:
        _say(out, f"note: {note}", style="yellow")
    if cmp.bridge:
        bridge = _table(f"the change in cost, in {'five' if len(cmp.bridge) == 5 else 'four'} parts")
        bridge.add_column("part", ratio=1)
        bridge.add_column("change", justify="right", no_wrap=True)
        bridge.add_column("largest", ratio=1)
        for step in cmp.bridge:
            _row(bridge, step.label, money_change(step.amount, cur), ", ".join(step.detail) or "-")
        out.print(bridge)
        if cmp.bridge_note:
            _say(out, cmp.bridge_note, style="yellow")
    for r in cmp.rescales:
        _say(out, r.line(), style="yellow")
    for k in cmp.kept_floors[:TABLE_ROWS]:
        _say(out, k.text(), style="yellow")
    if len(cmp.kept_floors) > TABLE_ROWS:
        out.print(visible(f"... and {len(cmp.kept_floors) - TABLE_ROWS} more floors kept; see the report"))
    table = _table("by workload")
    table.add_column("workload", overflow="fold", max_width=22)
    for col in ("before", "after", "change"):
        table.add_column(col, justify="right", no_wrap=True)
    table.add_column("routing", ratio=1)
    rows = cmp.notable(TABLE_ROWS)
    for w in rows:
        change = None
        if cmp.comparable and w.cost_before is not None and w.cost_after is not None:
            change = w.cost_after - w.cost_before
        _row(
            table,
            w.id,
            _cost(w.cost_before, w.status_before, cmp.status_before, cur),
            _cost(w.cost_after, w.status_after, cmp.status_after, cur),
            money_change(change, cur),
            (_routing(w.routing_before, w.status_before) + " -> " + _routing(w.routing_after, w.status_after))
            if w.changed
            else "same",
        )
    if len(rows) < len(cmp.workloads):
        table.caption = f"{len(rows)} of {len(cmp.workloads)} workloads: the rerouted and the largest changes"
    out.print(table)
    if not cmp.comparable:
        _say(out, "* under the smallest relaxation of a plan that does not exist: not a cost to compare")
    vendors = _table("by company (spend on what it bills or serves)")
    vendors.add_column("company", overflow="fold")
    for col in (cmp.label_before, cmp.label_after, "change"):
        vendors.add_column(col, justify="right", overflow="fold")
    for v in cmp.vendors[:TABLE_ROWS]:
        _row(
            vendors,
            v.key,
            money(v.before, cur) if cmp.status_before == "optimal" else "no plan",
            money(v.after, cur) if cmp.status_after == "optimal" else "no plan",
            money_change(v.delta, cur) if cmp.comparable else "-",
        )
    if len(cmp.vendors) > TABLE_ROWS:
        vendors.caption = f"{TABLE_ROWS} of {len(cmp.vendors)} companies, the largest changes first"
    out.print(vendors)
    why = [(wid, reasons) for wid, reasons in cmp.reasons.items() if reasons]
    for wid, reasons in why[:TABLE_ROWS]:
        _say(out, f"{wid} rerouted: " + "; ".join(reasons), "  ")
    for c in cmp.offering_changes[:TABLE_ROWS]:
        _say(out, c.text(), "  ")
    more = max(0, len(why) - TABLE_ROWS) + max(0, len(cmp.offering_changes) - TABLE_ROWS)
    if more:
        out.print(visible(f"... and {more} more lines in the report"))
    out.print(visible(f"report: {html}"))


def _routing(routes: list[str], status: str | None) -> str:
    return ", ".join(routes) or ("not in the plan" if status is None else "no option")


def _cost(value: float | None, status: str | None, plan_status: str, cur: str) -> str:
    """A workload's cost in a comparison: none where it has no plan; marked where its plan is a relaxation's."""
    if value is None or status is None:
        return "-"
    if status != "ok":
        return "no option"
    return money(value, cur) + ("*" if plan_status != "optimal" else "")


def _bar(label: str):
    """A transient progress bar on stderr (silent when not a terminal)."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    err = Console(stderr=True)
    return Progress(
        TextColumn(label),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )


def progress(total: int, label: str):
    """A progress bar for runs longer than a moment: the bar and `step()` for one step done."""
    bar = _bar(label)
    task = bar.add_task(label, total=total)
    return bar, lambda: bar.advance(task)


def counter(label: str):
    """A progress bar whose total grows as the work is found: the bar, `grow(n)` for n more steps
    and `step()` for one done."""
    bar = _bar(label)
    task = bar.add_task(label, total=0)
    totals = [0]

    def grow(n: int) -> None:
        totals[0] += n
        bar.update(task, total=totals[0])

    return bar, grow, lambda: bar.advance(task)


def print_replay(result, source: str, paths: dict[str, Path]) -> None:
    """Per workload: the logged tasks, cost a period (the plan's, then the replay's), latency at p50,
    p90 and p99, and the share within budget (the plan's promise, then the replay's), flagged when
    short; then the routes that fall short, the workloads the plan lacks and the plan's workloads with
    no traffic."""
    from planner.core.fmt import shares_apart
    from planner.pipeline.replay import PER_MILLE

    plan = result.plan
    cur = plan.currency
    out = console()
    _say(
        out,
        f"replay of {plan.name} ({plan.inputs.catalog}) on {source}: {result.tasks:,} tasks, {result.calls:,} calls",
    )
    table = _table("cost and share within budget: the plan's → the replay's")
    table.add_column("workload", overflow="fold", ratio=1, min_width=12)
    table.add_column("tasks", justify="right", no_wrap=True)
    table.add_column(f"cost/{plan.period}", justify="right", no_wrap=True)
    for p in PER_MILLE:
        table.add_column(f"p{p // 10}", justify="right", no_wrap=True)
    table.add_column("budget", justify="right", no_wrap=True)
    table.add_column("within budget", justify="right", no_wrap=True)
    for w in result.workloads[:TABLE_ROWS]:
        within = " → ".join(shares_apart(w.promised, w.within_share))
        flag = " short" if w.short else ""
        cells = [
            w.id,
            f"{w.tasks:,}",
            f"{money(w.plan.cost, cur)} → {money(w.cost_per_period, cur)}",
            *(seconds(w.percentile(p)) for p in PER_MILLE),
            seconds(w.plan.budget_s) if w.plan.budget_s is not None else "none",
            _styled(within + flag, "red") if w.short else within,
        ]
        _row(table, *cells)
    out.print(table)
    if len(result.workloads) > TABLE_ROWS:
        out.print(visible(f"and {len(result.workloads) - TABLE_ROWS} more workloads in the report"))
    for w in result.workloads[:TABLE_ROWS]:
        if w.below_rule and not w.short:
            _say(
                out,
                f"note: {w.id}: {percent(w.within_share)} of its {w.tasks:,} tasks within "
                f"{seconds(w.plan.budget_s)}, under the rule's {percent(w.required)}, but within what "
                f"splitting {w.tasks:,} tasks can give by chance (the plan promised {percent(w.promised)})",
                style="yellow",
            )
    for w in result.flagged[:TABLE_ROWS]:
        rule = f"; the rule asks {percent(w.required)}" if w.below_rule else ""
        if w.short:
            got, promised = shares_apart(w.within_share, w.promised)
            _say(
                out,
                f"short: {w.id}: {got} of its tasks within {seconds(w.plan.budget_s)}, "
                f"the plan promised {promised}{rule}",
                style="red",
            )
        for r in w.routes:
            if r.short:
                _say(
                    out,
                    f"  {option(r.offering, r.mode)}: {r.tasks - r.within:,} of its {r.tasks:,} tasks over "
                    f"{seconds(w.plan.budget_s)} (p99 {seconds(r.latency.get(990))}), which its mean task meets",
                    "    ",
                )
    if result.unplanned:
        listed = ", ".join(f"{k} ({n:,} tasks)" for k, n in sorted(result.unplanned.items()))
        _say(out, f"not in the plan: {listed}", style="yellow")
    if result.unrouted:
        listed = ", ".join(f"{k} ({n:,} tasks)" for k, n in sorted(result.unrouted.items()))
        _say(out, f"no route in the plan (no feasible option): {listed}", style="yellow")
    if result.quiet:
        _say(out, f"planned, no traffic in the logs: {', '.join(result.quiet)}")
    out.print(visible(f"report: {paths['report']}") + "\n" + visible(f"data:   {paths['data']}"))
