"""The HTML report: rendered from the demo, checked in a real headless Chromium (Debian's package).

The browser test skips when Chromium or Playwright is missing, unless PLANNER_REQUIRE_BROWSER=1
(as in CI), where it fails instead.
"""

import json
import os
import re
import shutil

import pytest
import yaml
from conftest import ROOT
from typer.testing import CliRunner

import planner
from planner.cli.app import app

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
    from planner.outputs.report import render_plan_report
    from planner.plan.model import read_plan

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
            assert page.locator("#summary #buy tbody tr").count() == 5  # support.yaml's five routes
        finally:
            browser.close()


# ----------------------------------------------------------------------------- every report type (issue 16)

REAL = ROOT / "workloads" / "real-support.yaml"
SHOTS = os.environ.get("PLANNER_SCREENSHOTS")  # where the screenshots go (make screenshots: docs/screenshots)
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"]


@pytest.fixture(scope="module")
def real_reports(tmp_path_factory):
    """The five report types on real data: the plan, a what-if batch with a price cut and a Cerebras
    outage (which has no feasible plan), the portfolio frontier, the demo's plan against the real one,
    and the Azure conversation trace replayed on its plan made at the mean (short of its promise)."""
    out = tmp_path_factory.mktemp("real")
    run = CliRunner().invoke
    assert run(app, ["solve", str(REAL), "--out", str(out)]).exit_code == 0
    cut = "offerings[glm-4.7@cerebras].price.output=*0.5"
    assert (
        run(app, ["whatif", str(REAL), "--set", cut, "--without-vendor", "cerebras", "--out", str(out)]).exit_code == 3
    )
    assert run(app, ["frontier", str(REAL), "--out", str(out)]).exit_code == 0
    assert run(app, ["solve", str(ROOT / "workloads" / "support.yaml"), "--out", str(out / "q3")]).exit_code == 0
    cmp = run(
        app, ["compare", str(out / "q3" / "support.plan.json"), str(out / "real-support.plan.json"), "--out", str(out)]
    )
    assert cmp.exit_code == 0, cmp.output
    azure, trace = ROOT / "workloads" / "azure-conv.yaml", ROOT / "traces" / "azure_llm_trace_conv_2023-11.csv"
    mean = ["--set", "workloads[conversation].distribution=null"]
    assert run(app, ["whatif", str(azure), *mean, "--out", str(out / "azure")]).exit_code == 0
    here = os.getcwd()
    os.chdir(ROOT)  # the trace named from the repository's root, as the report then shows it
    try:
        replay = run(
            app,
            ["replay", str(out / "azure" / "azure-conv.set.plan.json"), str(trace.relative_to(ROOT)), "--format", "csv"]
            + ["--workload", "conversation", "--out", str(out)],
        )
    finally:
        os.chdir(here)
    assert replay.exit_code == 0, replay.output
    return {
        "replay": out / "azure-conv.replay.html",
        "replay_data": out / "azure-conv.replay.json",
        "plan": out / "real-support.html",
        "whatif": out / "real-support.whatif.html",
        "frontier": out / "real-support.frontier.html",
        "compare": out / "support-vs-real-support.compare.html",
    }


@pytest.fixture(scope="module")
def chromium_page():
    sync_playwright = _browser()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser.new_page(viewport={"width": 1200, "height": 1500})
        finally:
            browser.close()


def _open(page, path):
    """The report loaded with nothing else fetched and no console errors."""
    errors, requests = [], []
    handlers = {
        "console": lambda m: errors.append(m.text) if m.type in ("error", "warning") else None,
        "pageerror": lambda e: errors.append(str(e)),
        "request": lambda r: requests.append(r.url),
    }
    for event, handler in handlers.items():
        page.on(event, handler)
    try:
        page.goto(path.resolve().as_uri(), wait_until="load")
    finally:
        for event, handler in handlers.items():
            page.remove_listener(event, handler)
    assert errors == [] and requests == [path.resolve().as_uri()]


def _shot(page, name, tmp_path):
    folder = ROOT / SHOTS if SHOTS else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    assert path.stat().st_size > 20_000  # a picture, not a blank page


@pytest.mark.browser
def test_every_report_type_in_chromium(real_reports, chromium_page, tmp_path):
    page = chromium_page
    # the plan: the summary on top, with routes, spend by company and ranked risks with actions
    _open(page, real_reports["plan"])
    assert page.locator("#summary").is_visible()
    top = page.locator("#summary").bounding_box()["y"]
    assert top < page.locator("#workloads").bounding_box()["y"] and top < 1000  # in the first screen
    assert page.locator("#buy tbody tr").count() == 7  # real-support's seven routes
    assert page.locator("#summary svg").count() == 1  # spend by company
    risks = page.locator("#risks li")
    assert risks.count() >= 2 and "cerebras" in risks.first.inner_text()
    assert "Do:" in risks.first.inner_text()
    _shot(page, "plan", tmp_path)
    # what-if: the outage has no feasible plan, and carries no cost and no saving anywhere
    _open(page, real_reports["whatif"])
    row = page.locator("#summary tr.infeasible")
    assert row.count() == 1 and "$" not in row.inner_text() and "lacks:" in row.inner_text()
    section = page.locator("#scenario-2")
    assert "not comparable" in section.locator(".figures").inner_text()
    assert not re.search(r"[+-]\$\d", section.inner_text())  # no change in cost in the infeasible scenario
    assert re.search(r"-\$1,774", page.locator("#scenario-1 .figures").inner_text())  # the price cut's saving
    _shot(page, "whatif", tmp_path)
    # the frontier: today's point in the tables and on the charts, equal to the solved plan
    _open(page, real_reports["frontier"])
    today = page.locator("#latency tr.today")
    assert today.count() == 1 and "$32.5k" in today.inner_text()
    assert page.locator("#latency svg").inner_html().count("today") >= 1
    _shot(page, "frontier", tmp_path)
    # compare: labelled by catalog and date, with the bridge and spend by company
    _open(page, real_reports["compare"])
    assert "2026-q3 (2026-07-15) → aa-2026-06 (2026-06-19)" in page.locator("h1").inner_text()
    assert page.locator("#cmp-bridge tbody tr").count() == 6  # five parts (tiers: contracts) and the total
    assert page.locator("#cmp-vendors tbody tr").count() >= 5
    _shot(page, "compare", tmp_path)
    # replay: the plan made at the mean is flagged short on the trace, with its latency curve
    _open(page, real_reports["replay"])
    assert page.locator(".badge.short").count() >= 2  # the workload and its Makora route
    replayed = json.loads(real_reports["replay_data"].read_text())["workloads"][0]["within_budget_share_replay"]
    assert f"{replayed:.0%}" in page.content() and page.locator("svg").count() == 1
    _shot(page, "replay", tmp_path)


PAGES = re.compile(rb"/Type\s*/Page\b(?!s)")


@pytest.mark.browser
def test_real_support_report_prints_to_twelve_pages(real_reports, chromium_page):
    page = chromium_page
    page.goto(real_reports["plan"].resolve().as_uri(), wait_until="load")
    pdf = page.pdf(format="A4")
    pages = len(PAGES.findall(pdf))
    assert 1 <= pages <= 12, pages
    # the README states the count (docs/readme_figures.py writes the rest of its figures)
    stated = re.search(r"the real-support report: (\d+) A4 pages", (ROOT / "README.md").read_text())
    assert stated and int(stated[1]) == pages, f"README.md says {stated and stated[1]} pages; the report prints {pages}"


def test_each_route_says_who_bills_who_serves_and_how_it_deploys(tmp_path):
    import html

    result = CliRunner().invoke(app, ["solve", str(ROOT / "workloads" / "real-support.yaml"), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    text = html.unescape(re.sub(r"<[^>]+>", " ", (tmp_path / "real-support.html").read_text()))
    text = re.sub(r"\s+", " ", text)
    assert "openrouter · openai · standard" in text  # billed by OpenRouter, served behind it by OpenAI
    assert "glm-4.7@cerebras: litellm cerebras/zai-glm-4.7 (not in litellm's price table); no openrouter route" in text
    assert (
        "openai/gpt-5.4-nano@openrouter (xhigh): litellm openrouter/openai/gpt-5.4-nano; openrouter openai/gpt-5.4-nano"
        in text
    )
    assert "(medium, batch): the vendor's batch API (no gateway route)" in text


def _report_text(path) -> str:
    import html

    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", path.read_text())))


def test_reserved_routes_show_their_fee_beside_them_and_tiers_are_named(tmp_path):
    """A route on reserved units costs $0 a token; its fee is written beside it (summary and card), as the
    plan file's commitment states it. A runner-up or rejected option names its price tier."""
    result = CliRunner().invoke(
        app, ["solve", str(ROOT / "workloads" / "support-contracts.yaml"), "--out", str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    plan = json.loads((tmp_path / "support-contracts.plan.json").read_text())
    bought = [c for c in plan["commitments"] if c["kind"] == "reserved" and c["units"]]
    assert bought
    text = _report_text(tmp_path / "support-contracts.html")
    for c in bought:
        users = [w["id"] for w in plan["workloads"] if any(a.get("reserved") == c["id"] for a in w["allocations"])]
        fee = f"{c['id']}: {c['units']} units × ${c['fee']:,.0f} = ${c['cost'] / 1000:.1f}k a {plan['period']} in fees"
        # once in the summary and once in the card of each workload it serves
        assert text.count(fee) == 1 + len(users), fee
        assert " and ".join(users[-2:]) in text
    reserved_rows = sum(1 for w in plan["workloads"] for a in w["allocations"] if a.get("reserved"))
    assert text.count("$0 + fee") == 2 * reserved_rows  # the summary's row and the card's row
    # a rejected or runner-up luna-std names its tier: never three bare "luna-std" rows for one workload
    voice = next(w for w in plan["workloads"] if w["id"] == "voice-agent")
    tiers = [(r.get("price_tier", "list"), r.get("reserved")) for r in voice["rejected"] if r["offering"] == "luna-std"]
    assert len(tiers) == len(set(tiers))
    assert "luna-std (flex)" in text and "Runner-up: luna-std (priority) at" in text  # live-chat, on luna-std


def test_compiled_templates_are_kept_between_runs_and_render_the_same(tmp_path, monkeypatch):
    """The plan report's template compiled once per user (jinja2's bytecode cache): a run that loads it
    renders what a run that compiles it renders; a cache that cannot be written only costs the compile."""
    import tempfile

    import jinja2
    import jinja2.bccache

    from planner.outputs.report import render

    plan = planner.solve(planner.load_inputs(ROOT / "workloads" / "support.yaml"))
    base = render._env()

    def page(cache, *, compiles=True):
        env = base.overlay(bytecode_cache=cache)  # the same loader, filters and globals; nothing compiled yet
        env.cache = None
        if not compiles:
            monkeypatch.setattr(env, "compile", lambda *a, **k: pytest.fail("compiled, not loaded"))
        monkeypatch.setattr(render, "_env", lambda: env)
        return render.render_plan_report(plan)

    monkeypatch.setenv("PLANNER_CACHE_DIR", str(tmp_path / "cache"))
    kept = render._compiled(jinja2)
    compiled = page(kept)
    assert sorted((tmp_path / "cache").rglob("*.cache")), "the compiled templates were not kept"
    assert page(kept, compiles=False) == compiled == page(None)

    def full_disk(*a, **k):
        raise OSError(28, "No space left on device")

    for entry in (tmp_path / "cache").rglob("*.cache"):  # a crash mid-write left it cut short
        entry.write_bytes(entry.read_bytes()[: len(jinja2.bccache.bc_magic) + 5])  # past the magic, mid-checksum
    assert page(kept) == compiled  # compiled again, and kept again whole
    assert page(kept, compiles=False) == compiled

    monkeypatch.setenv("PLANNER_CACHE_DIR", str(tmp_path / "other"))
    monkeypatch.setattr(tempfile, "NamedTemporaryFile", full_disk)
    assert page(render._compiled(jinja2)) == compiled
    assert not list((tmp_path / "other").rglob("*.cache"))
