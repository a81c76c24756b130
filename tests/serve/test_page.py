"""The live review in headless Chromium: `planner serve` started as a command on a free port, the page
driven as a meeting would drive it. A price change moves a route and its bridge adds up; the changes are
saved as a scenario, and `planner whatif` on that file gives the plan the page shows. Names from the
files are shown as text. Skips without Chromium or Playwright, unless PLANNER_REQUIRE_BROWSER=1."""

import json
import os
import re
import shutil
import subprocess
import sys
from contextlib import contextmanager

import pytest
import yaml
from conftest import ROOT
from typer.testing import CliRunner

from planner.cli.app import app as cli

pytestmark = pytest.mark.browser
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"]
REAL = ROOT / "workloads" / "real-support.yaml"
SHOTS = os.environ.get("PLANNER_SCREENSHOTS")  # where the screenshot goes (make screenshots: docs/screenshots)
EVIL = '<img src=x onerror="window.pwned=1">acme'


def _playwright():
    required = os.environ.get("PLANNER_REQUIRE_BROWSER") == "1"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        if required:
            raise
        pytest.skip("playwright is not installed; pip install -e '.[test]'")
    if not CHROMIUM:
        if required:
            pytest.fail("Chromium is required (PLANNER_REQUIRE_BROWSER=1) but not installed: apt-get install chromium")
        pytest.skip("Chromium not installed (apt-get install chromium); the browser test is skipped")
    return sync_playwright


@contextmanager
def served(workloads, scenarios):
    """`planner serve WORKLOADS --port 0`: its address, read from the line it prints; stopped by SIGTERM."""
    shown = workloads.relative_to(ROOT) if workloads.is_relative_to(ROOT) else workloads  # as the page names it
    command = [sys.executable, "-m", "planner", "serve", str(shown), "--port", "0", "--scenarios-dir", str(scenarios)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert found, line + proc.stderr.read()
        yield found.group(0)
    finally:
        proc.terminate()
        assert proc.wait(20) == 143  # SIGTERM: stopped, as every command stops
        assert "stopped" in proc.stderr.read()


@pytest.fixture(scope="module")
def browser():
    with _playwright()() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def watched(browser, url):
    """A page on the server with its console errors, requests and dialogs recorded."""
    page = browser.new_page(viewport={"width": 1400, "height": 1120})
    seen = {"errors": [], "requests": [], "dialogs": []}
    page.on("console", lambda m: seen["errors"].append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: seen["errors"].append(str(e)))
    page.on("request", lambda r: seen["requests"].append(r.url))
    page.on("dialog", lambda d: (seen["dialogs"].append(d.message), d.dismiss()))
    page.goto(url, wait_until="load")
    page.wait_for_selector("#buy tbody tr")
    return page, seen


def apply(page, form, fields):
    """Fill a control's fields and apply it; wait for the redraw."""
    for selector, value in fields:
        if page.locator(selector).evaluate("e => e.tagName") == "SELECT":
            page.select_option(selector, value)
        else:
            page.fill(selector, value)
    page.click(f"{form} button[type=submit]")
    page.wait_for_selector("body:not(.busy) #controls-set:not([disabled])", state="attached")  # (no eval: the CSP)


def amounts(page, selector):
    return [float(x) for x in page.locator(selector).evaluate_all("rows => rows.map(r => r.dataset.amount)")]


def test_a_meeting_changes_a_price_sees_the_route_move_and_saves_the_scenario(browser, tmp_path):
    scenarios = tmp_path / "scenarios"
    scenarios.mkdir()
    with served(REAL, scenarios) as url:
        page, seen = watched(browser, url)
        assert page.locator("#title").inner_text() == "real-support"
        night = page.locator('#buy tr[data-workload="nightly-summaries"]')
        assert night.first.get_attribute("data-option") == "gemini-3.5-flash@google (medium, batch)"
        base = page.request.get(url + "api/state").json()["state"]["total_cost"]

        # Google raises its prices by 30%: nightly-summaries leaves its batch tier for Novita
        apply(page, "#price-form", [("#price-scope", "company"), ("#price-target", "google"), ("#price-percent", "30")])
        assert page.locator("#message").is_hidden()
        assert night.first.get_attribute("data-option") == "qwen3.7-max@novita"
        assert "changed" in night.first.get_attribute("class")
        assert page.locator('#rerouted tr[data-workload="nightly-summaries"]').count() == 1
        parts, total = amounts(page, "#bridge tbody tr:not(.total)"), amounts(page, "#bridge tr.total")[0]
        now = page.request.get(url + "api/state").json()["state"]["total_cost"]
        assert sum(parts) == pytest.approx(total, abs=0.01) and total == pytest.approx(now - base, abs=0.01)
        assert "+$587" in page.locator("#figures").inner_text()

        # a refused change is a message; the page keeps the plan it had
        apply(page, "#price-form", [("#price-target", "nobody"), ("#price-percent", "10")])
        assert "no offering billed by 'nobody'" in page.locator("#message").inner_text()
        assert page.locator("#changes li").count() == 1 and "+$587" in page.locator("#figures").inner_text()

        # more of the meeting: Cerebras up 25%, ticket-triage may leave 20% of its tasks slow, live-chat grows
        apply(page, "#price-form", [("#price-target", "cerebras"), ("#price-percent", "25")])
        apply(page, "#within-form", [("#within-workload", "ticket-triage"), ("#within-percent", "80")])
        apply(page, "#traffic-form", [("#traffic-workload", "live-chat"), ("#traffic-factor", "1.5")])
        assert page.locator("#changes li").count() == 4
        parts, total = amounts(page, "#bridge tbody tr:not(.total)"), amounts(page, "#bridge tr.total")[0]
        assert sum(parts) == pytest.approx(total, abs=0.01) and sum(abs(x) > 1 for x in parts) >= 3

        page.fill("#save-path", "meeting.yaml")
        page.click("#save-form button[type=submit]")
        page.wait_for_selector("#saved:has-text('meeting.yaml')")
        state = page.request.get(url + "api/state").json()["state"]
        if SHOTS:
            (ROOT / SHOTS).mkdir(parents=True, exist_ok=True)
        shot = (ROOT / SHOTS if SHOTS else tmp_path) / "serve.png"
        assert page.locator("#message").is_hidden()  # the next change cleared the refusal
        page.screenshot(path=str(shot), full_page=False)
        assert shot.stat().st_size > 50_000
        refused = "Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)"
        assert seen["errors"] == [refused] and seen["dialogs"] == []  # (Chromium logs the refusal's status)
        assert all(r.startswith(url) for r in seen["requests"])  # nothing from elsewhere
        download = page.locator("#report")
        with page.expect_download() as info:
            download.click()
        report = info.value.path().read_text()
        assert "qwen3.7-max@novita" in report and "<script" not in report

    saved = scenarios / "meeting.yaml"
    assert sorted(p.name for p in scenarios.iterdir()) == ["meeting.yaml"]
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["whatif", str(REAL), str(saved), "--out", str(out)])
    assert result.exit_code == 0, result.output
    plan = json.loads((out / "real-support.meeting.plan.json").read_text())
    assert plan["total_cost"] == pytest.approx(state["total_cost"], rel=1e-9)
    whatif = {(w["id"], a["offering"], a["mode"]): a["share"] for w in plan["workloads"] for a in w["allocations"]}
    assert whatif == {(r["workload"], r["offering"], r["mode"]): r["share_value"] for r in state["routes"]}


def test_names_from_the_files_are_shown_as_text(browser, tmp_path):
    cat = yaml.safe_load((ROOT / "catalogs" / "2026-q3.yaml").read_text())
    for o in cat["offerings"]:
        if o["vendor"] == "cerebras":
            o["vendor"] = EVIL
    (tmp_path / "catalog.yaml").write_text(yaml.safe_dump(cat, sort_keys=False))
    ws = yaml.safe_load((ROOT / "workloads" / "support.yaml").read_text())
    ws["catalog"] = "catalog.yaml"
    (tmp_path / "support.yaml").write_text(yaml.safe_dump(ws, sort_keys=False))
    with served(tmp_path / "support.yaml", tmp_path) as url:
        page, seen = watched(browser, url)
        assert EVIL in page.locator("#vendors").inner_text() and page.locator("#vendors img").count() == 0
        apply(page, "#outage-form", [("#outage-company", EVIL)])
        assert f"{EVIL} out" in page.locator("#changes").inner_text()
        assert page.locator("img").count() == 0 and page.evaluate("window.pwned") is None
        assert seen["dialogs"] == [] and seen["errors"] == []
