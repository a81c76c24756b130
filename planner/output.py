"""Terminal and file output for the commands: tables, JSON, CSV, and the plan's files on disk."""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from pathlib import Path
from typing import Any, Optional

from .load import Inputs
from .plan import Plan, discard, write_all


TABLE_ROWS = 25  # terminal tables show at most this many rows; files carry everything


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
    stem = file_stem(plan.name)
    paths = {"plan": out / f"{stem}.plan.json", "report": out / f"{stem}.html"}
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
    shown = plan.workloads
    if len(shown) > TABLE_ROWS:  # the largest spends and every infeasible workload; the rest is in the report
        keep = {w.id for w in sorted(shown, key=lambda w: (w.status == "ok", -w.cost))[:TABLE_ROWS]}
        shown = [w for w in shown if w.id in keep]
    for w in shown:
        if w.status != "ok":
            table.add_row(w.id, "[red]infeasible[/red]", "-", seconds(w.budget_s), "-", "-")
            continue
        route = ", ".join(f"{a.offering}{'' if a.mode == 'default' else '@' + a.mode} {a.share:.0%}"
                          for a in sorted(w.allocations, key=lambda a: -a.share))
        table.add_row(w.id, route, seconds(w.latency_s.max), seconds(w.budget_s) if w.budget_s else "none",
                      money(w.cost_per_task, cur), money(w.cost, cur))
    if len(shown) < len(plan.workloads):
        table.caption = f"{len(shown)} of {len(plan.workloads)} workloads: the largest spends and any infeasible"
    console = _console()
    console.print(table)
    for line in plan.diagnosis[:TABLE_ROWS]:
        console.print(f"[yellow]! {line}[/yellow]", markup=True)
    for b in sorted(plan.binding, key=lambda b: -(b.shadow_price or 0))[:TABLE_ROWS]:
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


def print_explain(rows: list[dict[str, Any]], title: str, currency: str = "USD") -> None:
    """explain as a table people can read: short columns kept whole, the reasons wrapped."""
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for col, just in (("option", "left"), ("vendor · host · tier", "left"), ("latency", "right"),
                      ("cost/task", "right"), ("capability", "right"), ("eligible", "left")):
        table.add_column(col, justify=just, no_wrap=True)
    table.add_column("why not", ratio=1)
    for r in rows:
        where = r["vendor"] if r["host"] == r["vendor"] else f"{r['vendor']} · {r['host']}"
        table.add_row(r["option"], f"{where} · {r['tier']}", seconds(r["latency_s"]),
                      money(r["cost_per_task"], currency), "-" if r["capability"] is None else f"{r['capability']:g}",
                      "yes" if r["eligible"] else "no", "; ".join(r["reasons"]))
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


def file_stem(name: str) -> str:
    """A plan or scenario name made safe as one file-name component."""
    return name.replace("/", "_").replace(":", "_")


def _progress(total: int, label: str):
    """A progress bar on stderr for runs longer than a moment (silent when not a terminal)."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    bar = Progress(TextColumn(label), BarColumn(), TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                   console=console, transient=True, disable=not console.is_terminal)
    task = bar.add_task(label, total=total)
    return bar, lambda: bar.advance(task)


def run_whatif(inputs: Inputs, scenario_files: list[Path], sets: list[str], without: list[str], out: Path,
               solver: str, review: bool = False, jobs: Optional[int] = None) -> int:
    from .batch import solve_scenarios
    from .errors import InputError
    from .load import load_scenario
    from .report import render_whatif_report
    from .solve import solve_basis
    from .whatif import apply_scenario, scenario_from_sets, without_vendor

    scenarios = [(load_scenario(f), str(f)) for f in scenario_files]
    if sets:
        scenarios.append((scenario_from_sets(sets), "--set"))
    vendors = sorted({o.vendor for o in inputs.catalog.offerings})
    for v in without:
        if v not in vendors:
            raise InputError.single("--without-vendor", "", f"no vendor '{v}' in the catalog; expected one of: "
                                                            f"{', '.join(vendors)}")
        scenarios.append((without_vendor(v), "--without-vendor"))
    if not scenarios:
        raise InputError.single("whatif", "", "no scenario given: pass scenario files, --set PATH=VALUE or "
                                              "--without-vendor V")
    seen: dict[str, tuple[str, str]] = {}  # plan file name -> (scenario name, file)
    for sc, file in scenarios:
        other = seen.get(file_stem(sc.name))
        if other is not None:
            same = other[0] == sc.name
            raise InputError.single(file, "name", f"scenario name '{sc.name}' is also used by {other[1]}" if same else
                                    f"scenario name '{sc.name}' gives the same plan file name as '{other[0]}' "
                                    f"({other[1]}): '/' and ':' become '_' in file names; rename one")
        seen[file_stem(sc.name)] = (sc.name, file)
    applied = [(sc, apply_scenario(inputs, sc, file)) for sc, file in scenarios]  # every error before any solve
    basis = solve_basis(inputs, solver)
    base = basis.plan
    out = Path(out)
    stem = file_stem(base.name)
    paths = [out / f"{stem}.{file_stem(sc.name)}.plan.json" for sc, _ in applied]
    report = out / f"{stem}.whatif.html"
    made_out = not out.exists()
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError.single(str(out), "--out", f"cannot be written: {exc.strerror or exc}") from None
    outcomes: list = []
    try:
        bar, step = _progress(len(applied), "scenarios")
        with bar:  # the workers leave each plan file beside its path; all are renamed into place at the end
            outcomes = solve_scenarios(basis, applied, solver, review=review, jobs=jobs, progress=step, paths=paths)
        results = [(o.scenario, o, o.comparison) for o in outcomes]
        html = render_whatif_report(base, results)
        for o, path in zip(outcomes, paths):
            os.replace(o.staged, path)
        write_all({report: html})
    except OSError as exc:
        _unstage(outcomes, out, made_out)
        raise InputError.single(str(out), "--out", f"cannot be written: {exc.strerror or exc}") from None
    except BaseException:
        _unstage(outcomes, out, made_out)
        raise
    _print_whatif(base, results, report)
    return 0 if all(o.status == "optimal" for o in outcomes) and base.status == "optimal" else 3


def _unstage(outcomes: list, out: Path, made_out: bool) -> None:
    """After a failed what-if run: no staged plan file left behind, nor the output folder it made."""
    for o in outcomes:
        if o.staged and os.path.exists(o.staged):
            discard(o.staged)
    if made_out:
        try:
            out.rmdir()  # only when empty
        except OSError:
            pass


def _print_whatif(base: Plan, results, report: Path) -> None:
    from rich.table import Table

    cur = base.currency
    table = Table(title=f"{base.name}: base {base.status}, {money(base.total_cost, cur)} per {base.period}",
                  title_justify="left")
    for col, just in (("scenario", "left"), ("status", "left"), (f"cost/{base.period}", "right"),
                      ("change", "right"), ("rerouted", "left")):
        table.add_column(col, justify=just)
    for sc, plan, cmp in results:
        delta = plan.total_cost - base.total_cost
        rerouted = ", ".join(w.id for w in cmp.workloads if w.changed) or "-"
        table.add_row(sc.name, plan.status, money(plan.total_cost, cur),
                      f"{'+' if delta >= 0 else ''}{money(delta, cur)}", rerouted)
    console = _console()
    console.print(table)
    console.print(f"report: {report}")


def run_frontier(inputs: Inputs, workload: Optional[str], points: int, out: Path) -> int:
    from .frontier import frontier
    from .report import render_frontier_report

    bar, step = _progress(2 * points, "frontier")
    with bar:
        result = frontier(inputs, workload, points, progress=step)
    out = Path(out)
    stem = file_stem(inputs.name) + (f".{file_stem(workload)}" if workload else "")
    html, csv_path = out / f"{stem}.frontier.html", out / f"{stem}.frontier.csv"
    write_all({csv_path: result.to_csv(), html: render_frontier_report(result)})
    from rich.table import Table

    table = Table(title=f"{inputs.name}: cost of speed{' for ' + workload if workload else ' (all budgets scaled)'}",
                  title_justify="left")
    for col in ("budget", f"cost/{result.period}", "chosen"):
        table.add_column(col)
    for p in result.latency:
        if p.breakpoint or p is result.latency[0] or p is result.latency[-1]:
            table.add_row(p.label, money(p.cost, result.currency) if p.feasible else "infeasible",
                          p.chosen if workload else ("routing changes" if p.breakpoint else ""))
    console = _console()
    console.print(table)
    console.print(f"report: {html}\ncsv:    {csv_path}")
    return 0


def run_compare(old_path: Path, new_path: Path, out: Path, fmt: str) -> int:
    from .plan import read_plan
    from .report import render_compare_report
    from .whatif import compare_plans

    old, new = read_plan(old_path), read_plan(new_path)
    cmp = compare_plans(old, new, Path(old_path).name, Path(new_path).name)
    out = Path(out)
    html = out / f"{file_stem(new.name)}.compare.html"
    write_all({html: render_compare_report(cmp)})
    if fmt == "json":
        sys.stdout.write(cmp.model_dump_json(indent=2) + "\n")
        return 0
    rows = [{"workload": w.id, "cost_before": w.cost_before, "cost_after": w.cost_after,
             "routing_before": "; ".join(w.routing_before), "routing_after": "; ".join(w.routing_after),
             "changed": w.changed} for w in cmp.workloads]
    if fmt == "csv":
        print_rows(rows, "csv")
        return 0
    cur = cmp.currency
    delta = cmp.total_after - cmp.total_before
    console = _console()
    console.print(f"{cmp.label_before} -> {cmp.label_after}: {money(cmp.total_before, cur)} -> "
                  f"{money(cmp.total_after, cur)} per {cmp.period} ({'+' if delta >= 0 else ''}{money(delta, cur)})")
    from rich.table import Table

    table = Table(title="by workload", title_justify="left")
    for col in ("workload", "before", "after", "change", "routing"):
        table.add_column(col)
    for w in cmp.workloads:
        change = None if w.cost_before is None or w.cost_after is None else w.cost_after - w.cost_before
        table.add_row(w.id, money(w.cost_before, cur), money(w.cost_after, cur), money(change, cur),
                      (", ".join(w.routing_before) + " -> " + ", ".join(w.routing_after)) if w.changed else "same")
    console.print(table)
    for c in cmp.offering_changes:
        console.print(f"{c.id}: {c.field} {c.before:g} -> {c.after:g}")
    console.print(f"report: {html}")
    return 0


def run_import(kind: str, files: list[str], out: Path, name: Optional[str], as_of: Optional[str]) -> int:
    from .errors import InputError
    from .importers import build_catalog, parse_sources
    from .load import validate
    from .schema import Catalog

    import yaml

    out = Path(out)
    sources = parse_sources(kind, files)
    catalog, result = build_catalog(sources, name or out.name.split(".")[0], as_of)
    if not catalog["offerings"]:
        raise InputError.single(str(sources[0][1]), "", "no offering has every required figure (prices, a measured "
                                                        "speed and time to first token, a capability score); merge "
                                                        "an Artificial Analysis table: aa:FILE")
    validate(Catalog, catalog, str(out))  # never write a catalog the planner would reject
    header = ("# Built by `planner catalog import` from: "
              + ", ".join(f"{k}:{p.name}" for k, p in sources)
              + f"\n# {len(result.offerings)} offerings; {len(result.left_out)} entries left out for a missing "
                "figure (listed in the .left-out.csv beside this file).\n")
    text = header + yaml.safe_dump(catalog, sort_keys=False, allow_unicode=True, width=120)
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["source", "name", "reason"])
    writer.writerows(result.left_out)
    left = out.with_name(out.name.split(".")[0] + ".left-out.csv")
    write_all({out: text, left: buf.getvalue()})
    print(f"{out}: {len(result.offerings)} offerings (as of {catalog['as_of'] or 'unknown'}); "
          f"{len(result.left_out)} left out, listed in {left}")
    by_reason: dict[tuple[str, str], int] = {}
    for src, _, reason in result.left_out:
        by_reason[(src, reason)] = by_reason.get((src, reason), 0) + 1
    for (src, reason), n in sorted(by_reason.items(), key=lambda kv: -kv[1]):
        print(f"  left out: {n} from {src}: {reason}", file=sys.stderr)
    return 0


def run_export(plan_path: Path, to: str, out: Optional[Path]) -> int:
    from .gateway import to_litellm, to_openrouter
    from .plan import read_plan

    import yaml

    plan = read_plan(plan_path)
    if to == "litellm":
        config, guessed = to_litellm(plan)
        text = ("# LiteLLM Router config generated by planner from " + Path(plan_path).name + "\n"
                + yaml.safe_dump(config, sort_keys=False, width=120))
    else:
        config, guessed = to_openrouter(plan)
        text = json.dumps(config, indent=2) + "\n"
    if guessed:
        print(f"note: no {to} model id in the catalog for {', '.join(guessed)}; used <host>/<model> "
              f"(set the offering's gateway.{to} field)", file=sys.stderr)
    if out is None:
        sys.stdout.write(text)
    else:
        write_all({Path(out): text})
        print(f"wrote {out}", file=sys.stderr)
    return 0
