"""What the commands print on a terminal: rich tables at 100 columns or wider, and progress bars."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from .compare import Comparison
from .fmt import cell, count, money, money_change, option, seconds, short, visible
from .frontier import Frontier
from .pairs import Options
from .plan import Plan
from .tables import allocations_csv, option_scores, rows_csv, rows_json

TABLE_ROWS = 25  # terminal tables show at most this many rows; files carry everything


def console():
    """A console that reads no markup: names and reasons from input files are printed as they are."""
    from rich.console import Console

    width = max(100, shutil.get_terminal_size((120, 24)).columns)
    return Console(highlight=False, soft_wrap=False, markup=False, width=width)


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
    """The plan as a summary table, its file as JSON, or its allocations as CSV."""
    if fmt == "json":
        sys.stdout.write(plan.to_json())
        return
    if fmt == "csv":
        sys.stdout.write(allocations_csv(plan))
        return
    cur = plan.currency
    table = _table(f"{plan.name}: {plan.status}, {money(plan.total_cost, cur)} per {plan.period}")
    for col, just in (
        ("workload", "left"),
        ("route", "left"),
        ("latency", "right"),
        ("budget", "right"),
        ("cost/task", "right"),
        (f"cost/{plan.period}", "right"),
    ):
        table.add_column(col, justify=just)
    shown = plan.workloads
    if len(shown) > TABLE_ROWS:  # the largest spends and every infeasible workload; the rest is in the report
        keep = {w.id for w in sorted(shown, key=lambda w: (w.status == "ok", -w.cost))[:TABLE_ROWS]}
        shown = [w for w in shown if w.id in keep]
    for w in shown:
        if w.status != "ok":
            _row(table, w.id, _styled("infeasible", "red"), "-", seconds(w.budget_s), "-", "-")
            continue
        route = ", ".join(
            f"{option(a.offering, a.mode)} {a.share:.0%}" for a in sorted(w.allocations, key=lambda a: -a.share)
        )
        _row(
            table,
            w.id,
            route,
            seconds(w.latency_s.max),
            seconds(w.budget_s) if w.budget_s else "none",
            money(w.cost_per_task, cur),
            money(w.cost, cur),
        )
    if len(shown) < len(plan.workloads):
        table.caption = f"{len(shown)} of {len(plan.workloads)} workloads: the largest spends and any infeasible"
    out = console()
    out.print(table)
    for line in plan.diagnosis[:TABLE_ROWS]:
        out.print(_styled(f"! {line}", "yellow"))
    for b in sorted(plan.binding, key=lambda b: -(b.shadow_price or 0))[:TABLE_ROWS]:
        if b.shadow_price:
            out.print(visible(f"binding: {b.constraint}: {b.meaning}"))
    out.print(visible(f"plan:   {paths['plan']}") + "\n" + visible(f"report: {paths['report']}"))


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


def print_catalog(catalog, opts: Options, metrics: list[str], title: str) -> None:
    """catalog show as a table people can read at 100 columns, below what each capability metric is
    (tables.metric_lines): figures short and kept whole, one score a line, names wrapped (the model
    names and the full figures are in --format json|csv)."""
    from rich.text import Text

    out = console()
    for line in metrics:
        out.print(visible(line))
    scores = [[visible(f"{m} {short(v)}") for m, v in sorted(option_scores(opts, o).items())] for o in range(len(opts))]
    limits = any(o.capacity and o.capacity.tokens_per_minute for o in catalog.offerings)
    table = _table(title)
    table.add_column("option", ratio=3, overflow="fold")
    table.add_column("vendor · host · tier", ratio=2, overflow="fold")
    for col in ("$/M in/out", "tok/s", "ttft"):
        table.add_column(col, justify="right", no_wrap=True)
    table.add_column("capability", no_wrap=True, max_width=max((len(x) for s in scores for x in s), default=10))
    if limits:
        table.add_column("tok/min", justify="right", no_wrap=True)
    for o in range(len(opts)):
        off = catalog.offerings[int(opts.offering_index[o])]
        where = off.vendor if off.host_name == off.vendor else f"{off.vendor} · {off.host_name}"
        cells = [
            visible(opts.label(o)),
            visible(f"{where} · {off.tier}"),
            f"{short(opts.price_input[o])}/{short(opts.price_output[o])}",
            count(float(opts.output_tps[o])),
            seconds(float(opts.ttft_s[o])),
            Text("\n".join(scores[o])),
        ]
        if limits:
            cells.append(count(off.capacity.tokens_per_minute if off.capacity else None))
        table.add_row(*cells)
    out.print(table)


def print_explain(rows: list[dict[str, Any]], title: str, currency: str = "USD") -> None:
    """explain as a table people can read: short columns kept whole, the reasons wrapped."""
    table = _table(title)
    for col, just in (
        ("option", "left"),
        ("vendor · host · tier", "left"),
        ("latency", "right"),
        ("cost/task", "right"),
        ("capability", "right"),
        ("eligible", "left"),
    ):
        table.add_column(col, justify=just, no_wrap=True)
    table.add_column("why not", ratio=1)
    for r in rows:
        where = r["vendor"] if r["host"] == r["vendor"] else f"{r['vendor']} · {r['host']}"
        _row(
            table,
            r["option"],
            f"{where} · {r['tier']}",
            seconds(r["latency_s"]),
            money(r["cost_per_task"], currency),
            "-" if r["capability"] is None else f"{r['capability']:g}",
            "yes" if r["eligible"] else "no",
            "; ".join(r["reasons"]),
        )
    console().print(table)


def print_whatif(base: Plan, results, report: Path) -> None:
    """Each scenario's status, cost, change against the base and rerouted workloads."""
    cur = base.currency
    table = _table(f"{base.name}: base {base.status}, {money(base.total_cost, cur)} per {base.period}")
    for col, just in (
        ("scenario", "left"),
        ("status", "left"),
        (f"cost/{base.period}", "right"),
        ("change", "right"),
        ("rerouted", "left"),
    ):
        table.add_column(col, justify=just)
    for sc, plan, cmp in results:
        delta = plan.total_cost - base.total_cost
        rerouted = ", ".join(w.id for w in cmp.workloads if w.changed) or "-"
        _row(
            table,
            sc.name,
            plan.status,
            money(plan.total_cost, cur),
            money_change(delta, cur),
            rerouted,
        )
    out = console()
    out.print(table)
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
    """The change in total, the metrics put on a new scale (and floors that kept their number across
    one), per workload with what changed on a rerouted one's routes, and the offerings' changes."""
    cur = cmp.currency
    delta = cmp.total_after - cmp.total_before
    out = console()
    out.print(
        visible(
            f"{cmp.label_before} -> {cmp.label_after}: {money(cmp.total_before, cur)} -> "
            f"{money(cmp.total_after, cur)} per {cmp.period} ({money_change(delta, cur)})"
        )
    )
    for r in cmp.rescales:
        out.print(_styled(r.line(), "yellow"))
    for k in cmp.kept_floors[:TABLE_ROWS]:
        out.print(_styled(k.text(), "yellow"))
    if len(cmp.kept_floors) > TABLE_ROWS:
        out.print(visible(f"... and {len(cmp.kept_floors) - TABLE_ROWS} more floors kept; see the report"))
    table = _table("by workload")
    for col in ("workload", "before", "after", "change", "routing"):
        table.add_column(col)
    for w in cmp.workloads:
        change = None if w.cost_before is None or w.cost_after is None else w.cost_after - w.cost_before
        _row(
            table,
            w.id,
            money(w.cost_before, cur),
            money(w.cost_after, cur),
            money_change(change, cur),
            ((", ".join(w.routing_before) or "infeasible") + " -> " + (", ".join(w.routing_after) or "infeasible"))
            if w.changed
            else "same",
        )
    out.print(table)
    why = [(wid, reasons) for wid, reasons in cmp.reasons.items() if reasons]
    for wid, reasons in why[:TABLE_ROWS]:
        out.print(visible(f"{wid} rerouted: " + "; ".join(reasons)))
    for c in cmp.offering_changes[:TABLE_ROWS]:
        out.print(visible(c.text()))
    more = max(0, len(why) - TABLE_ROWS) + max(0, len(cmp.offering_changes) - TABLE_ROWS)
    if more:
        out.print(visible(f"... and {more} more lines in the report"))
    out.print(visible(f"report: {html}"))


def progress(total: int, label: str):
    """A progress bar on stderr for runs longer than a moment (silent when not a terminal)."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    err = Console(stderr=True)
    bar = Progress(
        TextColumn(label),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=err,
        transient=True,
        disable=not err.is_terminal,
    )
    task = bar.add_task(label, total=total)
    return bar, lambda: bar.advance(task)
