"""A plan's routing applied to logged traffic (SPEC "Plans from real traffic", `planner replay`).

The plan promises, per workload, a share of tasks within the latency budget, worked out from the mean
tokens per call. Real tasks have long tails; the replay sends every logged task down one of its
workload's routes and times it on its own calls and tokens, so the tails show. The rules, which an
independent computation reproduces (tests/pipeline/test_replay.py does):

- a task is a (workload, task id) of the logs, read as `from-logs` reads them;
- u(task) = the first 8 bytes of md5(task id, UTF-8) read as a little-endian integer, its lowest 12 bits
  dropped, / 2^52: in [0, 1), exact in a float64 (in Python: (int.from_bytes(md5(id).digest()[:8],
  "little") >> 12) / 2**52; the logs keep each task id as DuckDB's md5_number, its 16 digest bytes
  read little-endian, whose low 64 bits these are);
- the workload's allocations in (offering, mode) order, with bounds c_k = (s_1 + ... + s_k) / (s_1 + ...
  + s_K) summed left to right in float64 and the last bound 1; the task takes the first route with
  u < c_k, so each route gets its share of tasks, and the same task always the same route;
- its latency and cost are SPEC 3's with the task's own calls as turns and its own tokens per call (the
  means over its calls): reasoning = max(reasoning x the mode's factor, the option's measured thinking),
  call_s = ttft_s + input / prefill_tps + (reasoning + output) / output_tps, at the option's speeds at the
  task's input tokens per call where the plan gives them by prompt length (`speed_by_input`: piecewise linear
  in log input tokens, the nearest measured length outside them; prefill_tps then reads only the input
  beyond the longest length the first-token time was measured at; SPEC "Speeds by prompt length"),
  latency = calls x call_s +
  (calls - 1) x tool_latency_s (streaming: to the final call's first answer token), cost = calls x
  ((input - cached) x price.input + cached x price.cached_input + (reasoning + output) x price.output) / 1e6;
- within budget: latency <= the plan's budget_s (a workload with no budget: every task);
- percentiles are nearest-rank: the p-th is the ceil(p x n)-th smallest of the n tasks' latencies;
- cost a period = the mean cost of the logged tasks x the plan's tasks a period.

DuckDB does the work on the logs' own database, so ten million calls stay out of Python.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from planner.plan.model import Allocation, Plan, WorkloadPlan
from planner.traffic.logs import Logs, workload_id

PER_MILLE = (500, 900, 990)  # the percentiles reported: p50, p90, p99
CDF_POINTS = 1000  # per-mille points of each workload's latency curve (the report's chart)
SHORT = 1e-9  # a replayed share below the promise by more than this (and the split's noise) is flagged


def noise(promised: float, tasks: int) -> float:
    """How far a replayed share can fall below its promise by the luck of the split alone: two
    standard errors of a share of `tasks` tasks (0 for a promise of all or none, which one task breaks)."""
    return 2.0 * math.sqrt(max(promised * (1.0 - promised), 0.0) / tasks) if tasks else 0.0


@dataclass
class RouteReplay:
    offering: str
    mode: str
    share: float  # the plan's
    within_promised: float  # the share of its tasks the plan promised within budget (its sample tasks', or all/none)
    tasks: int = 0
    cost: float = 0.0  # of the logged tasks
    within: int = 0  # logged tasks within budget
    latency: dict[int, float] = field(default_factory=dict)  # per mille -> seconds

    @property
    def within_share(self) -> float | None:
        return self.within / self.tasks if self.tasks else None

    @property
    def short(self) -> bool:
        share = self.within_share
        return share is not None and share < self.within_promised - max(SHORT, noise(self.within_promised, self.tasks))


@dataclass
class WorkloadReplay:
    id: str
    logged_as: list[str]
    plan: WorkloadPlan
    routes: list[RouteReplay]
    tasks: int = 0
    calls: int = 0
    cost: float = 0.0  # of the logged tasks
    within: int = 0
    latency: dict[int, float] = field(default_factory=dict)  # per mille -> seconds (p50, p90, p99 and the curve)

    @property
    def within_share(self) -> float | None:
        return self.within / self.tasks if self.tasks else None

    @property
    def promised(self) -> float | None:
        return self.plan.within_budget_share

    @property
    def required(self) -> float:
        return self.plan.within_budget_share_required

    @property
    def cost_per_task(self) -> float | None:
        return self.cost / self.tasks if self.tasks else None

    @property
    def cost_per_period(self) -> float | None:
        return None if self.cost_per_task is None else self.cost_per_task * self.plan.tasks

    @property
    def short(self) -> bool:
        """The replayed share within budget falls short of what the plan promised."""
        share, promised = self.within_share, self.promised
        return share is not None and promised is not None and share < promised - max(SHORT, noise(promised, self.tasks))

    @property
    def below_rule(self) -> bool:
        share = self.within_share
        return share is not None and self.plan.budget_s is not None and share < self.required - SHORT

    def percentile(self, per_mille: int) -> float | None:
        return self.latency.get(per_mille)


@dataclass
class Replay:
    plan: Plan
    workloads: list[WorkloadReplay]
    unplanned: dict[str, int]  # logged workload id -> its tasks: the plan has no such workload
    unrouted: dict[str, int]  # planned workload with no allocation (infeasible) -> its logged tasks
    quiet: list[str]  # planned workloads with no task in the logs
    calls: int
    tasks: int

    @property
    def flagged(self) -> list[WorkloadReplay]:
        return [w for w in self.workloads if w.short or any(r.short for r in w.routes)]


def bounds(allocations: list[Allocation]) -> list[tuple[Allocation, float, float]]:
    """Each allocation in (offering, mode) order with its [lo, hi) interval of u."""
    ordered = sorted(allocations, key=lambda a: (a.offering, a.mode))
    total = 0.0
    for a in ordered:
        total += a.share
    out, running, lo = [], 0.0, 0.0
    for k, a in enumerate(ordered):
        running += a.share
        hi = 1.0 if k == len(ordered) - 1 else running / total
        out.append((a, lo, hi))
        lo = hi
    return out


def replay(plan: Plan, logs: Logs, plan_file: str = "the plan") -> Replay:
    """Route and time every logged task (see the module's rules); plan_file names the plan in errors."""
    names, tasks = _logged(logs)
    replays, routes = _routes(plan, names, plan_file)
    _load_routes(logs, routes)
    _tally(logs, replays)
    _latencies(logs, replays)
    by_id = {w.id: w for w in plan.workloads}
    return Replay(
        plan,
        [replays[w.id] for w in plan.workloads if w.id in replays],
        {wid: n for wid, n in tasks.items() if wid not in by_id},
        {wid: n for wid, n in tasks.items() if wid in by_id and not by_id[wid].allocations},
        [w.id for w in plan.workloads if w.id not in tasks],
        logs.calls,
        sum(tasks.values()),
    )


def _logged(logs: Logs) -> tuple[dict[str, list[str]], dict[str, int]]:
    """The logged workloads by the id a plan gives them (logs.workload_id): the names logged under each
    id, and its tasks."""
    names: dict[str, list[str]] = {}
    tasks: dict[str, int] = {}
    for name, n, _ in logs.sql(
        "SELECT workload, count(DISTINCT task_id), count(*) FROM calls GROUP BY workload ORDER BY workload"
    ):
        wid = workload_id(name) or "unnamed"
        names.setdefault(wid, []).append(name)
        tasks[wid] = tasks.get(wid, 0) + n
    return names, tasks


def _routes(plan: Plan, names: dict[str, list[str]], plan_file: str) -> tuple[dict[str, WorkloadReplay], list[tuple]]:
    """Each planned workload with logged tasks and a routing, its routes in (offering, mode) order, and
    the rows of the routes table: one per route and logged name, with the route's figures."""
    rows: list[tuple] = []
    replays: dict[str, WorkloadReplay] = {}
    catalog = plan.catalog_index
    for i, w in enumerate(plan.workloads):
        if w.id not in names or not w.allocations:
            continue
        routes = []
        for k, (a, lo, hi) in enumerate(bounds(w.allocations)):
            price = catalog.get(a.offering)
            if price is None or a.output_tps is None or a.ttft_s is None:
                from planner.core.errors import InputError

                raise InputError.single(
                    plan_file,
                    f"workloads[{i}].allocations[{w.allocations.index(a)}]",
                    f"the plan has no speed or price for {a.offering} ({a.mode}); solve it again with this planner",
                )
            promised = a.within_budget_share if a.within_budget_share is not None else float(a.within_budget)
            routes.append(RouteReplay(a.offering, a.mode, a.share, promised))
            figures = (
                lo,
                hi,
                a.ttft_s,
                a.prefill_tps,
                a.output_tps,
                *_lengths(a),
                a.reasoning_factor,
                a.thinking_tokens,
                price.price_input,
                price.price_input if price.price_cached_input is None else price.price_cached_input,
                price.price_output,
                w.tool_latency_s,
                w.streaming,
                w.budget_s,
            )
            rows.extend((name, w.id, k, *figures) for name in names[w.id])
        replays[w.id] = WorkloadReplay(w.id, sorted(names[w.id]), w, routes)
    return replays, rows


def _lengths(a: Allocation) -> tuple[list[float], list[float], list[float], list[float], float]:
    """An allocation's speeds by prompt length as the routes table holds them: the lengths and medians of
    output speed, those of the first-token time (each ascending; empty: one length), and the input tokens
    its first-token times already read (the longest of their lengths; 0 when the plan states none)."""
    measured = a.speed_by_input or {}
    tps = [(float(k), v.output_tps) for k, v in sorted(measured.items()) if v.output_tps is not None]
    ttft = [(float(k), v.ttft_s) for k, v in sorted(measured.items()) if v.ttft_s is not None]
    read = max((k for k, _ in ttft), default=0.0)
    tps, ttft = (p if len(p) > 1 else [] for p in (tps, ttft))
    return [k for k, _ in tps], [v for _, v in tps], [k for k, _ in ttft], [v for _, v in ttft], read


def _load_routes(logs: Logs, rows: list[tuple]) -> None:
    """The routes table the replay's SQL reads (columns in _routes' order), and the macro that reads a
    speed at a task's prompt length."""
    logs.sql(
        "CREATE OR REPLACE TABLE routes (workload VARCHAR, wid VARCHAR, k INTEGER, lo DOUBLE, hi DOUBLE, "
        "ttft DOUBLE, prefill DOUBLE, tps DOUBLE, tps_len DOUBLE[], tps_at DOUBLE[], ttft_len DOUBLE[], "
        "ttft_at DOUBLE[], read DOUBLE, factor DOUBLE, thinking DOUBLE, p_in DOUBLE, p_cached DOUBLE, "
        "p_out DOUBLE, tool DOUBLE, streaming BOOLEAN, budget DOUBLE)"
    )
    logs.sql(_AT_LENGTH_SQL)
    if rows:
        logs.insert("INSERT INTO routes VALUES (" + ", ".join("?" * 21) + ")", rows)


# A median at x input tokens per call from its lengths xs (ascending) and values ys: straight lines in
# log(x) between two measured lengths (the segment's lower end is the j-th, j the count of xs <= x), the
# nearest measured one's outside them, y0 (the figure at the one length) when fewer than two are measured.
_AT_LENGTH_SQL = """
CREATE OR REPLACE TEMP MACRO between_lengths(x, xs, ys, j) AS
    ys[j] + (ln(x) - ln(xs[j])) / (ln(xs[j + 1]) - ln(xs[j])) * (ys[j + 1] - ys[j]);
CREATE OR REPLACE TEMP MACRO at_length(x, xs, ys, y0) AS
    CASE WHEN len(xs) < 2 THEN y0 WHEN x <= xs[1] THEN ys[1] WHEN x >= xs[-1] THEN ys[-1]
         ELSE between_lengths(x, xs, ys, len(list_filter(xs, lambda v: v <= x))) END;
"""


def _tally(logs: Logs, replays: dict[str, WorkloadReplay]) -> None:
    """Every logged task routed and timed (_REPLAY_SQL, into the table replayed), then counted per route
    and per workload: tasks, calls, cost and those within budget."""
    logs.sql(_REPLAY_SQL)
    for wid, k, tasks, calls, cost, within in logs.sql(
        "SELECT wid, k, count(*), sum(n), sum(cost), count(*) FILTER (WHERE within) FROM replayed "
        "GROUP BY wid, k ORDER BY wid, k"
    ):
        w = replays[wid]
        r = w.routes[k]
        r.tasks, r.cost, r.within = int(tasks), float(cost), int(within)
        w.tasks += int(tasks)
        w.calls += int(calls)
        w.cost += float(cost)
        w.within += int(within)


def _latencies(logs: Logs, replays: dict[str, WorkloadReplay]) -> None:
    """Each workload's latency curve (every per mille) and each route's p50, p90 and p99; then the
    replayed tasks are dropped."""
    every = f"range(1, {CDF_POINTS + 1})"
    for wid, per_mille, latency in logs.sql(_PERCENTILES_SQL.format(by="wid", points=every, on_wanted="w.wid")):
        replays[wid].latency[int(per_mille)] = float(latency)
    chosen = "(VALUES " + ", ".join(f"({p})" for p in PER_MILLE) + ")"
    for wid, k, per_mille, latency in logs.sql(
        _PERCENTILES_SQL.format(by="wid, k", points=chosen, on_wanted="w.wid, w.k")
    ):
        replays[wid].routes[k].latency[int(per_mille)] = float(latency)
    logs.sql("DROP TABLE replayed")


_REPLAY_SQL = """
CREATE OR REPLACE TABLE replayed AS
WITH tasks AS (
    SELECT workload, task_id, count(*) AS n, sum(input_tokens) AS i, sum(output_tokens) AS o,
           sum(reasoning_tokens) AS r, sum(cached_tokens) AS c
    FROM calls GROUP BY workload, task_id
),
hashed AS (
    SELECT *, CAST((task_id & CAST(18446744073709551615 AS UHUGEINT)) >> 12 AS DOUBLE) / 4503599627370496.0 AS u
    FROM tasks
),
placed AS (
    SELECT h.n, h.i / h.n AS inp, h.o / h.n AS outp, h.r / h.n AS reas, h.c / h.n AS cached, r.*
    FROM hashed h JOIN routes r ON h.workload = r.workload AND h.u >= r.lo AND h.u < r.hi
),
reasoned AS (
    SELECT *, CASE WHEN thinking IS NULL THEN reas * factor ELSE greatest(reas * factor, thinking) END AS reasoning,
           CASE WHEN prefill IS NULL THEN 0.0 ELSE greatest(inp - read, 0.0) / prefill END AS prefill_s,
           at_length(inp, ttft_len, ttft_at, ttft) AS ttft_i, at_length(inp, tps_len, tps_at, tps) AS tps_i
    FROM placed
),
timed AS (
    SELECT *, ttft_i + prefill_s + (reasoning + outp) / tps_i AS call_s,
           ttft_i + prefill_s + reasoning / tps_i AS first_s
    FROM reasoned
)
SELECT wid, k, n,
       CASE WHEN streaming THEN (n - 1) * (call_s + tool) + first_s ELSE n * call_s + (n - 1) * tool END AS latency,
       n * ((inp - cached) * p_in + cached * p_cached + (reasoning + outp) * p_out) / 1e6 AS cost,
       budget IS NULL OR (CASE WHEN streaming THEN (n - 1) * (call_s + tool) + first_s
                               ELSE n * call_s + (n - 1) * tool END) <= budget AS within
FROM timed
"""

# nearest rank: the j-th per-mille point is the ceil(j x n / 1000)-th smallest latency, in integers; the
# ranks wanted are worked out first, so the join is on equal keys
_PERCENTILES_SQL = """
WITH counts AS (SELECT {by}, count(*) AS cnt FROM replayed GROUP BY {by}),
wanted AS (SELECT {by}, q.j, (q.j * cnt + 999) // 1000 AS rn FROM counts, {points} AS q(j)),
ranked AS (SELECT {by}, latency, row_number() OVER (PARTITION BY {by} ORDER BY latency) AS rn FROM replayed)
SELECT {on_wanted}, w.j, r.latency FROM wanted w JOIN ranked r USING ({by}, rn)
ORDER BY ALL
"""


RULES = [
    "A task is a workload's calls with one task id, read as planner workloads from-logs reads them.",
    "Each task goes to one route: u = the first 8 bytes of md5(task id) as a little-endian integer, "
    "its lowest 12 bits dropped, / 2^52, in [0, 1); the "
    "workload's allocations in (offering, mode) order take the intervals of u their shares make, the "
    "last ending at 1. A route gets its share of tasks, and the same task always the same route.",
    "A task's latency and cost are SPEC 3's with its own calls as turns and its own tokens per call (the "
    "means over its calls); reasoning is the mode's factor times its reasoning tokens, at least the "
    "option's measured thinking; the plan's tool time sits between two calls.",
    "Where the plan gives an option's speeds by prompt length, a task is timed at those at its own input "
    "tokens per call: straight lines in log(input tokens) between the measured lengths, the nearest "
    "length's figures outside them.",
    "Within budget: the task's latency is at most the plan's budget. The plan's promise is the share of "
    "tasks on routes whose mean task meets the budget; a workload or route below its promise is flagged.",
    "Percentiles are nearest-rank: p90 is the smallest latency that at least 90% of the tasks meet.",
    "Cost a period: the mean cost of the logged tasks on their routes times the plan's tasks a period.",
]


def replay_data(result: Replay, source: str) -> dict:
    """The replay as plain data (the JSON file beside the report)."""
    return {
        "plan": result.plan.name,
        "catalog": result.plan.inputs.catalog,
        "logs": source,
        "tasks": result.tasks,
        "calls": result.calls,
        "rules": RULES,
        "workloads": [
            {
                "id": w.id,
                "logged_as": w.logged_as,
                "tasks": w.tasks,
                "calls": w.calls,
                "budget_s": w.plan.budget_s,
                "cost_logged": w.cost,
                "cost_per_period_plan": w.plan.cost,
                "cost_per_period_replay": w.cost_per_period,
                "latency_s": {f"p{p // 10}": w.latency.get(p) for p in PER_MILLE},
                "within_budget_share_plan": w.promised,
                "within_budget_share_replay": w.within_share,
                "within_budget_share_required": w.required,
                "short": w.short,
                "routes": [
                    {
                        "offering": r.offering,
                        "mode": r.mode,
                        "share_plan": r.share,
                        "tasks": r.tasks,
                        "cost_logged": r.cost,
                        "latency_s": {f"p{p // 10}": r.latency.get(p) for p in PER_MILLE},
                        "within_budget_plan": r.within_promised,
                        "within_budget_share_replay": r.within_share,
                        "short": r.short,
                    }
                    for r in w.routes
                ],
            }
            for w in result.workloads
        ],
        "not_in_plan": result.unplanned,
        "no_route": result.unrouted,
        "no_traffic": result.quiet,
    }
