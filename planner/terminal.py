"""What the commands print on a terminal: rich tables at 100 columns or wider, and progress bars."""

from __future__ import annotations

import itertools
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from rich.cells import cell_len

from .compare import Comparison
from .fmt import cell, count, figure, money, money_change, option, seconds, visible
from .frontier import Frontier
from .pairs import Options
from .plan import Plan
from .tables import allocations_csv, rows_csv, rows_json

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
        ("speed\ntok/s", [count(float(x)) for x in opts.output_tps]),
        ("first\ntoken", [seconds(float(x)) for x in opts.ttft_s]),
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


def wrap_at_separators(text: str, width: int) -> str:
    """text in lines of at most width cells, broken only where _pieces allows (a piece longer than a
    line stays whole here; the table folds it)."""
    lines, line = [], ""
    for piece in _pieces(text):
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
    """The latency sweep's first, last and breakpoint points."""
    table = _table(f"{name}: cost of speed{' for ' + workload if workload else ' (all budgets scaled)'}")
    for col in ("budget", f"cost/{result.period}", "chosen"):
        table.add_column(col)
    for k, p in enumerate(result.latency):
        if p.breakpoint or k in (0, len(result.latency) - 1):
            _row(
                table,
                p.label,
                money(p.cost, result.currency) if p.feasible else "infeasible",
                p.chosen if workload else ("routing changes" if p.breakpoint else ""),
            )
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
