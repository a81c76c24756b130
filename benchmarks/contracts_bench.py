"""Benchmark of issue 19: price tiers, commitments and switching costs in one integer program.

    python benchmarks/contracts_bench.py                    # 1000 x 200, 20 commitments
    python benchmarks/contracts_bench.py --size 200x50      # a quick look
    python benchmarks/contracts_bench.py --time-limit 1     # also a run stopped after 1 s

The instance is bench.py's generated portfolio (its W x M, seed 7) with:
- price tiers on a quarter of the offerings (batch and flex at half price, priority at 1.8x, 1.5x the
  speed), and a long-context price above 32,000 input tokens on a tenth;
- a tenth of the workloads background (they may use batch);
- 20 commitments: 14 of reserved throughput (each on a fifth of one vendor's offerings not yet covered,
  up to 100 units, a unit's fee 5-30% of the list value of its tokens at full use, price factor
  0 or 0.1) and 6 of committed spend (a vendor's offerings, a minimum of 20-60% of what the plan
  without commitments spends with it, 5-20% off);
- a previous plan (the same portfolio without tiers and commitments, solved first) and a switch cost
  on every workload (1-20% of its cost in that plan).

It reports the solve stage (the integer program, proven optimal to a relative gap of 1e-6, then the
LP with the decisions fixed for the duals and the latency tie-break), `planner solve` end to end as
a command, the units bought and contracts signed, and with --time-limit the run stopped early: its
status, gap and cost against the optimum.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import OUT, ROOT, generate, stage_timings


def augment(ws_path: Path, cat_path: Path, seed: int = 19) -> tuple[Path, Path, Path]:
    """The generated instance with tiers, commitments and switch costs; and its previous plan."""
    from planner.model.load import load_inputs
    from planner.pipeline.solve import solve_inputs

    rng = np.random.default_rng(seed)
    before = solve_inputs(load_inputs(ws_path), "highs", review=False, resilience=False)
    prev_path = OUT / f"{ws_path.stem}.previous.plan.json"
    prev_path.write_text(before.to_json())
    catalog = yaml.safe_load(cat_path.read_text())
    ws = yaml.safe_load(ws_path.read_text())
    minutes = 43200
    offs = catalog["offerings"]
    for i, off in enumerate(offs):
        p = off["price"]
        if i % 4 == 2:
            half = {k: round(v * 0.5, 6) for k, v in p.items()}
            dear = {k: round(v * 1.8, 6) for k, v in p.items()}
            fast = {k: (round(v * 1.5, 1) if k == "output_tps" else v) for k, v in off["speed"].items()}
            off["price_tiers"] = [
                {"name": "batch", "price": half},
                {"name": "flex", "price": half},
                {"name": "priority", "price": dear, "speed": fast},
            ]
        if i % 10 == 7:
            p["long_context"] = {
                "above": 32000,
                "input": round(p["input"] * 2, 6),
                "output": round(p["output"] * 1.5, 6),
            }
    vendors = sorted({o["vendor"] for o in offs})
    spend_by_vendor = {v.vendor: v.billed for v in before.vendors}
    commitments, taken = [], set()
    for k in range(14):  # each on a slice of one vendor's offerings not yet covered
        v = vendors[k % len(vendors)]
        mine = [o for o in offs if o["vendor"] == v and o["id"] not in taken]
        covered = mine[: max(1, len([o for o in offs if o["vendor"] == v]) // 5)]
        if not covered:
            continue
        taken |= {o["id"] for o in covered}
        per_token = float(np.median([(o["price"]["input"] * 3 + o["price"]["output"]) / 4e6 for o in covered]))
        tpm = float(rng.choice([5e4, 1e5, 2e5]))
        fee = round(tpm * minutes * per_token * float(rng.uniform(0.05, 0.3)), 2)
        commitments.append(
            {
                "id": f"ptu-{k}",
                "vendor": v,
                "offerings": [o["id"] for o in covered],
                "unit": {"fee": fee, "tokens_per_minute": tpm},
                "max_units": 100,
                "price_factor": float(rng.choice([0.0, 0.1])),
            }
        )
    taken = set()
    for k in range(6):
        v = vendors[(k + 3) % len(vendors)]
        spend = spend_by_vendor.get(v, 0.0)
        commitments.append(
            {
                "id": f"annual-{k}",
                "vendor": v,
                "offerings": [o["id"] for o in offs if o["vendor"] == v and o["id"] not in taken] or None,
                "min_spend": round(max(spend, 1000.0) * float(rng.uniform(0.2, 0.6)), 2),
                "discount": round(float(rng.uniform(0.05, 0.2)), 3),
            }
        )
        if commitments[-1]["offerings"] is None:
            commitments.pop()
        else:
            taken |= set(commitments[-1]["offerings"])
    catalog["commitments"] = commitments
    cost = {w.id: w.cost for w in before.workloads}
    for w, wl in enumerate(ws["workloads"]):
        if w % 10 == 5:
            wl["latency"] = {"threshold": "background"}
        wl["switch_cost"] = round(cost.get(wl["id"], 0.0) * float(rng.uniform(0.01, 0.2)), 2)
    cat2 = cat_path.with_name(cat_path.stem + "-contracts.yaml")
    ws2 = ws_path.with_name(ws_path.stem + "-contracts.yaml")
    ws["catalog"] = cat2.name
    ws["name"] = ws["name"] + "-contracts"
    cat2.write_text(yaml.safe_dump(catalog, sort_keys=False))
    ws2.write_text(yaml.safe_dump(ws, sort_keys=False))
    return ws2, cat2, prev_path


def in_process(ws_path: Path, prev: Path, time_limit: float | None = None) -> dict:
    """The solve stage and the plan, in this process (planner -v's stage times)."""
    from planner.cli.commands import with_previous
    from planner.model.load import load_inputs
    from planner.pipeline.solve import solve_inputs

    with stage_timings() as timings:
        inputs = with_previous(load_inputs(ws_path), prev, None)
        t0 = time.perf_counter()
        plan = solve_inputs(inputs, "highs", time_limit=time_limit)
        timings["total"] = time.perf_counter() - t0
    return {"timings": timings, "plan": plan}


def command(ws_path: Path, prev: Path) -> dict:
    out = OUT / "plans"
    t0 = time.perf_counter()
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "planner",
            "solve",
            str(ws_path),
            "--from",
            str(prev),
            "--out",
            str(out),
            "--format",
            "csv",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    wall = time.perf_counter() - t0
    return {"wall": wall, "exit": run.returncode, "stderr": run.stderr[-400:]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="1000x200")
    parser.add_argument("--time-limit", type=float, default=None)
    args = parser.parse_args()
    W, M = (int(x) for x in args.size.lower().split("x"))
    ws_path, cat_path = generate(W, M)
    ws2, cat2, prev = augment(ws_path, cat_path)
    cat = yaml.safe_load(cat2.read_text())
    n_tiers = sum(1 for o in cat["offerings"] if o.get("price_tiers"))
    print(
        f"== {W} workloads x {M} offerings: {n_tiers} offerings with price tiers, "
        f"{len(cat['commitments'])} commitments, a switch cost on every workload =="
    )
    r = in_process(ws2, prev)
    plan, t = r["plan"], r["timings"]
    bought = [(c.id, c.units) for c in plan.commitments if c.kind == "reserved" and c.signed]
    signed = [c.id for c in plan.commitments if c.kind == "spend" and c.signed]
    s = plan.solver
    print(
        f"status {plan.status} ({s.status}); {s.variables:,} variables, {s.constraints:,} rows, integer {s.integer}; "
        f"gap {s.gap if s.gap is not None else 'proven to 1e-6'}"
    )
    print(f"total {plan.total_cost:,.2f} + switching {plan.switching.cost if plan.switching else 0:,.2f}")
    print(f"reserved bought: {bought}")
    print(f"spend contracts signed: {signed}")
    moved = len(plan.switching.moved) if plan.switching else 0
    print(f"moved {moved} workloads; declined {len(plan.switching.declined) if plan.switching else 0}")
    for key in ("load", "pairs", "prune", "lp", "solve", "check", "review", "commitments", "plan", "total"):
        print(f"  {key:<12} {t.get(key, 0.0):8.3f} s")
    c = command(ws2, prev)
    print(f"planner solve --from (command, plan + report): {c['wall']:.2f} s, exit {c['exit']} {c['stderr']}")
    if args.time_limit is not None:
        lim = in_process(ws2, prev, args.time_limit)
        lp_, lt = lim["plan"], lim["timings"]
        objective = lambda p: p.total_cost + (p.switching.cost if p.switching else 0.0)
        print(
            f"--time-limit {args.time_limit:g}: status {lp_.status} ({lp_.solver.status}), gap {lp_.solver.gap}, "
            f"objective {objective(lp_):,.2f} against the optimum {objective(plan):,.2f}; "
            f"solve {lt.get('solve', 0):.2f} s"
        )
    summary = OUT / f"contracts-{W}x{M}.json"
    summary.write_text(json.dumps({"timings": t, "status": plan.status, "solver": s.model_dump()}, indent=2))


if __name__ == "__main__":
    main()
