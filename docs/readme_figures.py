"""The README's figures, from the commands the README shows: each generated part of README.md sits
between `<!-- figures:NAME -->` and `<!-- /figures:NAME -->` and is written here from the plan files
and output those commands give today, so a figure in the README is never older than the code.

    .venv/bin/python docs/readme_figures.py          # rewrite the generated parts of README.md
    .venv/bin/python docs/readme_figures.py --check  # exit 1 and name the parts that are stale

The reasons in the real plan's table are prose written for a route; when the plan routes a workload
elsewhere, the script stops and asks for the new route's reason rather than print a stale one.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
REGION = re.compile(r"(<!-- figures:(?P<name>[a-z-]+) -->\n)(?P<body>.*?)(<!-- /figures:(?P=name) -->)", re.S)

# Why each real-plan route is plausible, keyed by the workload and the offerings it is routed to; the
# figures in braces come from the plan (see _real_plan).
REASONS = {
    ("live-chat", ("deepseek-v4-flash@makora", "openai/gpt-5.4-nano@openrouter")): (
        "Small reasoning models at {per_1000} per thousand replies that finish thinking and answering in "
        "about {latency}; the split is the {cap} cap on one company."
    ),
    ("voice-agent", ("glm-4.7@cerebras",)): (
        "A model that thinks cannot start speaking in {budget}; a wafer-scale fast tier without thinking is "
        "the only way to {latency}."
    ),
    ("ticket-triage", ("deepseek-v4-flash@gmi", "glm-4.7@cerebras")): (
        "Six turns in {fast_latency} need a fast tier; the {slow_share} allowed to be slow ({slow_latency}) "
        "goes to a GPU host at {slow_price} of the price per task."
    ),
    ("coding-agent", ("gpt-oss-120b@cerebras",)): (
        "The fastest model at 80+ on LiveCodeBench, thinking included: ten turns in {latency}."
    ),
    ("nightly-summaries", ("gemini-3.5-flash@google",)): (
        "Nobody waits, so the cheapest model at 45+ wins, and its batch API (a job within {window}) costs less again."
    ),
}


def run(*args: str) -> str:
    """A planner command as the README runs it (from the repository's root); its terminal output."""
    from typer.testing import CliRunner

    from planner.cli.app import app

    here = os.getcwd()
    os.chdir(ROOT)
    try:
        result = CliRunner().invoke(app, list(args), env={"COLUMNS": "100"})
    finally:
        os.chdir(here)
    if result.exit_code not in (0, 3):
        raise SystemExit(f"planner {' '.join(args)} failed ({result.exit_code}): {result.output}")
    return result.stdout


def plan_file(path: Path) -> dict:
    return json.loads(path.read_text())


def _route(w: dict) -> str:
    from planner.core.fmt import option, percent

    allocs = sorted(w["allocations"], key=lambda a: (-a["share"], a["offering"]))
    return "; ".join(
        f"{option(a['offering'], a['mode'], a.get('price_tier', 'list'), a.get('reserved'))} {percent(a['share'])}"
        for a in allocs
    )


def _real_plan(out: Path) -> str:
    import yaml

    from planner.core.fmt import money, percent, seconds

    run("solve", "workloads/real-support.yaml", "--out", str(out))
    plan = plan_file(out / "real-support.plan.json")
    stated = {w["id"]: w for w in yaml.safe_load((ROOT / "workloads" / "real-support.yaml").read_text())["workloads"]}
    rows = []
    for w in plan["workloads"]:
        offerings = tuple(sorted({a["offering"] for a in w["allocations"]}))
        reason = REASONS.get((w["id"], offerings))
        if reason is None:
            raise SystemExit(
                f"real-support routes {w['id']} to {', '.join(offerings)} now: write why in REASONS "
                "(docs/readme_figures.py)"
            )
        allocs = sorted(w["allocations"], key=lambda a: -a["share"])
        fast, slow = allocs[0], allocs[-1]
        figures = dict(
            per_1000="–".join(money(c * 1000) for c in sorted(a["cost_per_task"] for a in allocs)),
            latency=seconds(w["latency_s"]["max"]),
            budget=seconds(w["budget_s"]) if w["budget_s"] else "",
            cap=percent(stated[w["id"]].get("max_vendor_share")),
            fast_latency=seconds(fast["latency_s"]),
            slow_share=percent(slow["share"]),
            slow_latency=seconds(slow["latency_s"]),
            slow_price=f"{slow['cost_per_task'] / fast['cost_per_task']:.0%}",
            window=seconds(24 * 3600),
        )
        rule = f"{seconds(w['budget_s'])}" if w["budget_s"] else "no budget"
        if w["within_budget_share_required"] < 1:
            rule += f", {percent(w['within_budget_share_required'])} within"
        rule += f"; {w['metric']} {w['capability_min']:.3g}"
        rows.append(f"| {w['id']} ({rule}) | {_route(w)} | {money(w['cost'])} | {reason.format(**figures)} |")
    return (
        f"`planner solve workloads/real-support.yaml` gives {money(plan['total_cost'])} a {plan['period']}:\n\n"
        "| workload (budget; floor) | route | cost a month | why it is plausible |\n"
        "| --- | --- | --- | --- |\n" + "\n".join(rows) + "\n\n"
    )


def _deployable(out: Path) -> str:
    from planner.core.fmt import joined

    texts = []
    for gateway in ("litellm", "openrouter"):
        run("solve", "workloads/real-support.yaml", "--deployable-on", gateway, "--out", str(out / gateway))
        plan = plan_file(out / gateway / "real-support.plan.json")
        if plan["status"] == "infeasible":
            lost = [w["id"] for w in plan["workloads"] if w["status"] != "ok"]
            texts.append(f"on {gateway} it has no plan ({joined(lost)} has no option {gateway} can address)")
        else:
            texts.append(f'on {gateway}: "{plan["deployability"]["text"]}"')
    return f"On real-support, {texts[0]}; {texts[1]}.\n"


def _azure(out: Path) -> str:
    from planner.core.fmt import money, percent, seconds, shares_apart

    trace = "traces/azure_llm_trace_conv_2023-11.csv"
    run("solve", "workloads/azure-conv.yaml", "--out", str(out / "dist"))
    mean = "workloads[conversation].distribution=null"
    run("whatif", "workloads/azure-conv.yaml", "--set", mean, "--out", str(out / "mean"))
    sides = {"mean": out / "mean" / "azure-conv.set.plan.json", "dist": out / "dist" / "azure-conv.plan.json"}
    cols = {}
    for side, plan_path in sides.items():
        run("replay", str(plan_path), trace, "--format", "csv", "--workload", "conversation", "--out", str(out / side))
        plan, data = plan_file(plan_path), plan_file(out / side / "azure-conv.replay.json")
        w, r = plan["workloads"][0], data["workloads"][0]
        found = shares_apart(r["within_budget_share_plan"], r["within_budget_share_replay"])[1]
        cols[side] = dict(
            routes=_route(w),
            promised=percent(r["within_budget_share_plan"]),
            cost=money(w["cost"]),
            found=found + (" (short)" if r["short"] else ""),
            latency=" / ".join(seconds(r["latency_s"][k]) for k in ("p50", "p90", "p99")),
        )
    rows = [
        ("routes", "routes"),
        (f"the plan promises, within {seconds(data['workloads'][0]['budget_s'])}", "promised"),
        ("cost a month", "cost"),
        ("**the replay finds within the budget**", "found"),
        ("replay latency p50 / p90 / p99", "latency"),
    ]
    table = "| | planned at the mean | planned on the distribution |\n| --- | --- | --- |\n"
    table += "".join(f"| {label} | {cols['mean'][k]} | {cols['dist'][k]} |\n" for label, k in rows)
    mean_plan, dist_plan = plan_file(sides["mean"])["workloads"][0], plan_file(sides["dist"])["workloads"][0]
    budget, shares = mean_plan["budget_s"], plan_file(out / "mean" / "azure-conv.replay.json")["workloads"][0]
    cheap = max(mean_plan["allocations"], key=lambda a: a["share"])
    return table + (
        f"\nThe mean turn fits {seconds(budget)} on the cheap route with "
        f"{seconds(budget - cheap['latency_s'])} to spare, so the mean-based plan looks "
        f"{money(dist_plan['cost'] - mean_plan['cost'])} a month cheaper; the trace's long prompts and answers push "
        f"{percent(1 - shares['within_budget_share_replay'])} of the turns past the budget.\n"
    )


def _tiers(out: Path) -> str:
    from planner.core.fmt import money
    from planner.model.load import load_inputs
    from planner.pipeline.api import solve

    inputs = load_inputs(ROOT / "workloads" / "real-support.yaml")
    tiered = sum(1 for o in inputs.catalog.offerings if o.price_tiers)
    with_tiers = solve(inputs).total_cost
    plain = inputs.catalog.model_copy(
        update={"offerings": [o.model_copy(update={"price_tiers": []}) for o in inputs.catalog.offerings]}
    )
    without = solve(dataclasses.replace(inputs, catalog=plain)).total_cost
    return (
        f"the shipped `aa-2026-06` catalog has tiers on {tiered} offerings, and the real-support plan sends its "
        f"nightly summaries to Gemini 3.5 Flash's batch API: {money(with_tiers)} a month instead of {money(without)} "
        "with list prices only.\n"
    )


def _commitments(out: Path) -> str:
    printed = run("solve", "workloads/support-contracts.yaml", "--out", str(out))
    lines, inside = [], False
    for line in printed.splitlines():  # each commitment's line and the lines it wraps onto
        inside = line.startswith("commitment ") or (inside and line.startswith("     "))
        if inside:
            lines.append(line)
    return "```\n" + "\n".join(lines) + "\n```\n"


def _switching(out: Path) -> str:
    from planner.core.fmt import money

    run("solve", "workloads/support.yaml", "--out", str(out / "last"))
    run("solve", "workloads/support-contracts.yaml", "--out", str(out / "free"))
    old = str(out / "last" / "support.plan.json")
    run("solve", "workloads/support-contracts.yaml", "--from", old, "--switch-cost", "2000", "--out", str(out / "now"))
    fee = {}
    for side in ("free", "now"):
        plan = plan_file(out / side / "support-contracts.plan.json")
        ptu = next(c for c in plan["commitments"] if c["id"] == "openai-ptu")
        fee[side] = money(ptu["needs"]["fee"]) if ptu["needs"] else None
    return (
        f"the OpenAI reservation would now need a fee of {fee['now']} a unit (it was {fee['free']} without the "
        "switch costs its new routes would pay).\n"
    )


PARTS: dict[str, Callable[[Path], str]] = {
    "real-plan": _real_plan,
    "deployable": _deployable,
    "azure-replay": _azure,
    "tiers": _tiers,
    "commitments": _commitments,
    "switching": _switching,
}


def generated(text: str) -> dict[str, str]:
    """Each generated part of the README, as the commands give it today."""
    names = [m["name"] for m in REGION.finditer(text)]
    unknown = sorted(set(names) - set(PARTS))
    if unknown or sorted(names) != sorted(PARTS):
        raise SystemExit(f"README.md's figure parts {sorted(names)} do not match the script's {sorted(PARTS)}")
    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stderr(io.StringIO()):
        return {name: PARTS[name](Path(tmp) / name) for name in names}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 when a part is stale")
    args = parser.parse_args(argv)
    text = README.read_text()
    parts = generated(text)
    new = REGION.sub(lambda m: m.group(1) + parts[m["name"]] + m.group(4), text)
    stale = [m["name"] for m in REGION.finditer(text) if m["body"] != parts[m["name"]]]
    if args.check:
        for name in stale:
            print(f"README.md: the figures of '{name}' are stale; run docs/readme_figures.py", file=sys.stderr)
        return 1 if stale else 0
    README.write_text(new)
    print(f"README.md: {len(stale)} part(s) rewritten ({', '.join(stale) or 'none'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
