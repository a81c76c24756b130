"""The live review's API (planner.serve.app over a Session of workloads/real-support.yaml), through
Starlette's TestClient: a change re-solves and the bridge adds up, no plan is shown as what it lacks,
bad input is a 4xx message that leaves the server as it was, a scenario is saved only where allowed
and `planner whatif` on it gives the same plan, and the report downloads."""

import json
import os
import re

import pytest
from conftest import ROOT
from typer.testing import CliRunner

from planner.cli.app import app as cli
from planner.model.load import load_inputs
from planner.serve.app import create_app
from planner.serve.session import Session

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")  # (starlette 1.x)
REAL = ROOT / "workloads" / "real-support.yaml"
URL = "http://127.0.0.1:8000"
GOOGLE_UP = {"kind": "price", "company": "google", "percent": 30}  # nightly-summaries leaves Google's batch tier


@pytest.fixture(scope="module")
def session():
    return Session(load_inputs(REAL))


@pytest.fixture
def client(session, tmp_path):
    from starlette.testclient import TestClient

    (tmp_path / "scenarios").mkdir()
    session.solve([])
    return TestClient(create_app(session, tmp_path / "scenarios"), base_url=URL)


def solve(client, *changes):
    return client.post("/api/solve", json={"changes": list(changes)})


def test_the_page_loads_nothing_from_elsewhere(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy and "connect-src 'self'" in policy
    assert '<script src="/page.js"' in page.text and "<script>" not in page.text
    script, style = client.get("/page.js").text, client.get("/page.css").text
    for text in (page.text, script, style):
        assert not re.search(r"https?://", text) and "@import" not in text and "url(" not in text
    assert "innerHTML" not in script and "insertAdjacentHTML" not in script and "eval(" not in script
    assert "--accent" in style  # the report's own style


def test_the_state_offers_the_controls_and_starts_at_the_base(client, session):
    data = client.get("/api/state").json()
    assert [w["id"] for w in data["options"]["workloads"]][:2] == ["live-chat", "voice-agent"]
    assert "cerebras" in data["options"]["companies"] and "glm-4.7@cerebras" in data["options"]["offerings"]
    state = data["state"]
    assert state["changes"] == [] and state["comparison"] is None
    assert state["total_cost"] == session.base.total_cost and state["total"] == "$32.5k"
    assert len(state["routes"]) == 7 and state["risks"][0]["severity"] == "high"


def test_a_price_change_moves_a_route_and_the_bridge_adds_up(client, session):
    response = solve(client, GOOGLE_UP)
    assert response.status_code == 200
    state = response.json()
    nightly = [r for r in state["routes"] if r["workload"] == "nightly-summaries"]
    assert [r["option"] for r in nightly] == ["qwen3.7-max@novita"] and nightly[0]["moved"]
    c = state["comparison"]
    assert c["comparable"] and c["rerouted_count"] == 1
    assert c["rerouted"][0]["before"] == "gemini-3.5-flash@google (medium, batch) 100%"
    assert "gemini-3.5-flash@google: price_input" in c["rerouted"][0]["why"]
    delta = state["total_cost"] - session.base.total_cost
    assert c["delta"] == pytest.approx(delta, abs=1e-6) and delta > 0
    assert sum(part["amount"] for part in c["bridge"]) == pytest.approx(delta, abs=0.01)
    assert {part["key"] for part in c["bridge"]} >= {"volumes", "prices", "catalog", "routing"}
    label = "google prices +30% (what it bills)"
    assert state["changes"] == [{"change": GOOGLE_UP | {"percent": 30.0}, "label": label}]


def test_no_feasible_plan_is_shown_as_what_it_lacks_never_as_a_saving(client):
    state = solve(client, {"kind": "outage", "company": "cerebras"}).json()
    assert state["status"] == "infeasible" and not state["feasible"]
    assert state["total_cost"] is None and state["total"] is None and state["routes"] == [] and state["vendors"] == []
    assert "an option for voice-agent, coding-agent" in state["lacks"]
    c = state["comparison"]
    assert not c["comparable"] and c["delta"] is None and c["delta_text"] is None and c["bridge"] == []
    assert all(w["change"] == "-" for w in c["rerouted"])


BAD = [
    ({"changes": [{"kind": "budget", "workload": "nope", "budget_s": 3}]}, 422, "no workload 'nope'"),
    ({"changes": [{"kind": "price", "company": "cerebras", "percent": -150}]}, 422, "greater than or equal to -100"),
    ({"changes": [{"kind": "price", "offering": "glm-4.7@cerebras", "percent": 1e300}]}, 422, "less than or equal"),
    ({"changes": [{"kind": "traffic", "workload": "live-chat", "factor": 10**400}]}, 422, "traffic.factor"),
    ({"changes": [{"kind": "budget", "workload": "live-chat", "budget_s": "fast"}]}, 422, "valid number"),
    ({"changes": [{"kind": "outage", "company": "<script>x</script>"}]}, 422, "no company '<script>x</script>'"),
    ({"changes": [{"kind": "teleport"}]}, 422, "kind"),
    ({"changes": [{"kind": "outage", "company": "gmi"}] * 201}, 422, "at most 200"),
    ({"changes": "all"}, 422, "valid list"),
    ([1, 2], 422, "mapping"),
]


@pytest.mark.parametrize("body, status, words", BAD)
def test_bad_input_is_a_message_and_the_server_keeps_working(client, body, status, words):
    before = solve(client, GOOGLE_UP).json()
    response = client.post("/api/solve", json=body)
    assert response.status_code == status, response.text
    assert set(response.json()) == {"error"} and words in response.json()["error"], response.json()
    assert client.get("/api/state").json()["state"]["changes"] == before["changes"]  # left as it was
    assert solve(client, GOOGLE_UP).json()["total_cost"] == before["total_cost"]


def test_a_change_the_scenario_refuses_names_the_change(client, session):
    companies = sorted({c for o in session.inputs.catalog.offerings for c in o.companies})
    response = solve(client, GOOGLE_UP, *({"kind": "outage", "company": c} for c in companies))
    assert response.status_code == 422
    error = response.json()["error"]  # the outage that takes the last Kimi K2.6 away leaves live-chat's floor unread
    assert re.match(r"changes: changes\[\d+\] \([a-z-]+ out\): workloads\[0\]\.capability\.min: no ", error), error
    huge = [{"kind": "traffic", "workload": w, "factor": 1e6} for w in ("live-chat", "voice-agent")]
    assert solve(client, *huge).status_code == 200  # 1.2e12 tasks a month is within the limit (1e13)


RAW = [
    (b'{"changes": [{"kind": "price", "company": "cerebras", "percent": NaN}]}', "application/json", 400, "NaN"),
    (b'{"changes": [{"kind": "price", "company": "cerebras", "percent": 1e999}]}', "application/json", 400, "large"),
    (b'{"changes": [', "application/json", 400, "not JSON"),
    (b'{"changes": []}', "text/plain", 415, "JSON body"),
    (b"[" * 100_000 + b"]" * 100_000, "application/json", 400, "not JSON"),
    (b" " * 1_000_001, "application/json", 413, "at most"),
]


@pytest.mark.parametrize("body, kind, status, words", RAW)
def test_a_body_that_is_not_plain_json_is_refused(client, body, kind, status, words):
    response = client.post("/api/solve", content=body, headers={"content-type": kind})
    assert response.status_code == status and words in response.json()["error"], response.text
    assert client.get("/api/state").status_code == 200


def test_only_this_server_may_ask(client, session):
    other = client.post("/api/solve", json={"changes": []}, headers={"origin": "http://evil.example"})
    assert other.status_code == 403 and "origin" in other.json()["error"]
    rebound = client.get("/api/state", headers={"host": "evil.example:8000"})
    assert rebound.status_code == 403
    assert client.get("/api/nothing").status_code == 404 and "error" in client.get("/api/nothing").json()
    assert client.get("/api/solve").status_code == 405
    same = client.post("/api/solve", json={"changes": []}, headers={"origin": URL})
    assert same.status_code == 200


def files_under(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_a_scenario_is_saved_only_inside_the_scenarios_folder(client, tmp_path):
    folder = tmp_path / "scenarios"
    (folder / "sub").mkdir()
    (tmp_path / "outside").mkdir()
    os.symlink(tmp_path / "outside", folder / "link")
    assert client.post("/api/scenario", json={"path": "x.yaml"}).status_code == 409  # no change yet
    solve(client, GOOGLE_UP)
    before = files_under(tmp_path)
    for path, status in [
        ("../x.yaml", 403),
        ("sub/../../x.yaml", 403),
        (str(tmp_path / "abs.yaml"), 403),
        (".hidden.yaml", 403),
        ("link/x.yaml", 403),
        ("nofolder/x.yaml", 422),
        ("x.txt", 422),
        ("x\n.yaml", 422),
        ("", 422),
        (7, 422),
        ("sub", 422),
    ]:
        response = client.post("/api/scenario", json={"path": path})
        assert response.status_code == status, (path, response.text)
        assert response.json()["error"].startswith("scenario: ")
    assert files_under(tmp_path) == before  # nothing written anywhere
    assert client.post("/api/scenario", json={"path": "x.yaml", "extra": 1}).status_code == 422
    assert client.post("/api/scenario", json={"path": "x.yaml", "overwrite": "yes"}).status_code == 422
    saved = client.post("/api/scenario", json={"path": "sub/google-up.yaml"})
    assert saved.status_code == 201 and saved.json()["path"] == "sub/google-up.yaml"
    assert saved.json()["name"] == "google-up"
    assert files_under(tmp_path) == sorted([*before, "scenarios/sub/google-up.yaml"])
    again = client.post("/api/scenario", json={"path": "sub/google-up.yaml"})
    assert again.status_code == 409 and "exists" in again.json()["error"]
    os.symlink(tmp_path / "outside" / "target.yaml", folder / "dangling.yaml")
    assert client.post("/api/scenario", json={"path": "dangling.yaml", "overwrite": True}).status_code == 403
    assert not (tmp_path / "outside" / "target.yaml").exists()
    named = client.post("/api/scenario", json={"path": "sub/google-up.yaml", "overwrite": True, "name": "g/up"})
    assert named.status_code == 201 and "name: g/up" in (folder / "sub" / "google-up.yaml").read_text()


def test_a_saved_scenario_gives_the_same_plan_in_planner_whatif(client, session, tmp_path):
    changes = [
        GOOGLE_UP,
        {"kind": "traffic", "workload": "live-chat", "factor": 1.5},
        {"kind": "within", "workload": "ticket-triage", "share": 0.8},
        {"kind": "budget", "workload": "coding-agent", "budget_s": 40},
        {"kind": "cap", "share": 0.85},
        {"kind": "outage", "company": "makora"},
        {"kind": "price", "offering": "glm-4.7@cerebras", "percent": -12.5},
    ]
    state = solve(client, *changes).json()
    assert state["feasible"] and state["comparison"]["rerouted_count"] >= 2
    response = client.post("/api/scenario", json={"path": "meeting.yaml"})
    assert response.status_code == 201
    path = tmp_path / "scenarios" / "meeting.yaml"
    assert path.read_text() == response.json()["yaml"]
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["whatif", str(REAL), str(path), "--out", str(out), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    plan = json.loads((out / "real-support.meeting.plan.json").read_text())
    assert plan["total_cost"] == pytest.approx(state["total_cost"], rel=1e-9)
    shown = session.current.plan
    assert {w["id"]: [(a["offering"], a["mode"], a["share"]) for a in w["allocations"]] for w in plan["workloads"]} == {
        w.id: [(a.offering, a.mode, a.share) for a in w.allocations] for w in shown.workloads
    }
    routes = {(r["workload"], r["offering"], r["mode"]): r["share_value"] for r in state["routes"]}
    assert routes == {
        (w["id"], a["offering"], a["mode"]): a["share"] for w in plan["workloads"] for a in w["allocations"]
    }


def test_the_report_downloads_for_the_state_on_the_page(client, session):
    base = client.get("/api/report")
    assert base.status_code == 200 and 'filename="real-support.html"' in base.headers["content-disposition"]
    assert "$32.5k" in base.text
    solve(client, GOOGLE_UP)
    now = client.get("/api/report")
    assert 'filename="real-support.live.html"' in now.headers["content-disposition"]
    assert "scenario <strong>live</strong>" in now.text and "qwen3.7-max@novita" in now.text
    assert 'id="baselines"' in now.text and "<script" not in now.text
