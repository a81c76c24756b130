"""The HTML report: rendered from the demo, checked in a real headless Chromium (Debian's package).

The browser test skips when Chromium or Playwright is missing, unless PLANNER_REQUIRE_BROWSER=1
(as in CI), where it fails instead.
"""

import os
import re
import shutil

import pytest
import yaml
from conftest import ROOT
from typer.testing import CliRunner

from planner.cli import app

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
EVIL = '<script>alert("x")</script> & <b>bold</b>'


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo portfolio, with user strings that must be shown as text, solved into a folder."""
    tmp = tmp_path_factory.mktemp("demo")
    cat = yaml.safe_load((ROOT / "catalogs" / "2026-q3.yaml").read_text())
    cat["offerings"][0]["source"] = EVIL
    cat["offerings"][0]["model"] = EVIL
    (tmp / "catalog.yaml").write_text(yaml.safe_dump(cat, sort_keys=False))
    ws = yaml.safe_load((ROOT / "workloads" / "support.yaml").read_text())
    ws["catalog"] = "catalog.yaml"
    ws["workloads"][0]["description"] = EVIL
    (tmp / "support.yaml").write_text(yaml.safe_dump(ws, sort_keys=False))
    result = CliRunner().invoke(app, ["solve", str(tmp / "support.yaml"), "--out", str(tmp / "out")])
    assert result.exit_code == 0, result.output
    return tmp / "out" / "support.html"


def test_report_is_self_contained_and_escaped(demo):
    html = demo.read_text()
    assert "<script" not in html  # no scripts at all: pygal's are removed, user text is escaped
    assert "&lt;script&gt;alert(" in html
    assert not re.search(r"(src|href)=[\"']https?://", html)
    assert "@import" not in html and "url(http" not in html
    for section in ("headline", "workloads", "compounding", "vendor-review", "assumptions"):
        assert f'id="{section}"' in html


def test_report_is_deterministic(demo):
    from planner.plan import read_plan
    from planner.report import render_plan_report

    plan = read_plan(demo.with_name("support.plan.json"))
    assert render_plan_report(plan) == render_plan_report(plan)


def test_infeasible_report_leads_with_diagnosis(tmp_path):
    ws = yaml.safe_load((ROOT / "workloads" / "support.yaml").read_text())
    ws["catalog"] = str(ROOT / "catalogs" / "2026-q3.yaml")
    ws["policy"]["budget"] = 1000
    (tmp_path / "w.yaml").write_text(yaml.safe_dump(ws))
    result = CliRunner().invoke(app, ["solve", str(tmp_path / "w.yaml"), "--out", str(tmp_path)])
    assert result.exit_code == 3
    html = (tmp_path / "support.html").read_text()
    assert html.index('id="diagnosis"') < html.index('id="workloads"')
    assert "the budget must be raised from $1,000 to" in html


def _browser():
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


@pytest.fixture(scope="module")
def clean_demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("clean")
    result = CliRunner().invoke(app, ["solve", str(ROOT / "workloads" / "support.yaml"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out / "support.html"


@pytest.mark.browser
def test_report_in_headless_chromium(demo, clean_demo):
    sync_playwright = _browser()
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            errors, requests, dialogs = [], [], []
            page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(demo.resolve().as_uri(), wait_until="load")
            assert errors == []
            assert requests == [demo.resolve().as_uri()]  # nothing else loaded: no network, no CDN
            assert dialogs == []
            for section in ("#headline", "#workloads", "#compounding", "#vendor-review", "#assumptions"):
                assert page.locator(section).is_visible(), section
            assert page.locator(".workload-card").count() == 4
            assert page.locator("#compounding svg").count() == 2  # voice-agent and ticket-triage loop
            assert page.locator("script").count() == 0
            assert EVIL in page.locator("#workload-1 .desc").inner_text()  # shown as text
            assert page.locator("#break-even tbody tr").count() > 4
            page.goto(clean_demo.resolve().as_uri(), wait_until="load")
            assert errors == []
            shot = ROOT / "reports" / "screenshot.png"
            page.set_viewport_size({"width": 1100, "height": 1400})
            page.screenshot(path=str(shot), full_page=False)
            assert shot.stat().st_size > 10_000
        finally:
            browser.close()
