"""Each command's work: read the inputs, compute, write the files, print. The CLI parses the command
line and calls one of these; each returns the exit code (0 done, 3 no feasible plan)."""

from __future__ import annotations

import sys
from pathlib import Path

from planner.cli import exits
from planner.cli.checks import check_switching
from planner.core.errors import ExportError, InputError
from planner.core.files import Outputs, check_targets, file_stem, write_all
from planner.core.fmt import json_text, ordinal, visible
from planner.core.timing import deadline, timed
from planner.model.load import load_catalog, load_inputs, load_scenario


def solve(
    workloads: Path,
    catalog: Path | None,
    out: Path,
    solver: str,
    fmt: str,
    previous: Path | None = None,
    switch_cost: float | None = None,
    time_limit: float | None = None,
    deployable_on: str | None = None,
    full: bool = False,
) -> int:
    from planner.outputs.report import render_plan_report
    from planner.outputs.terminal import print_plan
    from planner.pipeline.solve import solve_inputs

    check_switching(previous, switch_cost, time_limit)
    with deadline(time_limit):  # --time-limit bounds the command: its clock starts now
        with timed("load"):
            inputs = with_gateway(load_inputs(workloads, catalog), deployable_on)
            if previous is not None:
                inputs = with_previous(inputs, previous, switch_cost)
        stem = _plan_stem(inputs, workloads)  # the outputs are checked before the solve
        out = Path(out)
        paths = {"plan": out / f"{stem}.plan.json", "report": out / f"{stem}.html"}
        check_targets(paths.values(), out)
        plan = solve_inputs(inputs, solver, time_limit=time_limit)
    _out_folder(out)
    with timed("write"):
        text = plan.to_json(full=full)
        write_all({paths["plan"]: text, paths["report"]: render_plan_report(plan)})
    print_plan(plan, fmt, paths, text=text)
    return exits.INFEASIBLE if plan.status == "infeasible" else exits.OK


def _plan_stem(inputs, workloads: Path) -> str:
    """The plan's name as a file name. A name taken from the workloads file's own name (the file sets no
    `name:`) must pass the rule a `name:` passes (schema.OfferingId), as the plan read back is held to it."""
    if inputs.workloads.name is None:
        from pydantic import TypeAdapter, ValidationError

        from planner.model.schema import OfferingId

        try:
            TypeAdapter(OfferingId).validate_python(inputs.name)
        except ValidationError:
            raise InputError.single(
                str(workloads),
                "name",
                f"{inputs.name[:60]!r}, the file's name before its first dot, cannot name an output file or a "
                "plan; expected 1 to 200 letters, digits and . _ - @ / : (or set name: in the file)",
            ) from None
    return file_stem(inputs.name, str(workloads))


def with_gateway(inputs, gateway: str | None):
    """The inputs with --deployable-on as the policy's deployable_on (it overrides the file's)."""
    if gateway is None:
        return inputs
    import dataclasses

    ws = inputs.workloads
    ws = ws.model_copy(update={"policy": ws.policy.model_copy(update={"deployable_on": gateway})})
    return dataclasses.replace(inputs, workloads=ws)


def with_previous(inputs, path: Path, switch_cost: float | None):
    """The inputs with the routes of the plan in force (solve --from) and --switch-cost as the policy's."""
    import dataclasses

    from planner.plan.model import read_plan

    old = read_plan(path)
    routes = {w.id: frozenset(a.route for a in w.allocations) for w in old.workloads if w.allocations}
    ws = inputs.workloads
    if switch_cost is not None:
        ws = ws.model_copy(update={"policy": ws.policy.model_copy(update={"switch_cost": float(switch_cost)})})
    return dataclasses.replace(inputs, workloads=ws, previous=routes, previous_file=str(path))


def explain(workloads: Path, workload: str, catalog: Path | None, fmt: str, deployable_on: str | None = None) -> int:
    from planner.outputs.tables import explain_rows
    from planner.outputs.terminal import print_explain, print_rows

    inputs = with_gateway(load_inputs(workloads, catalog), deployable_on)
    ids = [w.id for w in inputs.workloads.workloads]
    if workload not in ids:
        raise InputError.single(
            str(workloads), "--workload", f"no workload '{workload}'; expected one of: {', '.join(ids)}"
        )
    rows = explain_rows(inputs, ids.index(workload))
    budget = rows[0]["budget_s"] if rows else None
    title = f"{workload}: every option, cheapest first (budget {'none' if budget is None else f'{budget:g} s'})"
    wl = inputs.workloads.workloads[ids.index(workload)]
    if wl.latency.percentile is not None and budget is not None:
        title += f"; latency at the {ordinal(wl.latency.percentile)} percentile"
    if wl.distribution is not None:
        title += f"; {len(inputs.distributions[wl.id]):,} sample tasks from {wl.distribution}"
    if fmt == "table":
        print_explain(rows, title, inputs.catalog.currency)
    else:
        print_rows(rows, fmt, title=title)
    return exits.OK


def whatif(
    workloads: Path,
    catalog: Path | None,
    scenario_files: list[Path],
    sets: list[str],
    without: list[str],
    out: Path,
    solver: str,
    review: bool = False,
    jobs: int | None = None,
    deployable_on: str | None = None,
) -> int:
    from planner.model.scenarios import apply_scenario, scenario_from_sets, without_vendor
    from planner.outputs.comparisons import print_whatif
    from planner.outputs.console import progress
    from planner.outputs.report import render_whatif_report
    from planner.pipeline.solve import solve_base
    from planner.pipeline.whatif import solve_scenarios

    inputs = with_gateway(load_inputs(workloads, catalog), deployable_on)
    scenarios = [(load_scenario(f), str(f)) for f in scenario_files]
    if sets:
        scenarios.append((scenario_from_sets(sets), "--set"))
    companies = sorted({c for o in inputs.catalog.offerings for c in o.companies})
    for v in without:
        if v not in companies:
            raise InputError.single(
                "--without-vendor",
                "",
                f"no vendor or host '{v}' in the catalog (a company that bills or serves an offering); "
                f"expected one of: {', '.join(companies)}",
            )
        scenarios.append((without_vendor(v, inputs.catalog), "--without-vendor"))
    if not scenarios:
        raise InputError.single(
            "whatif", "", "no scenario given: pass scenario files, --set PATH=VALUE or --without-vendor V"
        )
    _check_scenario_names(scenarios)
    applied = [(sc, apply_scenario(inputs, sc, file)) for sc, file in scenarios]  # every error before any solve
    out = Path(out)
    stem = _plan_stem(inputs, workloads)
    paths = [out / f"{stem}.{file_stem(sc.name)}.plan.json" for sc, _ in applied]  # (names checked above)
    report = out / f"{stem}.whatif.html"
    check_targets([*paths, report], out)
    base, start = solve_base(inputs, solver)
    with Outputs() as outputs:
        outputs.folder(out)
        bar, step = progress(len(applied), "scenarios")
        try:
            with bar:  # the workers leave each plan file beside its path; all are renamed into place at the end
                outcomes = solve_scenarios(
                    base, start, applied, solver, review=review, jobs=jobs, progress=step, paths=paths
                )
        except OSError as exc:  # a worker could not stage its plan file
            raise InputError.single(str(out), "--out", f"cannot be written: {exc.strerror or exc}") from None
        for o, path in zip(outcomes, paths):
            outputs.adopt(path, o.staged)
        results = [(o.scenario, o, o.comparison) for o in outcomes]
        outputs.add(report, render_whatif_report(base, results))
        outputs.commit()
    print_whatif(base, results, report)
    return exits.OK if all(o.status == "optimal" for o in outcomes) and base.status == "optimal" else exits.INFEASIBLE


def serve(workloads: Path, catalog: Path | None, host: str, port: int, scenarios_dir: Path, solver: str) -> int:
    """The live review until stopped (SIGINT or SIGTERM: exit 130 or 143)."""
    from planner.serve.run import serve_review

    serve_review(workloads, catalog, host, port, Path(scenarios_dir), solver)
    return exits.OK


def _check_scenario_names(scenarios: list) -> None:
    """Two scenarios may not share a plan file name."""
    seen: dict[str, tuple[str, str]] = {}  # plan file name -> (scenario name, file)
    for sc, file in scenarios:
        other = seen.get(file_stem(sc.name, file))
        if other is not None:
            same = other[0] == sc.name
            raise InputError.single(
                file,
                "name",
                f"scenario name '{sc.name}' is also used by {other[1]}"
                if same
                else f"scenario name '{sc.name}' gives the same plan file name as '{other[0]}' "
                f"({other[1]}): '/' and ':' become '_' in file names; rename one",
            )
        seen[file_stem(sc.name)] = (sc.name, file)


def frontier(
    workloads: Path,
    catalog: Path | None,
    workload: str | None,
    points: int,
    out: Path,
    deployable_on: str | None = None,
) -> int:
    from planner.outputs.comparisons import print_frontier
    from planner.outputs.console import progress
    from planner.outputs.report import render_frontier_report
    from planner.pipeline.frontier import frontier as sweep

    inputs = with_gateway(load_inputs(workloads, catalog), deployable_on)
    out = Path(out)
    stem = _plan_stem(inputs, workloads) + (f".{file_stem(workload, str(workloads), '--workload')}" if workload else "")
    html, csv_path = out / f"{stem}.frontier.html", out / f"{stem}.frontier.csv"
    check_targets([html, csv_path], out)
    bar, step = progress(2 * points + 1, "frontier")  # and today's solve
    with bar:
        result = sweep(inputs, workload, points, progress=step)
    write_all({csv_path: result.to_csv(), html: render_frontier_report(result)})
    print_frontier(result, inputs.name, workload, html, csv_path)
    return exits.OK


def compare(old_path: Path, new_path: Path, out: Path, fmt: str, label: list[str] | None = None) -> int:
    from planner.outputs.comparisons import print_compare, report_stem
    from planner.outputs.report import render_compare_report
    from planner.outputs.terminal import print_rows
    from planner.plan.model import read_plan
    from planner.review.compare import compare_plans, labels

    if label and (len(label) != 2 or not all(x.strip() for x in label)):
        raise InputError.single("--label", "", f"given {len(label)} time(s); expected twice, a name for each plan")
    old, new = read_plan(old_path), read_plan(new_path)
    cmp = compare_plans(old, new, *labels(old, new, label))
    html = Path(out) / f"{report_stem(old, new, (old_path, new_path), label)}.compare.html"
    write_all({html: render_compare_report(cmp)})
    if fmt == "json":
        sys.stdout.write(json_text(cmp.model_dump(mode="json")))
    elif fmt == "csv":
        rescaled = _rescaled_workloads(cmp, old, new)
        print_rows(
            [
                {
                    "workload": w.id,
                    "cost_before": w.cost_before,
                    "cost_after": w.cost_after,
                    "routing_before": "; ".join(w.routing_before),
                    "routing_after": "; ".join(w.routing_after),
                    "changed": w.changed,
                    "reasons": "; ".join(cmp.reasons.get(w.id, [])),
                    "rescale": rescaled.get(w.id, ""),
                }
                for w in cmp.workloads
            ],
            "csv",
        )
    else:
        print_compare(cmp, html)
    return exits.OK


def _rescaled_workloads(cmp, old, new) -> dict[str, str]:
    """Per workload whose metric the comparison found rescaled: the rescale in one line."""
    lines = {r.metric: r.line() for r in cmp.rescales}
    metric = {w.id: w.metric for w in (*old.workloads, *new.workloads)}
    return {w.id: lines[metric[w.id]] for w in cmp.workloads if metric[w.id] in lines}


def catalog_show(catalog: Path, fmt: str, metric: str | None = None) -> int:
    from planner.optimize.options import build_options
    from planner.outputs.tables import catalog_rows, default_metric, metric_lines, metric_names
    from planner.outputs.terminal import print_catalog, print_rows

    cat = load_catalog(catalog)
    opts = build_options(cat)
    names = metric_names(cat, opts)
    if metric is None:
        metric = default_metric(cat, opts)
    elif metric not in names:
        raise InputError.single(
            str(catalog), "--metric", f"no metric '{metric}'; expected one of: {', '.join(names) or 'none'}"
        )
    title = f"{cat.catalog} (as of {cat.as_of}, {cat.currency})"
    if fmt == "table":
        print_catalog(cat, opts, metric_lines(cat, opts), title, metric)
    else:
        print_rows(catalog_rows(cat), fmt, title=title)
    return exits.OK


def catalog_validate(catalog: Path) -> int:
    from planner.optimize.options import build_options

    cat = load_catalog(catalog)
    tiers = sum(len(o.price_tiers) for o in cat.offerings)
    sold = f", {tiers} price tiers, {len(cat.commitments)} commitments" if tiers or cat.commitments else ""
    _say(
        f"{catalog}: ok: {len(cat.offerings)} offerings, {len(build_options(cat))} options{sold}, "
        f"{len({o.vendor for o in cat.offerings})} vendors"
    )
    return exits.OK


def catalog_import(
    kind: str,
    files: list[str],
    out: Path,
    name: str | None,
    as_of: str | None,
    free_tiers: bool = False,
    *,
    include: frozenset[str] = frozenset(),
) -> int:
    from planner.market.catalog_import import import_catalog

    out = Path(out)
    text, left_csv, result = import_catalog(kind, files, out, name, as_of, free_tiers=free_tiers, include=include)
    left = _left_out_path(out)
    write_all({out: text, left: left_csv, _identities_path(out): result.identities_csv()})
    _say(
        f"{out}: {len(result.offerings)} offerings (as of {result.as_of or 'unknown'}); "
        f"{len(result.left_out)} left out, listed in {left}"
    )
    by_reason: dict[tuple[str, str], int] = {}
    for src, _, reason in result.left_out:
        by_reason[(src, reason)] = by_reason.get((src, reason), 0) + 1
    for (src, reason), n in sorted(by_reason.items(), key=lambda kv: -kv[1]):
        _say(f"  left out: {n} from {src}: {reason}", file=sys.stderr)
    return exits.OK


def catalog_fetch(
    sources: list[str],
    out: Path,
    urls: dict[str, str | None],
    timeout_s: float | None = None,
    connect_timeout_s: float | None = None,
    retries: int | None = None,
    concurrency: int | None = None,
    out_catalog: Path | None = None,
    name: str | None = None,
    free_tiers: bool = False,
    deadline_s: float | None = None,
) -> int:
    """Download the sources into `out` (all or nothing); with `out_catalog`, then import them into it."""
    import time

    from planner.market.fetch import check_out, fetch_sources, settings, summary
    from planner.outputs.console import counter

    out = Path(out)
    cfg = settings(urls, timeout_s, connect_timeout_s, retries, concurrency, sources, deadline_s)
    check_out(out)
    if out_catalog is not None:
        check_targets([out_catalog, _left_out_path(Path(out_catalog)), _identities_path(Path(out_catalog))])
    start = time.monotonic()
    bar, grow, step = counter("fetch")
    with bar:
        result = fetch_sources(sources, out, cfg, grow, step)
    for note in result.notes:
        _say(note, file=sys.stderr)
    _say(summary(out, result, time.monotonic() - start), file=sys.stderr)
    if out_catalog is not None:
        return catalog_import(str(out), [], Path(out_catalog), name, None, free_tiers)
    return exits.OK


def _left_out_path(out: Path) -> Path:
    return out.with_name(out.name.split(".")[0] + ".left-out.csv")


def _identities_path(out: Path) -> Path:
    return out.with_name(out.name.split(".")[0] + ".identities.csv")


def catalog_diff(old: Path, new: Path, fmt: str) -> int:
    from planner.market.diff import diff_catalogs
    from planner.outputs.terminal import print_rows

    rows = diff_catalogs(load_catalog(old), load_catalog(new))
    if fmt == "table":
        counts = {k: sum(1 for r in rows if r["change"] == k) for k in ("added", "removed", "changed")}
        _say(
            f"{old} -> {new}: {counts['added']} added, {counts['removed']} removed, "
            f"{len({r['offering'] for r in rows if r['change'] == 'changed'})} changed "
            f"({counts['changed']} figures)"
        )
        for r in rows:
            if r["change"] in ("rescaled", "rounded"):  # one line each, above the table of the offerings' changes
                _say(r["note"])
        rows = [r for r in rows if r["change"] not in ("rescaled", "rounded")]
    print_rows(rows, fmt, title="catalog changes")
    return exits.OK


def _plain_dumper():
    """yaml's SafeDumper writing floats as fmt.plain does (0.000078, not 7.8e-05)."""
    import yaml

    from planner.core.fmt import plain

    class Dumper(yaml.SafeDumper):
        pass

    def number(d, x: float):
        text = plain(x)  # a whole number gets ".0", else YAML would read an int and tag it !!float '1'
        return d.represent_scalar("tag:yaml.org,2002:float", text if any(c in text for c in ".en") else text + ".0")

    Dumper.add_representer(float, number)
    return Dumper


def export(
    plan_path: Path,
    to: str,
    out: Path | None,
    sources: Path | None = None,
    allow_unknown: bool = False,
    shares_out: Path | None = None,
) -> int:
    """SPEC "Exports that deploy": every id, slug and effort checked against the gateways' lists; an
    option with anything unknown refuses the export (exit 2) unless --allow-unknown."""
    import yaml

    from planner.market.gateway_ids import load_sources
    from planner.outputs.gateway import to_litellm, to_openrouter
    from planner.plan.model import read_plan

    if to == "litellm" and shares_out is not None:
        raise InputError.single(
            str(shares_out), "--shares-out", "only for --to openrouter: LiteLLM's weights carry the shares"
        )
    plan = read_plan(plan_path)
    lists = load_sources(sources)
    files: dict[Path, str] = {}
    notes: list[str] = []
    if to == "litellm":
        config, unknown, notes = to_litellm(plan, lists)
        text = (  # the file name as text: a line break in it would start a line of YAML
            "# LiteLLM Router config generated by planner from "
            + visible(Path(plan_path).name)
            + "\n"
            + yaml.dump(config, Dumper=_plain_dumper(), sort_keys=False, width=120)
        )
    else:
        config, shares, unknown, notes = to_openrouter(plan, lists)
        text = json_text(config)
        if shares_out is None and out is not None:
            shares_out = Path(str(out) + ".shares.json")
        if shares_out is not None:
            files[Path(shares_out)] = json_text(shares)
        else:
            notes.append("the traffic shares were not written: give --out or --shares-out")
    if unknown and not allow_unknown:
        raise ExportError(str(plan_path), to, unknown)
    if out is not None:
        files[Path(out)] = text
    if files:
        write_all(files)
    if out is None:
        sys.stdout.write(text)
    if unknown:
        _say(f"note: exported with --allow-unknown, unchecked: {_unknown_text(unknown)}", file=sys.stderr)
    for note in notes:
        _say(f"note: {note}", file=sys.stderr)
    for path in files:
        _say(f"wrote {path}", file=sys.stderr)
    return exits.OK


def _unknown_text(unknown: dict[str, list[str]]) -> str:
    return "; ".join(f"{option} ({', '.join(problems)})" for option, problems in unknown.items())


def _out_folder(out: Path) -> Path:
    """The output folder, made if missing; an input error when it cannot be."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError.single(str(out), "--out", "exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError.single(str(out), "--out", f"cannot be written: {exc.strerror or exc}") from None
    return out


def _say(*parts, file=None) -> None:
    """A line for the terminal with text from the inputs in it (names, paths, reasons), shown as text."""
    print(*(visible(str(p)) for p in parts), file=file)


def workloads_from_logs(
    paths: list[Path],
    fmt: str,
    maps: list[str],
    group_by: str | None,
    task_by: str | None,
    period: str,
    out: Path,
    catalog: Path | None = None,
    name: str | None = None,
    workload: str | None = None,
    aggregates: Path | None = None,
) -> int:
    """SPEC "Plans from real traffic": logs -> the aggregation (planner/traffic/sql/aggregate.sql, in DuckDB) ->
    a workloads file and its distribution files."""
    from planner.traffic.aggregate import aggregates_csv, build_files, check_period, run_aggregates
    from planner.traffic.logs import LogOptions, open_logs, parse_map

    out = Path(out)
    _check_catalog(catalog)
    check_targets([out] + ([aggregates] if aggregates else []))
    check_period(period)
    options = LogOptions(fmt, parse_map(maps), group_by, task_by, workload)
    with timed("read logs"), open_logs(paths, options) as logs:
        with timed("aggregate"):
            agg, rows = run_aggregates(logs)
        provenance = _log_provenance(logs)
    written = build_files(agg, out, provenance, period, name, catalog)
    files = dict(written.files)
    if aggregates is not None:
        files[Path(aggregates)] = aggregates_csv(rows)
    write_all(files)
    _print_written(written, files, out)
    return exits.OK


def workloads_from_aggregates(
    path: Path, period: str, out: Path, catalog: Path | None = None, name: str | None = None
) -> int:
    """The same files from the CSV result of planner/traffic/sql/aggregate.sql run elsewhere."""
    from planner.traffic.aggregate import Provenance, build_files, check_period, read_aggregates, sha256

    out = Path(out)
    _check_catalog(catalog)
    check_targets([out])
    check_period(period)
    agg = read_aggregates(Path(path))
    digest = sha256(Path(path))
    provenance = Provenance(
        "from the result of planner/traffic/sql/aggregate.sql run elsewhere (the logs are not named there):",
        (f"{path}: sha256 {digest}",),
        (),
        f"aggregated elsewhere, read from {path} (sha256 {digest[:12]})",
    )
    written = build_files(agg, out, provenance, period, name, catalog, "planner workloads from-aggregates")
    write_all(written.files)
    _print_written(written, written.files, out)
    return exits.OK


def _check_catalog(catalog: Path | None) -> None:
    """A catalog named for the written file is read now, so that the file it names plans."""
    if catalog is not None:
        load_catalog(catalog)


def _log_provenance(logs):
    from planner.traffic.aggregate import Provenance

    n = len(logs.files)
    kind = {"csv": "CSV", "json": "JSON", "parquet": "Parquet"}[logs.kind]
    read_as = "" if logs.kind == logs.options.fmt else f", read as {kind}"
    source = f"from {n} log file{'s' if n > 1 else ''} (format {logs.options.fmt}{read_as}):"
    lines = []
    unit = "spans" if logs.options.fmt == "otel" else "rows"
    for f in logs.files:
        lines.append(f"{f.path}: {logs.rows.get(f.path, 0):,} {unit}, {f.size:,} bytes,")
        lines.append(f"  sha256 {f.sha256}")
    reading = []
    if logs.columns:
        reading.append("Columns read: " + ", ".join(f"{k} {v}" for k, v in logs.columns.items()) + ".")
    reading.append(f"Tasks: {logs.task_rule}.")
    reading.append(f"Workloads: {logs.group_rule}; a call without one: workload '{logs.default_workload}'.")
    for why, count in logs.left_out.items():
        reading.append(f"Left out: {count:,} {why}.")
    first = logs.files[0]
    phrase = f"from {n} log file{'s' if n > 1 else ''} ({logs.options.fmt}): {first.path} (sha256 {first.sha256[:12]})"
    if n > 1:
        phrase += f" and {n - 1} more"
    return Provenance(source, tuple(lines), tuple(reading), phrase)


def _print_written(written, files: dict, out: Path) -> None:
    from planner.core.fmt import count, plain

    for wid, w, tasks in written.workloads:
        _say(
            f"{wid}: {count(tasks)} tasks a period ({w.tasks:,} seen), peak {w.peak}/min, "
            f"{plain(w.calls / w.tasks)} call{'s' if w.calls != w.tasks else ''} per task"
        )
    for path in files:
        _say(f"wrote {path}", file=sys.stderr)
    _say(f"next: fill in each workload's latency and capability in {out}, then planner solve {out}", file=sys.stderr)


def replay(
    plan_path: Path,
    paths: list[Path],
    fmt: str,
    maps: list[str],
    group_by: str | None,
    task_by: str | None,
    workload: str | None,
    out: Path,
) -> int:
    """SPEC "Plans from real traffic": the plan's routing applied to logged tasks; the terminal summary,
    <out>/<name>.replay.html and <out>/<name>.replay.json."""
    from planner.outputs.comparisons import print_replay
    from planner.outputs.report import render_replay_report
    from planner.pipeline.replay import RULES, replay_data
    from planner.pipeline.replay import replay as run_replay
    from planner.plan.model import read_plan
    from planner.traffic.logs import LogOptions, open_logs, parse_map

    plan = read_plan(plan_path)
    out = Path(out)
    stem = file_stem(plan.name, str(plan_path))
    files = {"report": out / f"{stem}.replay.html", "data": out / f"{stem}.replay.json"}
    check_targets(files.values(), out)
    options = LogOptions(fmt, parse_map(maps), group_by, task_by, workload)
    with timed("read logs"), open_logs(paths, options) as logs:
        with timed("replay"):
            result = run_replay(plan, logs, str(plan_path))
        n = len(logs.files)
        source = f"{n} log file{'s' if n > 1 else ''} ({fmt}): " + ", ".join(f.path for f in logs.files[:3])
        source += f" and {n - 3} more" if n > 3 else ""
    _out_folder(out)
    write_all(
        {
            files["report"]: render_replay_report(result, source, RULES),
            files["data"]: json_text(replay_data(result, source)),
        }
    )
    print_replay(result, source, files)
    return exits.OK


def catalog_calibrate(
    catalog: Path,
    paths: list[Path],
    fmt: str,
    maps: list[str],
    out: Path,
    min_calls: int,
) -> int:
    """SPEC "Plans from real traffic": the catalog with the time to first token and output speed of the
    offerings seen in the logs measured from their calls."""
    from planner.core.fmt import figure
    from planner.market.calibrate import calibrate, calibrated_catalog
    from planner.traffic.logs import LogOptions, open_logs, parse_map

    cat = load_catalog(catalog)
    out = Path(out)
    check_targets([out])
    with timed("read logs"), open_logs(paths, LogOptions(fmt, parse_map(maps)), timings=True) as logs:
        result = calibrate(cat, logs, min_calls)
        text = calibrated_catalog(Path(catalog), result, logs)
    write_all({out: text})
    for m in result.measured:
        _say(
            f"{m.offering}: {m.timed:,} timed calls: ttft {figure(m.before[0], 3)} -> {figure(m.ttft_s, 3)} s "
            f"(p90 {figure(m.ttft[900], 3)}), output {figure(m.before[1], 3)} -> {figure(m.output_tps, 3)} tokens/s "
            f"(90% of calls at least {figure(m.speed[100], 3)})"
        )
    for m in result.too_few:
        _say(
            f"{m.offering}: {m.timed:,} timed calls of {m.calls:,}, fewer than {min_calls}: figures kept",
            file=sys.stderr,
        )
    for model, n, why in result.unmatched:
        _say(f"{model}: {n:,} calls not used: {why}", file=sys.stderr)
    _say(
        f"{out}: {len(result.measured)} offerings measured, {len(result.too_few)} seen too little, "
        f"{result.not_seen} not seen (figures kept)",
        file=sys.stderr,
    )
    return exits.OK
