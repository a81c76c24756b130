"""Two plans side by side (planner.review.compare): cost, routing and price changes, which workloads a
report shows, and `planner compare`."""

import io
import json
import pickle
from csv import DictReader

import pytest
from conftest import (
    ROOT,
    catalog_of,
    may_and_june,
    offering,
    rescaled,
    solve_dicts,
    two_vendors,
    workload,
    workloads_of,
)
from typer.testing import CliRunner

from planner.cli.app import app
from planner.model.load import load_catalog
from planner.model.scenarios import apply_scenario
from planner.model.schema import Scenario
from planner.pipeline.solve import solve_inputs
from planner.review.compare import Comparison, compare_plans

runner = CliRunner()
SUPPORT = ROOT / "workloads" / "support.yaml"


def scenario(**data):
    return Scenario.model_validate({"name": "s", **data})


def test_compare_plans_reports_cost_routing_and_prices():
    inputs = two_vendors()
    before = solve_inputs(inputs)
    sc = scenario(catalog=[{"match": {"id": "a-fast"}, "set": {"price.input": "*0.25", "price.output": "*0.25"}}])
    after = solve_inputs(apply_scenario(inputs, sc, "s.yaml"), scenario="s")
    cmp = compare_plans(before, after)
    assert cmp.total_after < cmp.total_before
    chat = next(w for w in cmp.workloads if w.id == "chat")
    assert chat.changed and chat.routing_before == ["a-std 100%"] and chat.routing_after == ["a-fast 100%"]
    assert {(c.id, c.field) for c in cmp.offering_changes} == {("a-fast", "price_input"), ("a-fast", "price_output")}
    assert type(cmp).model_validate_json(cmp.model_dump_json()) == cmp  # its rows are built as trusted records
    back = pickle.loads(pickle.dumps(cmp))  # rows built as trusted records pickle as validated ones do
    assert back == cmp and back.model_dump_json() == cmp.model_dump_json()


def test_a_plan_compared_with_itself_has_no_change(tiny_workloads, tiny_catalog):
    plan = solve_dicts(tiny_workloads, tiny_catalog)
    cmp = compare_plans(plan, plan, "q3", "q4")
    assert isinstance(cmp, Comparison) and (cmp.label_before, cmp.label_after) == ("q3", "q4")
    assert cmp.total_before == cmp.total_after == plan.total_cost
    assert [w.id for w in cmp.workloads] == ["chat", "agent", "batch"] and not any(w.changed for w in cmp.workloads)
    assert all(v.delta == 0 for v in cmp.vendors) and cmp.offering_changes == []
    assert cmp.binding_started == [] and cmp.binding_stopped == []


def test_workloads_in_only_one_plan_are_listed_too():
    cat = catalog_of(offering("a"))
    before = solve_dicts(workloads_of(workload("w1"), workload("w2")), cat)
    after = solve_dicts(workloads_of(workload("w2"), workload("w3")), cat)
    rows = {w.id: w for w in compare_plans(before, after).workloads}
    assert list(rows) == ["w1", "w2", "w3"]
    assert rows["w1"].status_after is None and rows["w1"].cost_after is None and rows["w1"].routing_after == []
    assert rows["w3"].status_before is None and rows["w3"].routing_after == ["a 100%"] and rows["w3"].changed
    assert not rows["w2"].changed


def test_comparison_shows_rerouted_and_largest_changes_first():
    base_plan = solve_dicts(*_many(40, price=1.0))
    new_plan = solve_dicts(*_many(40, price=2.0, rerouted=3))
    c = compare_plans(base_plan, new_plan)
    shown = c.notable(10)
    assert len(shown) == 10 and [w.id for w in shown] == sorted((w.id for w in shown), key=lambda i: int(i[1:]))
    assert {"w0", "w1", "w2"} <= {w.id for w in shown if w.changed}  # the rerouted ones are all there
    rest = [w for w in c.workloads if w not in shown and not w.changed]
    smallest_shown = min(abs(w.cost_after - w.cost_before) for w in shown if not w.changed)
    assert all(abs(w.cost_after - w.cost_before) <= smallest_shown for w in rest)
    assert c.notable(100) == c.workloads


def _many(n: int, price: float, rerouted: int = 0):
    """n workloads of growing size on a cheap option; the first `rerouted` lose it to a floor."""
    cat = catalog_of(
        offering("cheap", vendor="a", price_in=price, price_out=price, tps=100, capability=70),
        offering("good", vendor="b", price_in=5, price_out=5, tps=100, capability=90),
    )
    wls = [workload(f"w{i}", tasks=1000.0 * (i + 1), capability={"min": 80 if i < rerouted else 60}) for i in range(n)]
    return workloads_of(*wls), cat


def test_compare_cli(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert runner.invoke(app, ["solve", str(SUPPORT), "--out", str(a)]).exit_code == 0
    assert (
        runner.invoke(
            app, ["whatif", str(SUPPORT), str(ROOT / "scenarios" / "fast-tier-half-price.yaml"), "--out", str(b)]
        ).exit_code
        == 0
    )
    result = runner.invoke(
        app,
        [
            "compare",
            str(a / "support.plan.json"),
            str(b / "support.fast-tier-half-price.plan.json"),
            "--out",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    # the same catalog on both sides: the plans are told apart by their workloads file and scenario
    assert "support.yaml -> fast-tier-half-price: $22.5k -> $13.0k a month" in result.stdout
    assert "kimi-fast: price_output $8 per 1M output tokens → $4 per 1M output tokens" in " ".join(
        result.stdout.split()
    )
    assert (tmp_path / "support-vs-support.fast-tier-half-price.compare.html").exists()  # the scenario tells
    data = json.loads(
        runner.invoke(
            app,
            [
                "compare",
                str(a / "support.plan.json"),
                str(b / "support.fast-tier-half-price.plan.json"),
                "--out",
                str(tmp_path),
                "--format",
                "json",
            ],
        ).stdout
    )
    assert data["total_after"] < data["total_before"]
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    bad = runner.invoke(app, ["compare", str(broken), str(a / "support.plan.json")])
    assert bad.exit_code == 2 and "not valid JSON" in bad.stderr


# ----------------------------------------------------------------------------- scores and rescales (issue 15)

REAL = ROOT / "catalogs" / "aa-2026-06.yaml"


def test_a_plan_carries_the_offerings_scores_and_the_catalogs_metrics():
    cat = catalog_of(offering("a", capability={"overall": 70.0, "coding": 60.0}))
    cat["metrics"] = {"overall": {"name": "Index", "scale": "v4", "rounding": 0.1}}
    plan = solve_dicts(workloads_of(workload("w")), cat)
    assert plan.offerings[0].capability == {"overall": 70.0, "coding": 60.0}
    data = json.loads(plan.to_json())
    assert data["metrics"] == {
        "overall": {"name": "Index", "scale": "v4", "top": None, "rounding": 0.1, "source": None}
    }
    assert json.loads(solve_dicts(workloads_of(workload("w")), catalog_of(offering("a"))).to_json())["metrics"] == {}


def test_a_route_moved_by_a_score_names_the_score_among_its_reasons():
    ws = workloads_of(workload("w", capability={"min": 65}), workload("other", capability={"min": 50}))
    before = solve_dicts(ws, catalog_of(offering("cheap", price_in=1, capability=70), offering("good", price_in=5)))
    after = solve_dicts(ws, catalog_of(offering("cheap", price_in=1, capability=60), offering("good", price_in=5)))
    cmp = compare_plans(before, after)
    rows = {w.id: w for w in cmp.workloads}
    assert rows["w"].routing_before == ["cheap 100%"] and rows["w"].routing_after == ["good 100%"]
    assert cmp.reasons == {"w": ["cheap: capability.overall 70 → 60"]}  # "other" kept its route: no reasons
    assert [(c.id, c.field, c.before, c.after) for c in cmp.offering_changes] == [
        ("cheap", "capability.overall", 70.0, 60.0)
    ]
    assert cmp.rescales == [] and cmp.kept_floors == []


def test_a_change_under_the_rounding_is_no_reason():
    ws = workloads_of(workload("w"))

    def plan(score):
        cat = catalog_of(offering("a", capability=score))
        cat["metrics"] = {"overall": {"name": "Index", "rounding": 0.1}}
        return solve_dicts(ws, cat)

    assert compare_plans(plan(70.0), plan(70.04)).offering_changes == []
    assert [c.after for c in compare_plans(plan(70.0), plan(70.06)).offering_changes] == [70.06]


@pytest.fixture(scope="module")
def real_plans():
    """Three workloads solved on the real catalog and on its next scrape: overall x0.75 with a per-model
    noise of up to 3%, three output prices up 20%, the floors as they were."""
    real = load_catalog(REAL).model_dump(exclude_none=True)
    nxt = rescaled(real)
    ws = workloads_of(
        workload("chat", tasks=1e6, inp=2500, out=300, latency={"threshold": "attentive"}, capability={"min": 25}),
        workload("summaries", tasks=1e5, inp=20000, out=800, capability={"min": 35}),
        workload(
            "code",
            tasks=1e5,
            inp=2000,
            out=400,
            latency={"budget_s": 20},
            capability={"metric": "livecodebench", "min": 70},
        ),
    )
    ws["name"] = "real"
    return solve_dicts(ws, real, "highs"), solve_dicts(ws, nxt, "highs")


def test_plans_on_a_rescaled_catalog_name_the_rescale(real_plans):
    before, after = real_plans
    cmp = compare_plans(before, after)
    assert [r.metric for r in cmp.rescales] == ["overall"]
    rescale = cmp.rescales[0]
    assert rescale.factor == pytest.approx(0.75, abs=0.02) and rescale.scores >= 5 and not rescale.declared
    assert 0.7 <= rescale.low <= rescale.factor <= rescale.high <= 0.8
    assert not any(c.field == "capability.overall" for c in cmp.offering_changes)  # all on the factor
    assert [(k.workload, k.floor) for k in cmp.kept_floors] == [("chat", 25.0), ("summaries", 35.0)]
    assert cmp.kept_floors[0].old_scale == pytest.approx(25 / rescale.factor)
    rerouted = [w.id for w in cmp.workloads if w.changed]
    assert rerouted and set(rerouted) <= {"chat", "summaries"}  # code's metric (livecodebench) did not move
    floors = {"chat": 25, "summaries": 35}
    for wid in rerouted:
        assert cmp.reasons[wid][0] == f"capability.overall rescaled x{rescale.factor:.3g}"
        said = cmp.reasons[wid][1]
        assert said.startswith(f"floor {floors[wid]} kept across it (asks ") and len(cmp.reasons[wid]) == 2
        asks = float(said.split("(asks ")[1].split()[0])
        assert asks == pytest.approx(floors[wid] / rescale.factor, rel=0.01)  # the floor on the earlier scale


def test_compare_cli_says_a_metric_was_rescaled(real_plans, tmp_path):
    before, after = real_plans
    a, b = tmp_path / "before.plan.json", tmp_path / "after.plan.json"
    a.write_text(before.to_json())
    b.write_text(after.to_json())
    line = compare_plans(before, after).rescales[0].line()
    table = runner.invoke(app, ["compare", str(a), str(b), "--out", str(tmp_path)])
    assert table.exit_code == 0, table.output
    printed = " ".join(table.stdout.split())  # the terminal wraps a long line to its width
    assert " ".join(line.split()) in printed and "chat: floor 25 on overall kept across the rescale" in printed
    html = (tmp_path / "real.before-vs-real.after.compare.html").read_text()
    assert "Capability rescaled" in html and line.replace("'", "&#39;") in html
    data = json.loads(
        runner.invoke(app, ["compare", str(a), str(b), "--out", str(tmp_path), "--format", "json"]).stdout
    )
    assert [r["metric"] for r in data["rescales"]] == ["overall"] and data["rescales"][0]["factor"] < 0.8
    assert {k["workload"] for k in data["kept_floors"]} == {"chat", "summaries"}
    csv = runner.invoke(app, ["compare", str(a), str(b), "--out", str(tmp_path), "--format", "csv"]).stdout
    rows = {r["workload"]: r for r in DictReader(io.StringIO(csv))}
    assert rows["chat"]["rescale"] == line and rows["code"]["rescale"] == ""
    assert all("capability.overall rescaled x0.7" in rows[w]["reasons"] for w in rows if rows[w]["changed"] == "True")


def test_a_declared_rescale_between_plans_needs_no_score_test():
    ws = workloads_of(workload("w", capability={"min": 40}), workload("on-b", vendors={"allow": ["vb"]}))

    def plan(scale, a, b):
        cat = catalog_of(offering("a", price_in=1, capability=a), offering("b", vendor="vb", capability=b))
        cat["metrics"] = {"overall": {"name": "Index", "scale": scale}}
        return solve_dicts(ws, cat)

    cmp = compare_plans(plan("v3", 80.0, 60.0), plan("v4", 60.0, 45.0))
    assert [(r.metric, r.declared, r.scale_before, r.scale_after, r.factor, r.scores) for r in cmp.rescales] == [
        ("overall", True, "v3", "v4", 0.75, 2)
    ]
    assert cmp.offering_changes == [] and [k.workload for k in cmp.kept_floors] == ["w"]
    apart = compare_plans(plan("v3", 80.0, 60.0), plan("v4", 60.0, 75.0))  # a new label, no common move
    assert apart.rescales[0].line().endswith("but its scores did not move on the whole: their changes are listed")
    assert [(c.id, c.before, c.after, c.note) for c in apart.offering_changes] == [
        ("a", 80.0, 60.0, None),
        ("b", 60.0, 75.0, None),
    ]
    assert apart.kept_floors == []
    assert compare_plans(plan("v3", 80.0, 60.0), plan("v3", 60.0, 45.0)).rescales == []  # 2 scores: too few


def test_compare_finds_the_rescale_diff_finds_with_the_same_factor():
    """Plans solved on the May and June scores of the same offerings (issue 27): compare reads the models
    both plans' catalogs score, as catalog diff does, so it reports the rescale with diff's factor from
    the same 22 models. Over the 8 scores the plans carry themselves (v1.2, and a plan of an older
    planner) it finds another factor (the issue saw x0.833 from 8 scores, and diff none)."""
    from planner.market.diff import diff_catalogs
    from planner.model.schema import Catalog

    may, june = may_and_june(load_catalog(REAL).model_dump(exclude_none=True))
    ws = workloads_of(
        workload("chat", tasks=1e6, inp=2500, out=300, capability={"min": 10}),
        workload("code", tasks=1e5, inp=2000, out=400, capability={"metric": "livecodebench", "min": 60}),
    )
    ws["name"] = "scrapes"
    before, after = solve_dicts(ws, may, "highs"), solve_dicts(ws, june, "highs")
    cmp = compare_plans(before, after)
    (rescale,) = cmp.rescales
    rows = diff_catalogs(Catalog.model_validate(may), Catalog.model_validate(june))
    (row,) = [r for r in rows if r["change"] == "rescaled"]
    assert rescale.line().split(";")[0] == row["note"].split(";")[0]
    assert (rescale.factor, rescale.scores, rescale.within) == (pytest.approx(0.718739, abs=1e-6), 22, 12)
    assert len(before.offerings) < 10  # the scores the plans carry themselves: too few to tell
    assert not any(c.field.startswith("capability.gpqa") for c in cmp.offering_changes)  # rounding
    old = before.model_copy(update={"model_scores": {}})  # a plan of an older planner: the options' own scores
    (own,) = compare_plans(old, after).rescales
    assert own.scores == 8 and own.factor != rescale.factor


def test_a_route_left_for_its_price_names_the_price_though_the_later_plan_does_not_use_it():
    ws, good = workloads_of(workload("w")), offering("good", vendor="b", price_in=2)
    before = solve_dicts(ws, catalog_of(offering("cheap", vendor="a", price_in=1), good))
    after = solve_dicts(ws, catalog_of(offering("cheap", vendor="a", price_in=4), good))
    cmp = compare_plans(before, after)
    assert cmp.workloads[0].routing_after == ["good 100%"] and cmp.offering_changes == []  # (cheap not in offerings[])
    assert cmp.reasons == {"w": ["cheap: price_input $1 per 1M input tokens → $4 per 1M input tokens"]}


def test_compare_reports_of_different_pairs_never_overwrite_each_other(tmp_path):
    """Each report is named by both sides: the plans' names, with the catalog when the names are the
    same (this quarter's plan against last quarter's), or the labels given."""
    q3, q4, out = tmp_path / "q3", tmp_path / "q4", tmp_path / "out"
    assert runner.invoke(app, ["solve", str(SUPPORT), "--out", str(q3)]).exit_code == 0
    scenario = ROOT / "scenarios" / "fast-tier-half-price.yaml"
    assert runner.invoke(app, ["whatif", str(SUPPORT), str(scenario), "--out", str(q4)]).exit_code == 0
    real = tmp_path / "real"
    assert (
        runner.invoke(app, ["solve", str(ROOT / "workloads" / "real-support.yaml"), "--out", str(real)]).exit_code == 0
    )
    a, b, c = q3 / "support.plan.json", q4 / "support.fast-tier-half-price.plan.json", real / "real-support.plan.json"
    for old, new in ((a, c), (b, c), (c, a), (a, a)):
        assert runner.invoke(app, ["compare", str(old), str(new), "--out", str(out)]).exit_code == 0
    assert (
        runner.invoke(app, ["compare", str(a), str(b), "--out", str(out), "--label", "q3", "--label", "q4"]).exit_code
        == 0
    )
    assert sorted(p.name for p in out.iterdir()) == [
        "q3-vs-q4.compare.html",
        "real-support-vs-support.compare.html",
        "support-vs-real-support.compare.html",
        "support-vs-support.compare.html",  # a plan against itself: nothing tells the sides apart
        "support.fast-tier-half-price-vs-real-support.compare.html",
    ]
