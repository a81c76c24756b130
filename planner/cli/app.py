"""The `planner` command line: parse, call, print, exit code. Heavy modules load inside commands.

Exit codes (exits.py and core.errors): 0 done; 1 internal error; 2 bad input or usage; 3 no feasible plan;
4 a download failed (catalog fetch: offline, an HTTP error after the retries, an answer that is not the
documented JSON); 128 + N stopped by signal N.
"""

from __future__ import annotations

import logging
import signal
import sys
from collections.abc import Callable
from enum import Enum
from pathlib import Path

import typer

from planner.cli import exits
from planner.core.version import __version__

app = typer.Typer(
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Route LLM workloads to model offerings at minimum cost, within latency budgets, "
    "capability floors and portfolio limits.",
)
catalog_app = typer.Typer(
    no_args_is_help=True, rich_markup_mode=None, help="List, check, fetch, import and diff catalogs."
)
app.add_typer(catalog_app, name="catalog")
workloads_app = typer.Typer(
    no_args_is_help=True, rich_markup_mode=None, help="Write workloads files from request logs or their aggregates."
)
app.add_typer(workloads_app, name="workloads")

GC_THRESHOLD = 100_000
_state = {"debug": False}


class Solver(str, Enum):
    auto = "auto"
    cbc = "cbc"
    highs = "highs"


SOLVER_HELP = (
    "LP solver: highs (highspy, fed the LP's arrays directly) or cbc (bundled with PuLP, through "
    "a PuLP model). auto: highs when highspy is installed, else cbc."
)


class Format(str, Enum):
    table = "table"
    json = "json"
    csv = "csv"


class Gateway(str, Enum):
    litellm = "litellm"
    openrouter = "openrouter"


DEPLOYABLE_HELP = (
    "Plan only options this gateway can address (ids, providers and efforts in its lists, as planner export "
    "writes them); the plan states the premium over the unrestricted optimum. Overrides policy.deployable_on."
)


def _gateway(value: Gateway | None) -> str | None:
    return None if value is None else value.value


def commands():
    """The commands' module, imported when a command runs (so that `planner --help` stays quick)."""
    from planner.cli import commands as module

    return module


def _err(message: str) -> None:
    print(message, file=sys.stderr)


def _guard(fn: Callable[[], int | None]) -> None:
    """Run a command body; turn known errors into one-line messages and exit codes."""
    from planner.core.errors import PlannerError

    try:
        code = fn() or exits.OK
    except PlannerError as exc:  # the one family: its own line and exit code
        _signalled()
        if _state["debug"]:
            raise
        for line in exc.lines(as_flags=True):
            _err(line)
        raise typer.Exit(exc.exit_code) from None
    except (typer.Exit, KeyboardInterrupt):
        raise
    except Exception as exc:
        _signalled()
        if _state["debug"]:
            raise
        _err(f"internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback)")
        raise typer.Exit(exits.INTERNAL) from None
    raise typer.Exit(code)


def _signalled() -> None:
    """A run stopped by a signal ends with the signal's exit code, even when a library caught the
    handler's exception and raised its own: DuckDB turns it into an InterruptException ("Query
    interrupted"), which would otherwise read as unreadable logs (exit 2) or an internal error."""
    signum = _state.get("signal")
    if signum:
        raise Stopped(128 + signum) from None


def _version(value: bool) -> None:
    if value:
        print(f"planner {__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks instead of one-line errors."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Print each stage's time on stderr."),
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version."),
) -> None:
    _state["debug"] = debug
    _verbose(verbose)


class _Stderr(logging.Handler):
    """Log lines on the stderr of the moment (a test runner swaps it between runs)."""

    def emit(self, record: logging.LogRecord) -> None:
        print(record.getMessage(), file=sys.stderr)


_STAGES = _Stderr()


def _verbose(on: bool) -> None:
    """Stage timings (logged at INFO by the pipeline) on stderr, or not: one handler, however many
    runs share this process."""
    log = logging.getLogger("planner")
    log.removeHandler(_STAGES)
    log.setLevel(logging.INFO if on else logging.NOTSET)
    if on:
        log.addHandler(_STAGES)


@app.command()
def solve(
    workloads: Path = typer.Argument(..., help="Workloads file (YAML)."),
    catalog: Path | None = typer.Option(None, "--catalog", help="Catalog file; overrides the workloads file's."),
    out: Path = typer.Option(Path("reports"), "--out", help="Folder for <name>.plan.json and <name>.html."),
    solver: Solver = typer.Option(Solver.auto, "--solver", help=SOLVER_HELP),
    fmt: Format = typer.Option(Format.table, "--format", help="table: summary; json: the plan; csv: allocations."),
    previous: Path | None = typer.Option(
        None,
        "--from",
        help="A plan file in force (last quarter's): a workload moving off its routes pays its switch cost.",
    ),
    switch_cost: float | None = typer.Option(
        None,
        "--switch-cost",
        help="What moving one workload off its --from routes costs, once a period (a workload's own "
        "switch_cost in the workloads file wins).",
    ),
    time_limit: float | None = typer.Option(
        None,
        "--time-limit",
        help="Seconds the integer search may take (commitments, switches, max_options); the best plan found "
        "is written with its gap, as 'feasible' unless proven optimal.",
    ),
    deployable_on: Gateway | None = typer.Option(None, "--deployable-on", help=DEPLOYABLE_HELP),
    full: bool = typer.Option(
        False,
        "--full",
        help="Write every rejected option and break-even price of each workload into the plan file (by default "
        "it keeps the 3 cheapest rejected options and 3 runner-ups, and counts the rest).",
    ),
) -> None:
    """Solve for the cheapest routing; write the plan file and the HTML report."""

    _guard(
        lambda: commands().solve(
            workloads,
            catalog,
            out,
            solver.value,
            fmt.value,
            previous,
            switch_cost,
            time_limit,
            _gateway(deployable_on),
            full=full,
        )
    )


@app.command()
def explain(
    workloads: Path = typer.Argument(..., help="Workloads file (YAML)."),
    workload: str = typer.Option(..., "--workload", help="The workload id to explain."),
    catalog: Path | None = typer.Option(None, "--catalog", help="Catalog file; overrides the workloads file's."),
    fmt: Format = typer.Option(Format.table, "--format", help="table, json or csv."),
    deployable_on: Gateway | None = typer.Option(None, "--deployable-on", help=DEPLOYABLE_HELP),
) -> None:
    """Every option for one workload: latency, cost, capability, eligible or why not."""

    _guard(lambda: commands().explain(workloads, workload, catalog, fmt.value, _gateway(deployable_on)))


@app.command()
def whatif(
    workloads: Path = typer.Argument(..., help="Workloads file (YAML)."),
    scenarios: list[Path] | None = typer.Argument(None, help="Scenario files (YAML), each solved on its own."),
    sets: list[str] | None = typer.Option(
        None,
        "--set",
        help="PATH=VALUE edits made into a scenario named 'set': "
        "offerings[GLOB].FIELD=V, workloads[GLOB].FIELD=V, policy.FIELD=V; "
        "V a number, *k, +k, -k or null.",
    ),
    without: list[str] | None = typer.Option(
        None,
        "--without-vendor",
        help="A scenario without this vendor, given by its name (not a pattern; repeatable: one scenario each).",
    ),
    catalog: Path | None = typer.Option(None, "--catalog", help="Catalog file; overrides the workloads file's."),
    out: Path = typer.Option(Path("reports"), "--out", help="Folder for the scenario plans and the what-if report."),
    solver: Solver = typer.Option(Solver.auto, "--solver", help=SOLVER_HELP),
    full: bool = typer.Option(
        False,
        "--full",
        help="Also compute each scenario's break-even prices and baselines (as planner solve does), and write "
        "them whole into its plan file (as planner solve --full does); slower.",
    ),
    jobs: int | None = typer.Option(
        None, "--jobs", min=1, help="Scenarios solved at once (default: the number of cores)."
    ),
    deployable_on: Gateway | None = typer.Option(None, "--deployable-on", help=DEPLOYABLE_HELP),
) -> None:
    """Solve the base plan and each scenario; compare them in <name>.whatif.html."""

    _guard(
        lambda: commands().whatif(
            workloads,
            catalog,
            list(scenarios or []),
            list(sets or []),
            list(without or []),
            out,
            solver.value,
            review=full,
            jobs=jobs,
            deployable_on=_gateway(deployable_on),
        )
    )


@app.command()
def frontier(
    workloads: Path = typer.Argument(..., help="Workloads file (YAML)."),
    workload: str | None = typer.Option(None, "--workload", help="Sweep one workload; default: the whole portfolio."),
    points: int = typer.Option(30, "--points", min=3, max=500, help="Points per sweep."),
    catalog: Path | None = typer.Option(None, "--catalog", help="Catalog file; overrides the workloads file's."),
    out: Path = typer.Option(Path("reports"), "--out", help="Folder for <name>.frontier.html and .csv."),
    deployable_on: Gateway | None = typer.Option(None, "--deployable-on", help=DEPLOYABLE_HELP),
) -> None:
    """Minimum cost as the latency budget and the capability floor sweep (the cost of speed)."""

    _guard(lambda: commands().frontier(workloads, catalog, workload, points, out, _gateway(deployable_on)))


@app.command()
def compare(
    old: Path = typer.Argument(..., help="The earlier plan file (.plan.json)."),
    new: Path = typer.Argument(..., help="The later plan file (.plan.json)."),
    out: Path = typer.Option(Path("reports"), "--out", help="Folder for <old>-vs-<new>.compare.html."),
    fmt: Format = typer.Option(Format.table, "--format", help="table, json or csv."),
    label: list[str] = typer.Option(
        [], "--label", help="Names for the two plans, given twice (default: each plan's catalog and date)."
    ),
) -> None:
    """Quarter over quarter: cost, routing, vendor and price changes between two plans."""

    _guard(lambda: commands().compare(old, new, out, fmt.value, label))


@app.command()
def serve(
    workloads: Path = typer.Argument(..., help="Workloads file (YAML)."),
    port: int = typer.Option(8000, "--port", min=0, max=65535, help="Port to serve on (0: any free one)."),
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Address to serve on; anything but this machine's own lets others use the page."
    ),
    scenarios_dir: Path = typer.Option(
        Path("."), "--scenarios-dir", help="The only folder 'save as scenario' writes in (default: the current one)."
    ),
    catalog: Path | None = typer.Option(None, "--catalog", help="Catalog file; overrides the workloads file's."),
    solver: Solver = typer.Option(Solver.auto, "--solver", help=SOLVER_HELP),
) -> None:
    """The live review: the plan as a page whose controls (prices, budgets, traffic, caps, outages)
    re-solve it; saves the changes as a scenario for planner whatif."""

    _guard(lambda: commands().serve(workloads, catalog, host, port, scenarios_dir, solver.value))


@catalog_app.command("show")
def catalog_show(
    catalog: Path = typer.Argument(..., help="Catalog file (YAML)."),
    fmt: Format = typer.Option(Format.table, "--format", help="table, json or csv (json and csv: every metric)."),
    metric: str | None = typer.Option(
        None,
        "--metric",
        help="The capability metric the table shows; default: the catalog's first declared metric.",
    ),
) -> None:
    """List a catalog's options (offering x mode) with prices, speeds and capability."""

    _guard(lambda: commands().catalog_show(catalog, fmt.value, metric))


@catalog_app.command("validate")
def catalog_validate(catalog: Path = typer.Argument(..., help="Catalog file (YAML).")) -> None:
    """Check a catalog file; exit 0 when it is valid, 2 with every problem otherwise."""

    _guard(lambda: commands().catalog_validate(catalog))


class Source(str, Enum):
    litellm = "litellm"
    openrouter = "openrouter"
    aa = "aa"


@catalog_app.command("import")
def catalog_import(
    source: str = typer.Argument(
        ...,
        help="The kind of the files: litellm, openrouter or aa; or a folder `planner catalog fetch` wrote.",
    ),
    files: list[str] | None = typer.Argument(
        None,
        help="Source files; prefix one with KIND: to mix sources "
        "(aa table.csv litellm:prices.json openrouter:models.json); a fetched folder stands for its files.",
    ),
    out: Path = typer.Option(
        ...,
        "--out",
        help="The catalog to write (YAML); the offerings left out go to <out stem>.left-out.csv beside it.",
    ),
    name: str | None = typer.Option(None, "--name", help="Catalog name; default: the output file's stem."),
    as_of: str | None = typer.Option(
        None,
        "--as-of",
        help="Date of the numbers; default: the Artificial Analysis scrape date when its meta file is beside it, "
        "else the date a fetched file was fetched.",
    ),
    free_tiers: bool = typer.Option(
        False,
        "--free-tiers",
        help="Import free tiers (price 0/0) that publish a rate limit, with tier free and that limit as capacity.",
    ),
    include_deprecated: bool = typer.Option(
        False,
        "--include-deprecated",
        help="Keep endpoints whose litellm deprecation date is on or before the catalog's date (left out by default).",
    ),
    include_preview: bool = typer.Option(
        False, "--include-preview", help="Keep preview models (left out by default: not generally available)."
    ),
) -> None:
    """Build a catalog from litellm's price table, OpenRouter's models listing and endpoints, and the
    Artificial Analysis providers table or API (prices from one, measured speeds from another)."""

    include = frozenset(k for k, on in (("deprecated", include_deprecated), ("preview", include_preview)) if on)
    _guard(lambda: commands().catalog_import(source, list(files or []), out, name, as_of, free_tiers, include=include))


@catalog_app.command("fetch")
def catalog_fetch(
    sources: list[Source] = typer.Argument(..., help="What to download: openrouter, litellm and/or aa."),
    out: Path = typer.Option(
        ...,
        "--out",
        help="The folder to write: each answer as it came, with PROVENANCE.json and PROVENANCE.md "
        "(a former fetch there is replaced, whole, only when every download succeeded).",
    ),
    do_import: bool = typer.Option(False, "--import", help="Then import the fetched files into --out-catalog."),
    out_catalog: Path | None = typer.Option(
        None, "--out-catalog", help="The catalog --import writes (YAML), with its .left-out.csv beside it."
    ),
    name: str | None = typer.Option(None, "--name", help="With --import: the catalog's name."),
    free_tiers: bool = typer.Option(False, "--free-tiers", help="With --import: as catalog import --free-tiers."),
    openrouter_url: str | None = typer.Option(
        None, "--openrouter-url", help="OpenRouter's base URL (env PLANNER_OPENROUTER_URL; https://openrouter.ai)."
    ),
    litellm_url: str | None = typer.Option(
        None,
        "--litellm-url",
        help="The URL of litellm's price table (env PLANNER_LITELLM_URL; default: BerriAI/litellm's main branch).",
    ),
    aa_url: str | None = typer.Option(
        None, "--aa-url", help="Artificial Analysis's base URL (env PLANNER_AA_URL; https://artificialanalysis.ai)."
    ),
    timeout: float | None = typer.Option(
        None, "--timeout", help="Seconds to wait for an answer's next bytes (PLANNER_FETCH_TIMEOUT_S; 60)."
    ),
    connect_timeout: float | None = typer.Option(
        None, "--connect-timeout", help="Seconds to wait to connect (PLANNER_FETCH_CONNECT_TIMEOUT_S; 10)."
    ),
    retries: int | None = typer.Option(
        None, "--retries", min=0, max=20, help="Attempts after the first, with backoff (PLANNER_FETCH_RETRIES; 4)."
    ),
    deadline: float | None = typer.Option(
        None,
        "--deadline",
        help="Seconds one attempt at a download may take, first byte to last (PLANNER_FETCH_DEADLINE_S; 300).",
    ),
    concurrency: int | None = typer.Option(
        None, "--concurrency", min=1, max=32, help="Endpoints lists fetched at once (PLANNER_FETCH_CONCURRENCY; 4)."
    ),
) -> None:
    """Download the public sources (OpenRouter's models, providers and endpoints; litellm's price table;
    the Artificial Analysis API, with ARTIFICIAL_ANALYSIS_API_KEY) into a folder, with their provenance.
    Exit 4 when a download fails; nothing is then written."""

    def run():
        from planner.core.errors import InputError

        if do_import and out_catalog is None:
            raise InputError.single("--import", "", "needs --out-catalog FILE: the catalog to write")
        urls = {"openrouter": openrouter_url, "litellm": litellm_url, "aa": aa_url}
        return commands().catalog_fetch(
            [s.value for s in sources],
            out,
            urls,
            timeout,
            connect_timeout,
            retries,
            concurrency,
            out_catalog,
            name,
            free_tiers,
            deadline,
        )

    _guard(run)


@catalog_app.command("diff")
def catalog_diff(
    old: Path = typer.Argument(..., help="The earlier catalog."),
    new: Path = typer.Argument(..., help="The later catalog."),
    fmt: Format = typer.Option(Format.table, "--format", help="table, json or csv."),
) -> None:
    """Offerings added, removed, and changed in price, speed, capacity or capability."""

    _guard(lambda: commands().catalog_diff(old, new, fmt.value))


@app.command()
def export(
    plan: Path = typer.Argument(..., help="A plan file (.plan.json)."),
    to: Gateway = typer.Option(..., "--to", help="litellm: a Router config.yaml; openrouter: request bodies."),
    out: Path | None = typer.Option(None, "--out", help="File to write; default: print."),
    sources: Path | None = typer.Option(
        None,
        "--sources",
        help="Folder with the gateways' lists to check ids against (litellm's model map, OpenRouter's "
        "models and providers, as `planner catalog fetch` saves them); default: catalogs/sources.",
    ),
    allow_unknown: bool = typer.Option(
        False, "--allow-unknown", help="Export options whose id, provider or effort no list has, and name them."
    ),
    shares_out: Path | None = typer.Option(
        None, "--shares-out", help="OpenRouter: file for the traffic shares; default: <out>.shares.json."
    ),
) -> None:
    """Turn a plan into a gateway's routing configuration, every id checked against the gateway's lists."""

    _guard(lambda: commands().export(plan, to.value, out, sources, allow_unknown, shares_out))


FORMAT_HELP = (
    "litellm: LiteLLM proxy spend logs (LiteLLM_SpendLogs as CSV, JSON lines or Parquet); otel: OpenTelemetry "
    "GenAI spans, JSON lines of the collector's file exporter; csv: a plain CSV (or Parquet) with --map."
)
GROUP_HELP = (
    "What makes a workload: litellm: model_group (default), tag or a column; otel: an attribute "
    "(default service.name); csv: a column (default: one workload)."
)
TASK_HELP = (
    "What makes a task: litellm: session (default: session_id), call or a column; otel: trace (default), "
    "conversation, call or an attribute; csv: a column (default: task_id, session_id, trace_id or "
    "conversation_id when present), or call."
)
MAP_HELP = (
    "csv: COLUMN=FIELD, FIELD one of time, end, first_token, input, output, reasoning, cached_input, model "
    "(default: recognised names, the Azure trace's TIMESTAMP, ContextTokens, GeneratedTokens among them)."
)
PERIOD_HELP = "What the written file counts tasks per: day, week, month (30 days), quarter (90 days) or year."
WORKLOAD_HELP = "The workload of calls with nothing to group them by (default: the first log file's name)."


@workloads_app.command("from-logs")
def workloads_from_logs(
    logs: list[Path] = typer.Argument(
        ..., help="Log files: CSV, JSON lines or Parquet (gzipped CSV and JSON read too)."
    ),
    fmt: str = typer.Option(..., "--format", help=FORMAT_HELP),
    maps: list[str] = typer.Option([], "--map", help=MAP_HELP),
    group_by: str | None = typer.Option(None, "--group-by", help=GROUP_HELP),
    task_by: str | None = typer.Option(None, "--task-by", help=TASK_HELP),
    period: str = typer.Option("month", "--period", help=PERIOD_HELP),
    out: Path = typer.Option(..., "--out", help="The workloads file to write; its distribution files go beside it."),
    catalog: Path | None = typer.Option(None, "--catalog", help="The catalog the written file names."),
    name: str | None = typer.Option(None, "--name", help="The plan's name; default: the output file's stem."),
    workload: str | None = typer.Option(None, "--workload", help=WORKLOAD_HELP),
    aggregates: Path | None = typer.Option(
        None, "--aggregates", help="Also write the aggregation's result, the CSV from-aggregates reads."
    ),
) -> None:
    """Workloads from request logs: volumes, peak, calls per task, tokens, and each workload's
    distribution of tasks; latency budgets and floors are left for a person."""

    _guard(
        lambda: commands().workloads_from_logs(
            list(logs), fmt, list(maps), group_by, task_by, period, out, catalog, name, workload, aggregates
        )
    )


@workloads_app.command("from-aggregates")
def workloads_from_aggregates(
    aggregates: Path = typer.Argument(..., help="The CSV result of planner/traffic/sql/aggregate.sql run elsewhere."),
    period: str = typer.Option("month", "--period", help=PERIOD_HELP),
    out: Path = typer.Option(..., "--out", help="The workloads file to write; its distribution files go beside it."),
    catalog: Path | None = typer.Option(None, "--catalog", help="The catalog the written file names."),
    name: str | None = typer.Option(None, "--name", help="The plan's name; default: the output file's stem."),
) -> None:
    """The same workloads file from the aggregation queries' result (run in a warehouse)."""

    _guard(lambda: commands().workloads_from_aggregates(aggregates, period, out, catalog, name))


@catalog_app.command("calibrate")
def catalog_calibrate(
    catalog: Path = typer.Argument(..., help="Catalog file (YAML)."),
    logs: list[Path] = typer.Argument(..., help="Log files with timings: LiteLLM spend logs or OpenTelemetry spans."),
    fmt: str = typer.Option(..., "--format", help=FORMAT_HELP),
    maps: list[str] = typer.Option([], "--map", help=MAP_HELP),
    out: Path = typer.Option(..., "--out", help="The calibrated catalog to write (YAML)."),
    min_calls: int = typer.Option(
        20, "--min-calls", min=1, help="Timed calls an offering needs before its figures are replaced."
    ),
) -> None:
    """Replace the time to first token and output speed of the offerings seen in the logs with the
    medians of their own calls (matched by id, gateway id or model name); the others keep theirs."""

    _guard(lambda: commands().catalog_calibrate(catalog, list(logs), fmt, list(maps), out, min_calls))


@app.command()
def replay(
    plan: Path = typer.Argument(..., help="A plan file (.plan.json)."),
    logs: list[Path] = typer.Argument(..., help="Log files, read as workloads from-logs reads them."),
    fmt: str = typer.Option(..., "--format", help=FORMAT_HELP),
    maps: list[str] = typer.Option([], "--map", help=MAP_HELP),
    group_by: str | None = typer.Option(None, "--group-by", help=GROUP_HELP),
    task_by: str | None = typer.Option(None, "--task-by", help=TASK_HELP),
    workload: str | None = typer.Option(None, "--workload", help=WORKLOAD_HELP),
    out: Path = typer.Option(Path("reports"), "--out", help="Folder for <name>.replay.html and <name>.replay.json."),
) -> None:
    """Apply a plan's routing to logged traffic: each task down one route by the plan's shares, timed on
    its own tokens; cost, p50/p90/p99 and the share within budget against the plan's promise."""

    _guard(lambda: commands().replay(plan, list(logs), fmt, list(maps), group_by, task_by, workload, out))


def main() -> None:
    import gc

    # A run builds many small objects that live until it ends (parsed YAML, the plan); the cyclic
    # collector's default first threshold (700) rescans them thousands of times over a large solve.
    # Collect far less often instead (measured in benchmarks/RESULTS.md).
    gc.set_threshold(GC_THRESHOLD, 50, 100)
    # SIGTERM and SIGINT end a run the same way: the exception unwinds through the commands' cleanup
    # (no staged file left in --out, no worker left running), then the exit code says which signal.
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    app()


class Stopped(SystemExit):
    """The run was stopped by a signal (exit 128 + its number)."""


def _stop(signum, frame) -> None:
    if not _state.get("signal"):
        print("stopped", file=sys.stderr)
    _state["signal"] = signum
    raise Stopped(128 + signum)


if __name__ == "__main__":
    main()
