"""Benchmark: the live review's re-solve and redraw (issue 30), p95 over a meeting's changes.

    python benchmarks/serve_bench.py                     # workloads/real-support.yaml and 1000 x 200
    python benchmarks/serve_bench.py --sizes 200x50 --changes 20

For each portfolio: the base solved as `planner serve` solves it, then --changes requests to POST
/api/solve through Starlette's TestClient (the app in this process, no network), each one change more
than the last with the oldest dropped past four in force, as a meeting moves from question to question:
price changes of a company or an offering, budgets, shares within budget, traffic, a company cap and,
one request in ten, an outage (which may leave no feasible plan: then the smallest relaxation is
solved). A request's time is the server's whole answer: the changes applied to the base, the warm
solve, the comparison with its bridge and the page's JSON. The page's redraw of that JSON is a few
milliseconds of DOM work on top.

    python benchmarks/serve_bench.py --browser           # the same, driven through the page in Chromium

--browser serves the app with uvicorn on a free port and drives the page in headless Chromium (Debian's,
through Playwright) as a person would: each change is typed into its control and applied, the oldest
undone with its button past four in force; a step's time is the page's own measure, from the change sent to
the page drawn again (performance.now() around the request and the redraw); Playwright's click-to-idle
time, with its own polling, is printed beside it as an upper bound.
"""

from __future__ import annotations

import argparse
import gc
import math
import random
import statistics
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench import generate  # noqa: E402

from planner.cli.app import GC_THRESHOLD  # noqa: E402


def meeting(session, n: int, seed: int = 30) -> list[list[dict]]:
    """n lists of changes, each one change more than the last (at most four in force)."""
    rng = random.Random(seed)
    base = session.base
    companies = [v.vendor for v in base.vendors] or sorted({o.vendor for o in session.inputs.catalog.offerings})
    billing = sorted({o.vendor for o in session.inputs.catalog.offerings})
    offerings = [o.id for o in session.inputs.catalog.offerings]
    used = sorted({a.offering for w in base.workloads for a in w.allocations})
    budgeted = [w for w in session.inputs.workloads.workloads if w.latency.budget_s or w.latency.threshold]
    workloads = [w.id for w in session.inputs.workloads.workloads]
    lists, now = [], []
    for k in range(n):
        kind = rng.choice(["price", "price", "offering", "budget", "within", "traffic", "cap", "price", "traffic"])
        if k % 10 == 9:
            kind = "outage"
        pct = rng.choice([-40, -25, -10, 10, 20, 35, 60])
        if kind == "price":
            change = {"kind": "price", "company": rng.choice([c for c in companies if c in billing] or billing)}
            change["percent"] = pct
        elif kind == "offering":
            change = {
                "kind": "price",
                "offering": rng.choice(used if rng.random() < 0.7 else offerings),
                "percent": pct,
            }
        elif kind == "budget":
            w = rng.choice(budgeted or session.inputs.workloads.workloads)
            change = {"kind": "budget", "workload": w.id, "budget_s": float(rng.choice([2, 5, 10, 20, 40, 60]))}
        elif kind == "within":
            w = rng.choice([w for w in budgeted if w.latency.budget_s] or budgeted)
            change = {"kind": "within", "workload": w.id, "share": rng.choice([0.7, 0.8, 0.9, 0.95])}
        elif kind == "traffic":
            change = {"kind": "traffic", "workload": rng.choice(workloads), "factor": rng.choice([0.5, 1.5, 2, 3])}
        elif kind == "cap":
            change = {"kind": "cap", "share": rng.choice([0.5, 0.7, 0.9])}
        else:
            change = {"kind": "outage", "company": rng.choice(companies)}
        now = [*now, change][-4:]
        lists.append(now)
    return lists


def run(workloads: Path, changes: int) -> dict:
    from starlette.testclient import TestClient

    from planner.model.load import load_inputs
    from planner.serve.app import create_app
    from planner.serve.session import Session

    started = time.perf_counter()
    session = Session(load_inputs(workloads))
    ready = time.perf_counter() - started
    client = TestClient(create_app(session, ROOT / "benchmarks" / "out"), base_url="http://127.0.0.1")
    client.post("/api/solve", json={"changes": []})  # (the first request sets the client up)
    times, statuses = [], {}
    for now in meeting(session, changes):
        t = time.perf_counter()
        response = client.post("/api/solve", json={"changes": now})
        times.append(time.perf_counter() - t)
        state = response.json() if response.status_code == 200 else {"status": f"refused {response.status_code}"}
        statuses[state["status"]] = statuses.get(state["status"], 0) + 1
    times.sort()
    p95 = times[max(0, math.ceil(0.95 * len(times)) - 1)]  # the nearest rank
    return {
        "portfolio": session.base.name,
        "size": f"{len(session.inputs.workloads.workloads)} x {len(session.inputs.catalog.offerings)}",
        "ready_s": ready,
        "median_ms": 1000 * statistics.median(times),
        "p95_ms": 1000 * p95,
        "max_ms": 1000 * times[-1],
        "statuses": statuses,
    }


FORMS = {  # a change -> the control's form and its fields
    "price": lambda c: (
        "#price-form",
        [
            ("#price-scope", "company" if "company" in c else "offering"),
            ("#price-target", c.get("company") or c.get("offering")),
            ("#price-percent", str(c["percent"])),
        ],
    ),
    "budget": lambda c: (
        "#budget-form",
        [("#budget-workload", c["workload"]), ("#budget-seconds", str(c["budget_s"]))],
    ),
    "within": lambda c: (
        "#within-form",
        [("#within-workload", c["workload"]), ("#within-percent", str(100 * c["share"]))],
    ),
    "traffic": lambda c: (
        "#traffic-form",
        [("#traffic-workload", c["workload"]), ("#traffic-factor", str(c["factor"]))],
    ),
    "cap": lambda c: ("#cap-form", [("#cap-company", c.get("company", "")), ("#cap-percent", str(100 * c["share"]))]),
    "outage": lambda c: ("#outage-form", [("#outage-company", c["company"])]),
}
IDLE = "body:not(.busy) #controls-set:not([disabled])"


def run_in_browser(workloads: Path, changes: int) -> dict:
    """The meeting driven through the page in Chromium, against uvicorn on a free port."""
    import shutil
    import threading

    import uvicorn
    from playwright.sync_api import sync_playwright

    from planner.model.load import load_inputs
    from planner.serve import run as serving
    from planner.serve.app import create_app
    from planner.serve.session import Session

    session = Session(load_inputs(workloads))
    sock = serving.bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(create_app(session, ROOT / "benchmarks" / "out"), log_config=None, access_log=False)
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    times, outside, statuses = [], [], {}  # the page's own measure; Playwright's, click to idle
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_selector("#buy tbody tr")
            page.wait_for_selector(IDLE, state="attached")
            before: list[dict] = []
            for now in meeting(session, changes):
                added = now[-1]
                form, fields = FORMS[added["kind"]](added)
                for selector, value in fields:
                    if selector in ("#price-scope",) or selector.endswith(("-workload", "-company")):
                        page.select_option(selector, value)
                    else:
                        page.fill(selector, value)
                for step in [f"{form} button[type=submit]"] + (
                    ["#changes li:first-child button"] if len(before) == 4 and now[0] != before[0] else []
                ):  # the change, then (past four) the oldest undone: each one re-solve and redraw
                    t = time.perf_counter()
                    page.click(step)
                    page.wait_for_selector(IDLE, state="attached")
                    outside.append(time.perf_counter() - t)
                    times.append(float(page.locator("body").get_attribute("data-answered-ms")) / 1000)
                before = now
                status = page.locator("#badge").inner_text()
                statuses[status] = statuses.get(status, 0) + 1
            browser.close()
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
    times.sort()
    return {
        "portfolio": session.base.name + " (page)",
        "size": f"{len(session.inputs.workloads.workloads)} x {len(session.inputs.catalog.offerings)}",
        "ready_s": None,  # (the same base as above)
        "median_ms": 1000 * statistics.median(times),
        "p95_ms": 1000 * times[max(0, math.ceil(0.95 * len(times)) - 1)],
        "max_ms": 1000 * times[-1],
        "statuses": statuses
        | {"(click to idle p95 ms)": round(1000 * sorted(outside)[math.ceil(0.95 * len(outside)) - 1])},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000x200", help="generated portfolios, W x M, comma separated")
    parser.add_argument("--changes", type=int, default=50)
    parser.add_argument("--no-real", action="store_true", help="leave out workloads/real-support.yaml")
    parser.add_argument("--browser", action="store_true", help="also drive the page in Chromium (each portfolio)")
    args = parser.parse_args()
    gc.set_threshold(GC_THRESHOLD, 50, 100)  # as the planner command runs (and so planner serve)
    warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")
    portfolios = [] if args.no_real else [ROOT / "workloads" / "real-support.yaml"]
    for size in filter(None, args.sizes.split(",")):
        W, M = (int(x) for x in size.lower().split("x"))
        portfolios.append(generate(W, M)[0])
    print(f"{'portfolio':<22} {'W x M':>11} {'base s':>7} {'median ms':>10} {'p95 ms':>8} {'max ms':>8}  statuses")
    for path, browser in [(p, False) for p in portfolios] + ([(p, True) for p in portfolios] if args.browser else []):
        r = run_in_browser(path, args.changes) if browser else run(path, args.changes)
        statuses = ", ".join(f"{k} {v}" for k, v in sorted(r["statuses"].items()))
        ready = "-" if r["ready_s"] is None else f"{r['ready_s']:.2f}"
        print(
            f"{r['portfolio']:<22} {r['size']:>11} {ready:>7} {r['median_ms']:>10.0f} "
            f"{r['p95_ms']:>8.0f} {r['max_ms']:>8.0f}  {statuses}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
