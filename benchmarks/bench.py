"""Benchmark: generated W x M portfolios, the planner's phases, and a direct scipy/HiGHS solve.

    python benchmarks/bench.py                     # 1000 x 200 and 3000 x 300, plus sweeps
    python benchmarks/bench.py --sizes 200x50      # a quick run
    python benchmarks/bench.py --no-sweeps

First `planner --help` and `planner solve workloads/support.yaml` as commands (median of five).
For each size it writes a catalog and a workloads file under benchmarks/out/ and reports:
- the stages of `planner solve` in one process, as `planner -v` logs them: load, pairs, prune,
  lp (rows), solve (the solver's passes), check, review (break-even prices, compounding), plan
  (assembly), baselines, outages, write (plan file and HTML report); --solver picks the solver
  (default: auto, as the command);
- `planner solve` end to end as a command (wall time of the subprocess, and its peak memory);
- beside it, the same full LP (every eligible pair, no pruning) built straight from the pair
  arrays with scipy.sparse and solved once by scipy.optimize.linprog(method="highs") (HiGHS's
  default presolve), and once by highspy with presolve off and one thread: the optima must agree
  to 1e-6;
- with --sweeps (default), on the first size: a 30-point frontier (portfolio and one workload)
  and a 20-scenario what-if batch in process (two workers and one; plan files written as
  `planner whatif` writes them), each against one solve of the instance in process measured just
  before it (the median of three solves; five rounds, the median ratio), the batch also against
  one solve that writes its plan file, and the `planner whatif` command with 20 scenario files
  against `planner solve`.

Instances: 10% of offerings have capacity limits, a fifth have two reasoning modes, one vendor
has a spend cap, and budgets and floors are mixed so that about half of the pairs are eligible.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "out"


def generate(W: int, M: int, seed: int = 7) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed)
    vendors = [f"vendor{i}" for i in range(max(3, M // 20))]
    offerings = []
    for i in range(M):
        fast = rng.random() < 0.2
        tps = float(rng.uniform(600, 1000) if fast else rng.uniform(30, 200))
        price_in = float(np.round(rng.lognormal(0.0, 1.0), 3))
        off = {
            "id": f"o{i}",
            "model": f"model-{i % (M // 2 or 1)}",
            "vendor": vendors[i % len(vendors)],
            "tier": "fast" if fast else "standard",
            "capability": {"overall": float(np.round(rng.uniform(40, 95), 1))},
            "price": {
                "input": price_in,
                "output": float(np.round(price_in * rng.uniform(2, 6), 3)),
                "cached_input": float(np.round(price_in * 0.1, 4)),
            },
            "speed": {
                "output_tps": round(tps, 1),
                "ttft_s": float(np.round(rng.uniform(0.1, 1.5), 2)),
                "prefill_tps": float(np.round(rng.uniform(3000, 30000))),
            },
            "source": "generated",
        }
        if i % 20 == 3:  # a dear, fast, capable lane without limits keeps every workload plannable
            off.update(tier="fast", capability={"overall": 97.0})
            off["speed"].update(output_tps=1000.0, ttft_s=0.1, prefill_tps=30000.0)
            off["price"] = {k: v * 4 for k, v in off["price"].items()}
        elif i % 10 == 0:
            off["capacity"] = {"tokens_per_minute": float(rng.integers(2, 40) * 1e5)}
        if i % 5 == 1:
            off["modes"] = [
                {"name": "high", "reasoning_factor": 3.0, "capability": min(100.0, off["capability"]["overall"] + 4)}
            ]
        offerings.append(off)
    workloads = []
    for w in range(W):
        turns = int(rng.choice([1, 1, 2, 4, 8]))
        per_turn = rng.choice([None, 2.0, 3.0, 5.0, 10.0, 30.0], p=[0.2, 0.15, 0.2, 0.2, 0.15, 0.1])
        budget = None if per_turn is None else float(per_turn) * turns
        wl = {
            "id": f"w{w}",
            "tasks": float(rng.integers(1000, 500000)),
            "turns": turns,
            "tool_latency_s": float(rng.choice([0.0, 0.2, 0.5])),
            "tokens": {
                "input": float(rng.integers(200, 6000)),
                "output": float(rng.integers(50, 600)),
                "reasoning": float(rng.choice([0, 0, 200, 500])),
                "cached_input_share": float(rng.choice([0.0, 0.5])),
            },
            "latency": {} if budget is None else {"budget_s": float(budget)},
            "capability": {"min": float(rng.choice([40, 50, 55, 60]))},
        }
        if budget is not None and rng.random() < 0.15:
            wl["latency"]["within_budget_share"] = 0.9
        if rng.random() < 0.1:
            wl["capability"]["mean_min"] = wl["capability"]["min"] + 15
        workloads.append(wl)
    OUT.mkdir(parents=True, exist_ok=True)
    cat_path = OUT / f"catalog-{M}.yaml"
    ws_path = OUT / f"workloads-{W}x{M}.yaml"
    cat_path.write_text(
        yaml.safe_dump({"catalog": f"bench-{M}", "as_of": "2026-12-01", "offerings": offerings}, sort_keys=False)
    )
    ws = {
        "name": f"bench-{W}x{M}",
        "catalog": cat_path.name,
        "period": "month",
        "policy": {"vendor_share": {vendors[0]: 0.25}, "peak_factor": 2.0},
        "workloads": workloads,
    }
    ws_path.write_text(yaml.safe_dump(ws, sort_keys=False))
    return ws_path, cat_path


STAGES = ("load", "pairs", "prune", "lp", "solve", "check", "review", "plan", "baselines", "outages", "write")


@contextlib.contextmanager
def stage_timings():
    """The stage times the pipeline logs (`planner -v`) while the block runs, summed by stage."""
    import logging

    timings: dict[str, float] = {}

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            name, _, value = record.getMessage().removeprefix("stage ").partition(": ")
            if value.endswith(" s"):
                timings[name] = timings.get(name, 0.0) + float(value[:-2])

    log = logging.getLogger("planner")
    handler, level = Collect(), log.level
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        yield timings
    finally:
        log.removeHandler(handler)
        log.setLevel(level)


def phases(ws_path: Path, solver: str = "auto") -> dict:
    """planner solve in this process, stage by stage: the timings the pipeline logs (`planner -v`)."""
    import contextlib
    import io

    from planner.cli import commands
    from planner.model.load import load_inputs
    from planner.optimize.pairs import build_pairs

    with stage_timings() as timings:
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):
            commands.solve(ws_path, None, OUT / "plans", solver, "csv")
        timings["total"] = time.perf_counter() - t0
    plan = json.loads((OUT / "plans" / f"{ws_path.stem.replace('workloads-', 'bench-')}.plan.json").read_text())
    inputs = load_inputs(ws_path)
    timings.update(
        eligible_pairs=int(build_pairs(inputs.workloads, inputs.catalog).eligible.sum()),
        lp_variables=plan["solver"]["variables"],
        lp_rows=plan["solver"]["constraints"],
        solver_seconds=plan["solver"]["seconds"],
        total_cost=plan["total_cost"],
        status=plan["status"],
    )
    return timings


def everyday() -> dict:
    """The commands people run most, end to end: `planner --help` and `planner solve` on the shipped
    support portfolio with its report (the median of five runs each)."""
    out = {}
    for key, args in (
        ("help", ["--help"]),
        ("support", ["solve", str(ROOT / "workloads" / "support.yaml"), "--out", str(OUT / "plans")]),
    ):
        runs = sorted(
            _timed(
                lambda a=args: subprocess.run([sys.executable, "-m", "planner", *a], capture_output=True, check=True)
            )
            for _ in range(5)
        )
        out[key] = runs[2]
    return out


def cli(ws_path: Path, solver: str = "auto") -> dict:
    """planner solve as a user runs it: wall time and peak memory of the subprocess."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "planner", "solve", str(ws_path), "--out", str(OUT / "plans"), "--solver", solver],
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    plan = json.loads((OUT / "plans" / f"{ws_path.stem.replace('workloads-', 'bench-')}.plan.json").read_text())
    return {
        "wall": wall,
        "exit": proc.returncode,
        "peak_mb": max(peak, before) / 1024,
        "total_cost": plan["total_cost"],
    }


def direct_scipy(ws_path: Path) -> dict:
    """The full LP (all eligible pairs) from the pair arrays with scipy.sparse, one linprog(highs) solve."""
    import scipy.sparse as sp
    from scipy.optimize import linprog

    from planner.model.load import load_inputs
    from planner.optimize.pairs import build_pairs

    inputs = load_inputs(ws_path)
    pairs = build_pairs(inputs.workloads, inputs.catalog)
    t0 = time.perf_counter()
    wa, opts = pairs.workloads, pairs.options
    w_idx, o_idx = np.nonzero(pairs.eligible)
    n = len(w_idx)
    spend = wa.tasks[w_idx] * pairs.cost_per_task[w_idx, o_idx]
    W = pairs.shape[0]
    A_eq = sp.csr_matrix((np.ones(n), (w_idx, np.arange(n))), shape=(W, n))
    b_eq = np.ones(W)
    rows, cols, vals, b_ub = [], [], [], []
    r = 0
    q = wa.within_budget_share
    for w in np.flatnonzero((q < 1) & ~np.isnan(wa.budget_s)):
        sel = np.flatnonzero((w_idx == w) & pairs.within_budget[w_idx, o_idx])
        rows += [np.full(len(sel), r)]
        cols += [sel]
        vals += [-np.ones(len(sel))]
        b_ub.append(-q[w])
        r += 1
    for w in np.flatnonzero(~np.isnan(wa.cap_mean_min)):
        sel = np.flatnonzero(w_idx == w)
        rows += [np.full(len(sel), r)]
        cols += [sel]
        vals += [-pairs.capability[w, o_idx[sel]]]
        b_ub.append(-wa.cap_mean_min[w])
        r += 1
    for i, off in enumerate(inputs.catalog.offerings):
        if off.capacity and off.capacity.tokens_per_minute:
            sel = np.flatnonzero(opts.offering_index[o_idx] == i)
            rows += [np.full(len(sel), r)]
            cols += [sel]
            vals += [pairs.peak_tpm[w_idx[sel], o_idx[sel]]]
            b_ub.append(off.capacity.tokens_per_minute)
            r += 1
    vendor = np.array(opts.vendor, dtype=object)[o_idx]
    for v, s in inputs.workloads.policy.vendor_share.items():
        rows += [np.full(n, r)]
        cols += [np.arange(n)]
        vals += [spend * ((vendor == v) - s)]
        b_ub.append(0.0)
        r += 1
    A_ub = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(r, n))
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = linprog(spend, A_ub=A_ub, b_ub=np.array(b_ub), A_eq=A_eq, b_eq=b_eq, bounds=(0, 1), method="highs")
    t_solve = time.perf_counter() - t0
    t_highspy, highspy_cost = direct_highspy(spend, sp.vstack([A_eq, A_ub]).tocsc(), np.array(b_ub), W)
    return {
        "build": t_build,
        "solve": t_solve,
        "status": res.status,
        "total_cost": float(res.fun),
        "variables": n,
        "rows": r + W,
        "highspy_solve": t_highspy,
        "highspy_cost": highspy_cost,
    }


def direct_highspy(cost, A, b_ub, n_eq: int) -> tuple[float, float]:
    """The same full LP passed to highspy as arrays and solved once with presolve off and one thread (issue
    29's reference: the planner's own solver settings, without its pruning or its passes). Returns (seconds
    of passModel + run, optimum)."""
    import highspy

    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = A.shape[1], A.shape[0]
    lp.col_cost_ = cost
    lp.col_lower_, lp.col_upper_ = np.zeros(A.shape[1]), np.ones(A.shape[1])
    lp.row_lower_ = np.concatenate([np.ones(n_eq), np.full(len(b_ub), -highspy.kHighsInf)])
    lp.row_upper_ = np.concatenate([np.ones(n_eq), b_ub])
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = A.indptr, A.indices, A.data
    h = highspy.Highs()
    for option, value in (("output_flag", False), ("presolve", "off"), ("threads", 1)):
        h.setOptionValue(option, value)
    t0 = time.perf_counter()
    h.passModel(lp)
    h.run()
    seconds = time.perf_counter() - t0
    return seconds, float(h.getInfo().objective_function_value)


SCENARIOS = 20


def scenario_files(n_vendors: int) -> list[Path]:
    """Twenty price scenarios: one vendor's output price scaled from x0.5 to x1.45."""
    folder = OUT / "scenarios"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(SCENARIOS):
        path = folder / f"s{i:02d}.yaml"
        path.write_text(
            yaml.safe_dump(
                {
                    "name": f"s{i:02d}",
                    "catalog": [
                        {
                            "match": {"vendor": f"vendor{i % n_vendors}"},
                            "set": {"price.output": f"*{0.5 + 0.05 * i:.2f}"},
                        }
                    ],
                },
                sort_keys=False,
            )
        )
        paths.append(path)
    return paths


ROUNDS = 5


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def sweeps(ws_path: Path, solver: str) -> dict:
    """A 30-point frontier (both sweeps, portfolio and one workload) and a 20-scenario what-if batch
    (two workers and one), each against one solve of the same instance in this process. The timings
    of this machine drift by tens of percent within a minute, so each ratio is taken within a round
    (one solve, then the sweeps, back to back), over ROUNDS rounds; the median round is reported.
    A round's one solve is the median of three solves back to back: a single solve was the noisiest
    number of a round. The batch writes a plan file per scenario; it is also set against one solve
    that writes its plan file (like for like). Then the `planner whatif` command with 20 scenario
    files beside the `planner solve` command."""
    from planner.core.files import write_all
    from planner.model.load import load_inputs, load_scenario
    from planner.model.scenarios import apply_scenario
    from planner.pipeline.frontier import frontier
    from planner.pipeline.solve import solve_base, solve_inputs
    from planner.pipeline.whatif import solve_scenarios

    inputs = load_inputs(ws_path)
    files = scenario_files(len({o.vendor for o in inputs.catalog.offerings}))
    applied = [(sc, apply_scenario(inputs, sc, str(p))) for p in files for sc in [load_scenario(p)]]
    base, start = solve_base(inputs, solver)  # the base of the batch, as `planner whatif` solves it first
    wid = inputs.workloads.workloads[0].id
    points = {}
    for key, target in (("frontier", None), ("one", wid)):  # (also a first run, before the rounds)
        f = frontier(inputs, target, points=30)
        points[key] = len(f.latency) + len(f.capability)
    folder = OUT / "batch"
    folder.mkdir(parents=True, exist_ok=True)
    paths = [folder / f"{sc.name}.plan.json" for sc, _ in applied]

    def batch(jobs=None) -> None:
        """As `planner whatif` runs it: the plan files written by the workers, renamed into place."""
        for outcome, path in zip(solve_scenarios(base, start, applied, solver, jobs=jobs, paths=paths), paths):
            os.replace(outcome.staged, path)

    one_file = OUT / "plans" / "one.plan.json"
    one_file.parent.mkdir(parents=True, exist_ok=True)

    def solve_with_file() -> None:
        """One solve and its plan file, as `planner solve` writes it (the batch writes one per scenario)."""
        write_all({one_file: solve_inputs(inputs, solver).to_json()})

    rounds = []
    for _ in range(ROUNDS):
        r = {
            "solve": sorted(_timed(lambda: solve_inputs(inputs, solver)) for _ in range(3))[1],
            "solve_file": sorted(_timed(solve_with_file) for _ in range(3))[1],
        }
        r["frontier"] = _timed(lambda: frontier(inputs, None, points=30))
        r["one"] = _timed(lambda: frontier(inputs, wid, points=30))
        r["batch20"] = _timed(batch)
        r["batch_serial"] = _timed(lambda: batch(jobs=1))
        rounds.append(r)
    out: dict = {"rounds": rounds, **points}
    for key in ("frontier", "one", "batch20", "batch_serial", "batch20_file"):
        ratios = sorted(
            r[key.replace("_file", "")] / r["solve_file" if key.endswith("_file") else "solve"] for r in rounds
        )
        out[key + "_ratio"] = ratios[len(ratios) // 2]
        out[key + "_ratios"] = ratios
    t_solve_cmd = _timed(
        lambda: subprocess.run(
            [
                sys.executable,
                "-m",
                "planner",
                "solve",
                str(ws_path),
                "--out",
                str(OUT / "plans"),
                "--solver",
                solver,
            ],
            capture_output=True,
            check=True,
        )
    )
    t0 = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "planner",
            "whatif",
            str(ws_path),
            *map(str, files),
            "--out",
            str(OUT / "whatif"),
            "--solver",
            solver,
        ],
        capture_output=True,
        text=True,
    )
    out.update(solve_cmd=t_solve_cmd, whatif_cmd=time.perf_counter() - t0, whatif_exit=proc.returncode)
    out["cmd_ratio"] = out["whatif_cmd"] / t_solve_cmd
    return out


def main() -> None:
    import gc

    gc.set_threshold(100_000, 50, 100)  # as the planner command sets it (planner/cli/app.py)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000x200,3000x300", help="comma-separated WxM")
    parser.add_argument("--solver", default="auto", choices=["auto", "cbc", "highs"])
    parser.add_argument("--no-sweeps", action="store_true")
    args = parser.parse_args()
    e = everyday()
    print(
        f"planner --help {e['help']:.3f} s; planner solve workloads/support.yaml (plan + report) {e['support']:.3f} s"
    )
    for k, size in enumerate(args.sizes.split(",")):
        W, M = (int(x) for x in size.lower().split("x"))
        ws_path, _ = generate(W, M)
        print(f"\n== {W} workloads x {M} offerings ==", flush=True)
        p = phases(ws_path, args.solver)
        print(
            f"eligible pairs {p['eligible_pairs']:,} of {W * (M + M // 5):,}; LP after pruning: "
            f"{p['lp_variables']:,} variables, {p['lp_rows']:,} rows; status {p['status']}"
        )
        for key in (*STAGES, "total", "solver_seconds"):
            print(f"  {key:<16} {p.get(key, 0.0):8.3f} s")
        c = cli(ws_path, args.solver)
        d = direct_scipy(ws_path)
        agree = abs(c["total_cost"] - d["total_cost"]) <= 1e-6 * max(1.0, abs(d["total_cost"]))
        print(
            f"  planner solve (command, files -> plan + report): {c['wall']:.3f} s wall, peak {c['peak_mb']:.0f} MB, "
            f"exit {c['exit']}"
        )
        print(
            f"  direct scipy/HiGHS full LP ({d['variables']:,} vars, {d['rows']:,} rows): build {d['build']:.3f} s, "
            f"solve {d['solve']:.3f} s"
        )
        print(
            f"  ratio planner command / direct solve: {c['wall'] / d['solve']:.2f}; optimum agrees to 1e-6: {agree} "
            f"(planner {c['total_cost']:.6f}, scipy {d['total_cost']:.6f})"
        )
        agree = abs(c["total_cost"] - d["highspy_cost"]) <= 1e-6 * max(1.0, abs(d["highspy_cost"]))
        print(
            f"  direct highspy full LP, presolve off, one thread: solve {d['highspy_solve']:.3f} s; ratio planner "
            f"command / it: {c['wall'] / d['highspy_solve']:.2f}; optimum agrees to 1e-6: {agree}"
        )
        if k == 0 and not args.no_sweeps:
            s = sweeps(ws_path, args.solver)
            print(f"  sweeps against one solve in process, {ROUNDS} rounds (seconds: one solve / sweep):")
            labels = {
                "frontier": f"30-point portfolio frontier ({s['frontier']} solves, both sweeps)",
                "one": f"30-point frontier of one workload ({s['one']} solves, both sweeps)",
                "batch20": "20-scenario what-if batch, two workers",
                "batch_serial": "20-scenario what-if batch, one worker",
                "batch20_file": "20-scenario what-if batch, two workers, against one solve with its plan file",
            }
            for key, label in labels.items():
                base = "solve_file" if key.endswith("_file") else "solve"
                times = ", ".join(f"{r[base]:.3f} / {r[key.replace('_file', '')]:.3f}" for r in s["rounds"])
                print(
                    f"    {label}: median {s[key + '_ratio']:.2f} x one solve "
                    f"(rounds {', '.join(f'{x:.2f}' for x in s[key + '_ratios'])}; {times})"
                )
            print(
                f"  commands: planner whatif with 20 scenario files {s['whatif_cmd']:.3f} s (exit {s['whatif_exit']}) "
                f"against planner solve {s['solve_cmd']:.3f} s = {s['cmd_ratio']:.2f} x"
            )


if __name__ == "__main__":
    main()
