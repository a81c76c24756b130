"""Terminal and file output for the commands: tables, JSON, CSV, and the plan's files on disk."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path
from typing import Any, Optional

from .load import Inputs
from .plan import Plan, write_all


def money(x: Optional[float], currency: str = "USD") -> str:
    """People's money: $12.3k, $1.2M, $0.0042."""
    if x is None:
        return "-"
    sign = "-" if x < 0 else ""
    x = abs(x)
    symbol = {"USD": "$", "EUR": "€", "GBP": "£"}.get(currency, currency + " ")
    if x >= 1e9:
        body = f"{x / 1e9:.3g}B"
    elif x >= 1e6:
        body = f"{x / 1e6:.3g}M"
    elif x >= 1e4:
        body = f"{x / 1e3:.3g}k"
    elif x >= 100:
        body = f"{x:,.0f}"
    elif x >= 1:
        body = f"{x:,.2f}"
    elif x == 0:
        body = "0"
    else:
        body = f"{x:.2g}"
    return f"{sign}{symbol}{body}"


def seconds(x: Optional[float]) -> str:
    if x is None:
        return "-"
    if x >= 120:
        return f"{x / 60:.1f} min"
    if x >= 10:
        return f"{x:.0f} s"
    return f"{x:.2g} s" if x < 1 else f"{x:.1f} s"


def percent(x: Optional[float]) -> str:
    if x is None:
        return "-"
    return f"{x:.0%}" if abs(x) >= 0.1 or x == 0 else f"{x:.1%}"


def allocations_csv(plan: Plan) -> str:
    """One row per (workload, option): the plan in a form pandas reads directly."""
    buf = io.StringIO()
    fields = ["workload", "offering", "mode", "vendor", "host", "tier", "model", "share", "tasks",
              "cost_per_task", "cost", "latency_s", "budget_s", "capability"]
    writer = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for w in plan.workloads:
        for a in w.allocations:
            writer.writerow({"workload": w.id, "offering": a.offering, "mode": a.mode, "vendor": a.vendor,
                             "host": a.host, "tier": a.tier, "model": a.model, "share": a.share,
                             "tasks": a.tasks, "cost_per_task": a.cost_per_task, "cost": a.cost,
                             "latency_s": a.latency_s, "budget_s": w.budget_s, "capability": a.capability})
    return buf.getvalue()


def write_plan_outputs(plan: Plan, inputs: Inputs, out: Path) -> dict[str, Path]:
    """Render the plan file and the report, then write both (each atomically)."""
    from .report import render_plan_report

    out = Path(out)
    if out.exists() and not out.is_dir():
        from .errors import InputError

        raise InputError.single(str(out), "--out", "exists and is not a folder")
    paths = {"plan": out / f"{plan.name}.plan.json", "report": out / f"{plan.name}.html"}
    files = {paths["plan"]: plan.to_json(), paths["report"]: render_plan_report(plan)}
    write_all(files)
    return paths


def _console():
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False, width=max(100, _term_width()))


def _term_width() -> int:
    import shutil

    return shutil.get_terminal_size((120, 24)).columns


def print_plan(plan: Plan, fmt: str, paths: dict[str, Path]) -> None:
    if fmt == "json":
        sys.stdout.write(plan.to_json())
        return
    if fmt == "csv":
        sys.stdout.write(allocations_csv(plan))
        return
    from rich.table import Table

    cur = plan.currency
    table = Table(title=f"{plan.name}: {plan.status}, {money(plan.total_cost, cur)} per {plan.period}",
                  title_justify="left")
    for col, just in (("workload", "left"), ("route", "left"), ("latency", "right"), ("budget", "right"),
                      ("cost/task", "right"), (f"cost/{plan.period}", "right")):
        table.add_column(col, justify=just)
    for w in plan.workloads:
        if w.status != "ok":
            table.add_row(w.id, "[red]infeasible[/red]", "-", seconds(w.budget_s), "-", "-")
            continue
        route = ", ".join(f"{a.offering}{'' if a.mode == 'default' else '@' + a.mode} {a.share:.0%}"
                          for a in sorted(w.allocations, key=lambda a: -a.share))
        table.add_row(w.id, route, seconds(w.latency_s.max), seconds(w.budget_s) if w.budget_s else "none",
                      money(w.cost_per_task, cur), money(w.cost, cur))
    console = _console()
    console.print(table)
    for line in plan.diagnosis:
        console.print(f"[yellow]! {line}[/yellow]", markup=True)
    for b in plan.binding:
        if b.shadow_price:
            console.print(f"binding: {b.constraint}: {b.meaning}")
    console.print(f"plan:   {paths['plan']}\nreport: {paths['report']}")


def print_rows(rows: list[dict[str, Any]], fmt: str, title: str = "") -> None:
    if fmt == "json":
        sys.stdout.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
        return
    if fmt == "csv":
        buf = io.StringIO()
        if rows:
            writer = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        sys.stdout.write(buf.getvalue())
        return
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for col in (rows[0] if rows else {}):
        table.add_column(col)
    for r in rows:
        table.add_row(*["-" if v is None else _cell(v) for v in r.values()])
    _console().print(table)


def _cell(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:,.6g}"
    if isinstance(v, list):
        return "; ".join(str(x) for x in v)
    return str(v)


def explain_rows(inputs: Inputs, w: int) -> list[dict[str, Any]]:
    """Every option for workload w, cheapest first, with eligibility and reasons."""
    import numpy as np

    from .pairs import build_pairs

    pairs = build_pairs(inputs.workloads, inputs.catalog)
    opts = pairs.options
    order = np.lexsort((np.arange(len(opts)), pairs.latency_s[w], pairs.cost_per_task[w]))
    budget = pairs.workloads.budget_s[w]
    rows = []
    for o in order:
        o = int(o)
        cap = pairs.capability[w, o]
        rows.append({
            "option": opts.label(o), "vendor": opts.vendor[o], "host": opts.host[o], "tier": opts.tier[o],
            "latency_s": round(float(pairs.latency_s[w, o]), 4),
            "budget_s": None if np.isnan(budget) else float(budget),
            "cost_per_task": float(f"{pairs.cost_per_task[w, o]:.6g}"),
            "capability": None if np.isnan(cap) else float(cap),
            "eligible": bool(pairs.eligible[w, o]),
            "reasons": pairs.reasons(w, o),
        })
    return rows


def catalog_rows(catalog) -> list[dict[str, Any]]:
    from .pairs import build_options

    opts = build_options(catalog)
    rows = []
    for o in range(len(opts)):
        off = catalog.offerings[int(opts.offering_index[o])]
        caps = {m: float(v[o]) for m, v in opts.capability.items() if v[o] == v[o]}
        rows.append({
            "option": opts.label(o), "model": opts.model[o], "vendor": opts.vendor[o], "host": opts.host[o],
            "tier": opts.tier[o], "input_per_mtok": float(opts.price_input[o]),
            "output_per_mtok": float(opts.price_output[o]), "output_tps": float(opts.output_tps[o]),
            "ttft_s": float(opts.ttft_s[o]),
            "capability": ", ".join(f"{k} {v:g}" for k, v in sorted(caps.items())),
            "tokens_per_minute": off.capacity.tokens_per_minute if off.capacity else None,
        })
    return rows
