"""What the commands that set plans side by side print on a terminal: what-if scenarios against their
base, two plans compared (`compare`), the cost of speed along a sweep (`frontier`) and a plan replayed
on its logged traffic (`replay`)."""

from __future__ import annotations

from pathlib import Path

from planner.core.files import file_stem
from planner.core.fmt import money, money_change, option, percent, seconds, signed_percent, visible
from planner.outputs.console import TABLE_ROWS, console, input_row, say, styled, titled_table
from planner.pipeline.frontier import Frontier
from planner.plan.model import Plan
from planner.review.compare import Comparison


def print_whatif(base: Plan, results, report: Path) -> None:
    """Each scenario's status, cost, change against the base and rerouted workloads; an infeasible
    scenario shows what it lacks and no cost or change (its cost is a relaxation's, not a plan's)."""
    cur = base.currency
    table = titled_table(f"{base.name}: base {base.status}, {money(base.total_cost, cur)} a {base.period}")
    table.add_column("scenario", overflow="fold", max_width=24)
    table.add_column("status", no_wrap=True)
    table.add_column(f"cost/{base.period}", justify="right", no_wrap=True)
    table.add_column("change", justify="right", no_wrap=True)
    table.add_column("rerouted, or what it lacks", ratio=1)
    for sc, plan, cmp in results:
        if plan.status != "optimal":
            input_row(table, sc.name, styled("no feasible plan", "red"), "-", "-", f"lacks: {cmp.lacks_after}")
            continue
        rerouted = ", ".join(w.id for w in cmp.workloads if w.changed) or "none"
        change = money_change(cmp.delta, cur) if cmp.comparable else "-"
        input_row(table, sc.name, plan.status, money(plan.total_cost, cur), change, rerouted)
    out = console()
    out.print(table)
    if base.status != "optimal":
        say(out, "the base has no feasible plan: changes in cost are not shown", style="yellow")
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
    table = titled_table(title)
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
            table.add_row(*(styled(c, "bold") for c in cells))
        else:
            input_row(table, *cells)
    out = console()
    out.print(table)
    reason = result.looser_but_dearer()
    if reason:
        say(out, f"note: {reason}", style="yellow")
    out.print(visible(f"report: {html}") + "\n" + visible(f"csv:    {csv_path}"))


def print_compare(cmp: Comparison, html: Path) -> None:
    """The change in total and its bridge (volumes, prices, catalog, routing), the metrics put on a
    new scale, per workload and per company, what changed on each rerouted workload's routes, and the
    offerings' changes. A plan with no feasible routing shows what it lacks, and no change in cost."""
    out = console()
    say(out, _compare_head(cmp))
    for note in cmp.notes:
        say(out, f"note: {note}", style="yellow")
    if cmp.bridge:
        out.print(_bridge_table(cmp))
        if cmp.bridge_note:
            say(out, cmp.bridge_note, style="yellow")
    _print_rescales(out, cmp)
    out.print(_workloads_table(cmp))
    if not cmp.comparable:
        say(out, "* under the smallest relaxation of a plan that does not exist: not a cost to compare")
    out.print(_companies_table(cmp))
    _print_reroutes(out, cmp)
    out.print(visible(f"report: {html}"))


def _compare_head(cmp: Comparison) -> str:
    """The two totals, and the change between them when both plans are feasible."""
    cur = cmp.currency

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
    return head


def _bridge_table(cmp: Comparison):
    """The change in cost in its four (or five) parts, each with its largest contributors."""
    bridge = titled_table(f"the change in cost, in {'five' if len(cmp.bridge) == 5 else 'four'} parts")
    bridge.add_column("part", ratio=1)
    bridge.add_column("change", justify="right", no_wrap=True)
    bridge.add_column("largest", ratio=1)
    for step in cmp.bridge:
        input_row(bridge, step.label, money_change(step.amount, cmp.currency), ", ".join(step.detail) or "-")
    return bridge


def _print_rescales(out, cmp: Comparison) -> None:
    """The metrics put on a new scale, and the floors that kept their number across one."""
    for r in cmp.rescales:
        say(out, r.line(), style="yellow")
    for k in cmp.kept_floors[:TABLE_ROWS]:
        say(out, k.text(), style="yellow")
    if len(cmp.kept_floors) > TABLE_ROWS:
        out.print(visible(f"... and {len(cmp.kept_floors) - TABLE_ROWS} more floors kept; see the report"))


def _workloads_table(cmp: Comparison):
    """Per workload (the rerouted and the largest changes when many): its cost before and after, and
    its routing when it changed."""
    cur = cmp.currency
    table = titled_table("by workload")
    table.add_column("workload", overflow="fold", max_width=22)
    for col in ("before", "after", "change"):
        table.add_column(col, justify="right", no_wrap=True)
    table.add_column("routing", ratio=1)
    rows = cmp.notable(TABLE_ROWS)
    for w in rows:
        change = None
        if cmp.comparable and w.cost_before is not None and w.cost_after is not None:
            change = w.cost_after - w.cost_before
        input_row(
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
    return table


def _companies_table(cmp: Comparison):
    """Spend per company before and after, the largest changes first."""
    cur = cmp.currency
    vendors = titled_table("by company (spend on what it bills or serves)")
    vendors.add_column("company", overflow="fold")
    for col in (cmp.label_before, cmp.label_after, "change"):
        vendors.add_column(col, justify="right", overflow="fold")
    for v in cmp.vendors[:TABLE_ROWS]:
        input_row(
            vendors,
            v.key,
            money(v.before, cur) if cmp.status_before == "optimal" else "no plan",
            money(v.after, cur) if cmp.status_after == "optimal" else "no plan",
            money_change(v.delta, cur) if cmp.comparable else "-",
        )
    if len(cmp.vendors) > TABLE_ROWS:
        vendors.caption = f"{TABLE_ROWS} of {len(cmp.vendors)} companies, the largest changes first"
    return vendors


def _print_reroutes(out, cmp: Comparison) -> None:
    """Why each rerouted workload moved, then the offerings' changes; the rest counted, in the report."""
    why = [(wid, reasons) for wid, reasons in cmp.reasons.items() if reasons]
    for wid, reasons in why[:TABLE_ROWS]:
        say(out, f"{wid} rerouted: " + "; ".join(reasons), "  ")
    for c in cmp.offering_changes[:TABLE_ROWS]:
        say(out, c.text(), "  ")
    more = max(0, len(why) - TABLE_ROWS) + max(0, len(cmp.offering_changes) - TABLE_ROWS)
    if more:
        out.print(visible(f"... and {more} more lines in the report"))


def _routing(routes: list[str], status: str | None) -> str:
    return ", ".join(routes) or ("not in the plan" if status is None else "no option")


def _cost(value: float | None, status: str | None, plan_status: str, cur: str) -> str:
    """A workload's cost in a comparison: none where it has no plan; marked where its plan is a relaxation's."""
    if value is None or status is None:
        return "-"
    if status != "ok":
        return "no option"
    return money(value, cur) + ("*" if plan_status != "optimal" else "")


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
    say(
        out,
        f"replay of {plan.name} ({plan.inputs.catalog}) on {source}: {result.tasks:,} tasks, {result.calls:,} calls",
    )
    table = titled_table("cost and share within budget: the plan's → the replay's")
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
            styled(within + flag, "red") if w.short else within,
        ]
        input_row(table, *cells)
    out.print(table)
    if len(result.workloads) > TABLE_ROWS:
        out.print(visible(f"and {len(result.workloads) - TABLE_ROWS} more workloads in the report"))
    for w in result.workloads[:TABLE_ROWS]:
        if w.below_rule and not w.short:
            got, required = shares_apart(w.within_share, w.required)
            say(
                out,
                f"note: {w.id}: {got} of its {w.tasks:,} tasks within "
                f"{seconds(w.plan.budget_s)}, under the rule's {required}, but within what "
                f"splitting {w.tasks:,} tasks can give by chance (the plan promised {percent(w.promised)})",
                style="yellow",
            )
    for w in result.flagged[:TABLE_ROWS]:
        rule = f"; the rule asks {shares_apart(w.within_share, w.required)[1]}" if w.below_rule else ""
        if w.short:
            got, promised = shares_apart(w.within_share, w.promised)
            say(
                out,
                f"short: {w.id}: {got} of its tasks within {seconds(w.plan.budget_s)}, "
                f"the plan promised {promised}{rule}",
                style="red",
            )
        for r in w.routes:
            if r.short:
                say(
                    out,
                    f"  {option(r.offering, r.mode)}: {r.tasks - r.within:,} of its {r.tasks:,} tasks over "
                    f"{seconds(w.plan.budget_s)} (p99 {seconds(r.latency.get(990))}), which its mean task meets",
                    "    ",
                )
    if result.unplanned:
        listed = ", ".join(f"{k} ({n:,} tasks)" for k, n in sorted(result.unplanned.items()))
        say(out, f"not in the plan: {listed}", style="yellow")
    if result.unrouted:
        listed = ", ".join(f"{k} ({n:,} tasks)" for k, n in sorted(result.unrouted.items()))
        say(out, f"no route in the plan (no feasible option): {listed}", style="yellow")
    if result.quiet:
        say(out, f"planned, no traffic in the logs: {', '.join(result.quiet)}")
    out.print(visible(f"report: {paths['report']}") + "\n" + visible(f"data:   {paths['data']}"))


def report_stem(old: Plan, new: Plan, files: tuple[Path, Path], given: list[str] | None = None) -> str:
    """The compare report's file name, before `.compare.html`: both sides, so that comparisons of other
    pairs into the same folder never overwrite it: the labels given, else each plan's name and scenario
    (as its plan file is named), with what first tells them apart when those are the same: the catalog
    (this quarter's plan against last quarter's), the workloads file, the plan file."""
    if given:
        return file_stem(f"{given[0]}-vs-{given[1]}", "--label", "name")
    for plan, file in ((old, files[0]), (new, files[1])):
        file_stem(plan.name, str(file))  # each side's name must be able to name a file on its own

    def side(p: Plan, file: Path, detail: int) -> str:
        told = ("", p.inputs.catalog, Path(p.inputs.workloads_file).stem, plan_stem(file))[detail]
        return ".".join(x for x in (p.name, p.inputs.scenario, told) if x)

    for detail in range(4):
        a, b = side(old, files[0], detail), side(new, files[1], detail)
        if a != b:
            break
    else:  # a plan against itself
        a, b = side(old, files[0], 0), side(new, files[1], 0)
    return file_stem(f"{a}-vs-{b}", "plan name", "name")


def plan_stem(file: Path) -> str:
    """A plan file's name without `.plan.json` (or its last suffix)."""
    name = Path(file).name
    return name[: -len(".plan.json")] if name.endswith(".plan.json") else Path(name).stem
