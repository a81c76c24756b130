"""`planner catalog fetch`, against a local HTTP server that serves saved responses shaped like the
documented APIs (tests/data/fetch): what it saves and its provenance, the one-step import, retries, and
the failures that exit 4 with nothing written. No test reaches the real network: every URL points at
the local server, and a request to any other host fails the test."""

import hashlib
import json
import socket
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
import yaml
from conftest import DATA
from pytest_httpserver import HTTPServer
from typer.testing import CliRunner
from werkzeug import Response

from planner.cli.app import app

runner = CliRunner()
FIX = DATA / "fetch"
KEY = "test-key-not-a-secret"
OPENROUTER = {
    "/api/v1/models": "openrouter/models.json",
    "/api/v1/providers": "openrouter/providers.json",
    "/api/v1/models/openai/gpt-oss-120b/endpoints": "openrouter/endpoints/openai/gpt-oss-120b.json",
    "/api/v1/models/meta-llama/llama-3.3-70b-instruct/endpoints": (
        "openrouter/endpoints/meta-llama/llama-3.3-70b-instruct.json"
    ),
    "/api/v1/models/meta-llama/llama-3.3-70b-instruct:free/endpoints": (
        "openrouter/endpoints/meta-llama/llama-3.3-70b-instruct_free.json"
    ),
    "/api/v1/models/acme/mystery-1/endpoints": "openrouter/endpoints/acme/mystery-1.json",
}
LITELLM = {"/litellm/model_prices_and_context_window.json": "litellm/model_prices_and_context_window.json"}
AA = {"/api/v2/data/llms/models": "aa/llms_models.json"}
SAVED = {"openrouter": OPENROUTER, "litellm": LITELLM, "aa": AA}  # URL path -> the file it is saved as


@pytest.fixture(scope="module")
def httpd():
    """One local server for the module (stopping one takes half a second)."""
    server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def server(httpd):
    """The local server with no handlers and an empty log."""
    httpd.clear()
    yield httpd
    httpd.clear()


@pytest.fixture(autouse=True)
def local_only(monkeypatch, server):
    """Every source at the local server, retries fast, keys as in a clean shell; and any request to
    another host than the local server an error."""
    base = f"http://127.0.0.1:{server.port}"
    monkeypatch.setenv("PLANNER_OPENROUTER_URL", base)
    monkeypatch.setenv("PLANNER_AA_URL", base)
    monkeypatch.setenv("PLANNER_LITELLM_URL", base + "/litellm/model_prices_and_context_window.json")
    monkeypatch.setenv("PLANNER_FETCH_BACKOFF_S", "0.01")
    monkeypatch.setenv("PLANNER_FETCH_RETRIES", "2")
    monkeypatch.setenv("PLANNER_FETCH_TIMEOUT_S", "5")
    monkeypatch.setenv("ARTIFICIAL_ANALYSIS_API_KEY", KEY)
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    real = httpx.HTTPTransport.handle_request

    def guarded(self, request):
        assert request.url.host == "127.0.0.1", f"a test reached out to {request.url}"
        return real(self, request)

    monkeypatch.setattr(httpx.HTTPTransport, "handle_request", guarded)


def serve(server, *sources):
    for source in sources:
        for path, name in SAVED[source].items():
            headers = {"x-api-key": KEY} if source == "aa" else None
            server.expect_request(path, headers=headers).respond_with_data(
                (FIX / name).read_bytes(), content_type="application/json"
            )


def fetch(*args, env=None):
    return runner.invoke(app, ["catalog", "fetch", *args], env=env)


def one_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def nothing_written(folder: Path) -> None:
    """No output folder and nothing hidden left beside it."""
    assert not folder.exists()
    assert list(folder.parent.iterdir()) == []


@pytest.mark.parametrize("sources", [["openrouter"], ["litellm"], ["aa"], ["openrouter", "litellm", "aa"]])
def test_fetch_saves_each_answer_as_it_came_with_its_provenance(server, tmp_path, sources):
    serve(server, *sources)
    out = tmp_path / "live"
    result = fetch(*sources, "--out", str(out))
    assert result.exit_code == 0, result.output
    expected = {name for s in sources for name in SAVED[s].values()}
    saved = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert saved == expected | {"PROVENANCE.json", "PROVENANCE.md"}
    for name in expected:  # byte for byte what the server sent
        assert (out / name).read_bytes() == (FIX / name).read_bytes()
    provenance = json.loads((out / "PROVENANCE.json").read_text())
    assert {f["path"] for f in provenance["files"]} == expected
    md = (out / "PROVENANCE.md").read_text()
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    for f in provenance["files"]:
        body = (out / f["path"]).read_bytes()
        assert f["sha256"] == hashlib.sha256(body).hexdigest() and f["bytes"] == len(body)
        assert f["url"].startswith(f"http://127.0.0.1:{server.port}/") and f["fetched_at"].startswith(today)
        assert f["fetched_at"].endswith("Z") and f["kind"] in sources
        assert f"`{f['path']}`" in md and f["sha256"] in md and f["url"] in md
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging folder left
    assert f"{out}: {len(expected)} files" in result.stderr
    if "aa" in sources:  # the key went in its header, and is written nowhere
        assert all(KEY not in p.read_text() for p in out.rglob("*") if p.is_file())
    if "openrouter" in sources:
        assert "OPENROUTER_API_KEY is not set" in result.stderr


def test_fetch_then_import_gives_a_catalog_that_validates_and_solves(server, tmp_path):
    serve(server, "openrouter", "litellm", "aa")
    out, catalog = tmp_path / "live", tmp_path / "cat" / "live.yaml"
    result = fetch("openrouter", "litellm", "aa", "--out", str(out), "--import", "--out-catalog", str(catalog))
    assert result.exit_code == 0, result.output
    assert runner.invoke(app, ["catalog", "validate", str(catalog)]).exit_code == 0
    data = yaml.safe_load(catalog.read_text())
    assert data["as_of"] == datetime.now(UTC).strftime("%Y-%m-%d")  # the day of the fetch
    by = {o["id"]: o for o in data["offerings"]}
    assert sorted(by) == [
        "acme/mystery-1@openrouter:together",  # no score: it enters without one, for workloads with no floor
        "meta-llama/llama-3.3-70b-instruct@openrouter:cerebras",
        "meta-llama/llama-3.3-70b-instruct@openrouter:deepinfra/turbo",
        "meta-llama/llama-3.3-70b-instruct@openrouter:groq",
        "openai/gpt-oss-120b@openrouter:cerebras",
        "openai/gpt-oss-120b@openrouter:deepinfra/fp4",
        "openai/gpt-oss-120b@openrouter:groq",
    ]
    assert {o["vendor"] for o in by.values()} == {"openrouter"}
    assert {o["host"] for o in by.values()} == {"cerebras", "groq", "deepinfra", "together-ai"}
    assert by["acme/mystery-1@openrouter:together"]["capability"] == {}
    assert "no capability score" in by["acme/mystery-1@openrouter:together"]["source"]
    header = catalog.read_text().splitlines()[0]
    assert "openrouter:endpoints/" not in header and "(6 files)" not in header  # 4 endpoints files: by name
    left = (tmp_path / "cat" / "live.left-out.csv").read_text()
    assert "acme/mystery-1,no capability score" not in left and "@ together" in left
    workloads = tmp_path / "w.yaml"
    workloads.write_text(
        yaml.safe_dump(
            {
                "name": "live",
                "catalog": str(catalog),
                "workloads": [
                    {
                        "id": "chat",
                        "tasks": 10000,
                        "tokens": {"input": 1000, "output": 200},
                        "latency": {"threshold": "attentive"},
                        "capability": {"min": 14},
                    },
                    {
                        "id": "nightly",
                        "tasks": 500,
                        "tokens": {"input": 8000, "output": 500},
                        "latency": {"threshold": "background"},
                        "capability": {"min": 30},
                    },
                ],
            }
        )
    )
    solved = runner.invoke(app, ["solve", str(workloads), "--out", str(tmp_path / "reports"), "--format", "json"])
    assert solved.exit_code == 0, solved.output
    plan = json.loads((tmp_path / "reports" / "live.plan.json").read_text())
    assert plan["status"] == "optimal"


def test_a_fetched_folder_imports_and_a_changed_file_is_refused(server, tmp_path):
    serve(server, "openrouter", "aa")
    out = tmp_path / "live"
    assert fetch("openrouter", "aa", "--out", str(out)).exit_code == 0
    built = runner.invoke(app, ["catalog", "import", str(out), "--out", str(tmp_path / "a.yaml")])
    assert built.exit_code == 0, built.output
    assert len(yaml.safe_load((tmp_path / "a.yaml").read_text())["offerings"]) == 7  # six scored, one not
    edited = out / "openrouter" / "models.json"
    edited.write_bytes(edited.read_bytes().replace(b"0.00000019", b"0.00000018"))
    refused = runner.invoke(app, ["catalog", "import", str(out), "--out", str(tmp_path / "b.yaml")])
    assert refused.exit_code == 2 and "changed since it was fetched" in one_line(refused)
    assert not (tmp_path / "b.yaml").exists()


def test_a_429_is_retried_after_what_retry_after_asks(server, tmp_path):
    calls = []
    body = (FIX / LITELLM["/litellm/model_prices_and_context_window.json"]).read_bytes()

    def limited(request):
        calls.append(time.monotonic())
        if len(calls) == 1:
            return Response("slow down", status=429, headers={"Retry-After": "1"})
        return Response(body, status=200, content_type="application/json")

    server.expect_request("/litellm/model_prices_and_context_window.json").respond_with_handler(limited)
    result = fetch("litellm", "--out", str(tmp_path / "live"))
    assert result.exit_code == 0, result.output
    assert len(calls) == 2 and calls[1] - calls[0] >= 0.95  # Retry-After, not the 0.01 s backoff
    assert (tmp_path / "live" / "litellm" / "model_prices_and_context_window.json").read_bytes() == body


def test_a_500_that_persists_exits_4_with_one_line_and_writes_nothing(server, tmp_path):
    serve(server, "litellm")
    server.expect_request("/api/v1/models").respond_with_data("upstream down", status=500)
    out = tmp_path / "empty" / "live"
    out.parent.mkdir()
    result = fetch("litellm", "openrouter", "--out", str(out))
    assert result.exit_code == 4
    line = one_line(result)
    assert line.startswith(f"http://127.0.0.1:{server.port}/api/v1/models: HTTP 500")
    assert "after 3 attempts" in line and "try again later" in line
    assert len([r for r, _ in server.log if r.path == "/api/v1/models"]) == 3
    nothing_written(out)


def test_a_failed_fetch_leaves_a_former_fetch_as_it_was(server, tmp_path):
    serve(server, "litellm")
    out = tmp_path / "live"
    assert fetch("litellm", "--out", str(out)).exit_code == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    server.clear()
    server.expect_request("/litellm/model_prices_and_context_window.json").respond_with_data("no", status=503)
    assert fetch("litellm", "--out", str(out)).exit_code == 4
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["live"]


class Slow:
    """A handler that answers after the client has given up; `finish(n)` waits for its n answers, so
    that none lands in the next test's log."""

    def __init__(self, body: str, seconds: float = 0.6) -> None:
        self.body, self.seconds, self.done = body, seconds, []

    def __call__(self, request):
        time.sleep(self.seconds)
        self.done.append(1)
        return Response(self.body, content_type="application/json")

    def finish(self, n: int) -> None:
        deadline = time.monotonic() + 5
        while len(self.done) < n and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.05)


def test_a_timeout_exits_4(server, tmp_path, monkeypatch):
    monkeypatch.setenv("PLANNER_FETCH_TIMEOUT_S", "0.2")
    monkeypatch.setenv("PLANNER_FETCH_RETRIES", "1")

    slow = Slow("{}")
    server.expect_request("/litellm/model_prices_and_context_window.json").respond_with_handler(slow)
    out = tmp_path / "live"
    started = time.monotonic()
    result = fetch("litellm", "--out", str(out))
    assert result.exit_code == 4 and time.monotonic() - started < 3
    line = one_line(result)
    assert "timed out waiting for the answer (after 0.2 s) after 2 attempts" in line and "--timeout" in line
    nothing_written(out)
    slow.finish(2)


def test_the_timeout_option_overrides_the_environment(server, tmp_path):
    slow = Slow(json.dumps({"data": []}))
    server.expect_request("/api/v2/data/llms/models").respond_with_handler(slow)
    result = fetch("aa", "--out", str(tmp_path / "live"), "--timeout", "0.1", "--retries", "0")
    assert result.exit_code == 4 and "(after 0.1 s) after 1 attempt;" in one_line(result)
    slow.finish(1)


def test_a_truncated_body_exits_4(server, tmp_path):
    whole = (FIX / "openrouter" / "models.json").read_bytes()
    server.expect_request("/api/v1/models").respond_with_data(whole[: len(whole) // 2], content_type="application/json")
    out = tmp_path / "live"
    result = fetch("openrouter", "--out", str(out))
    assert result.exit_code == 4
    line = one_line(result)
    assert "/api/v1/models: the answer is not valid JSON (" in line and "a truncated download" in line
    assert "fetch again" in line
    nothing_written(out)


def test_an_answer_of_another_shape_exits_4(server, tmp_path):
    server.expect_request("/api/v2/data/llms/models", headers={"x-api-key": KEY}).respond_with_json({"models": []})
    result = fetch("aa", "--out", str(tmp_path / "live"))
    assert result.exit_code == 4 and "is not an Artificial Analysis models response" in one_line(result)


def test_a_failing_endpoints_list_fails_the_whole_fetch(server, tmp_path):
    serve(server, "litellm")
    for path, name in OPENROUTER.items():
        if "acme" in path:
            server.expect_request(path).respond_with_data("gone", status=404)
        else:
            server.expect_request(path).respond_with_data((FIX / name).read_bytes(), content_type="application/json")
    out = tmp_path / "live"
    result = fetch("openrouter", "litellm", "--out", str(out), "--concurrency", "2")
    assert result.exit_code == 4
    line = one_line(result)
    assert "/api/v1/models/acme/mystery-1/endpoints: HTTP 404" in line and "--openrouter-url" in line
    assert len([r for r, _ in server.log if "acme" in r.path]) == 1  # a 404 is not retried
    nothing_written(out)


def test_a_refused_connection_exits_4(tmp_path, monkeypatch):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("PLANNER_LITELLM_URL", f"http://127.0.0.1:{port}/prices.json")
    out = tmp_path / "live"
    result = fetch("litellm", "--out", str(out))
    assert result.exit_code == 4
    line = one_line(result)
    assert line.startswith(f"http://127.0.0.1:{port}/prices.json: could not connect")
    assert "after 3 attempts" in line and "network connection" in line and "PLANNER_LITELLM_URL" in line
    nothing_written(out)


def test_a_missing_aa_key_exits_2_before_any_request(server, tmp_path, monkeypatch):
    monkeypatch.delenv("ARTIFICIAL_ANALYSIS_API_KEY")
    serve(server, "openrouter", "aa")
    out = tmp_path / "live"
    result = fetch("openrouter", "aa", "--out", str(out))
    assert result.exit_code == 2
    line = one_line(result)
    assert line.startswith("ARTIFICIAL_ANALYSIS_API_KEY: not set")
    assert "artificialanalysis.ai" in line and "set ARTIFICIAL_ANALYSIS_API_KEY" in line
    assert server.log == []
    nothing_written(out)


def test_the_openrouter_key_is_sent_when_set(server, tmp_path):
    serve(server, "openrouter")
    result = fetch("openrouter", "--out", str(tmp_path / "live"), env={"OPENROUTER_API_KEY": "sk-or-test"})
    assert result.exit_code == 0 and "OPENROUTER_API_KEY" not in result.stderr
    assert {r.headers.get("Authorization") for r, _ in server.log} == {"Bearer sk-or-test"}


def test_urls_from_options_and_bad_settings(server, tmp_path, monkeypatch):
    monkeypatch.setenv("PLANNER_LITELLM_URL", "http://127.0.0.1:1/nowhere.json")
    monkeypatch.setenv("PLANNER_AA_URL", "not a url")  # a source not fetched: not read
    server.expect_request("/mirror/prices.json").respond_with_json({"gpt-x": {"mode": "chat"}})
    mirror = f"http://127.0.0.1:{server.port}/mirror/prices.json"
    assert fetch("litellm", "--out", str(tmp_path / "a"), "--litellm-url", mirror).exit_code == 0
    bad = fetch("litellm", "--out", str(tmp_path / "b"), "--litellm-url", "ftp://example.org/x")
    assert bad.exit_code == 2 and one_line(bad).startswith("--litellm-url: expected an http:// or https:// URL")
    monkeypatch.setenv("PLANNER_FETCH_RETRIES", "lots")
    assert "PLANNER_FETCH_RETRIES: expected a whole number" in one_line(fetch("litellm", "--out", str(tmp_path / "c")))
    assert server.log and all(r.path == "/mirror/prices.json" for r, _ in server.log)


def test_the_output_folder_is_a_fetch_or_new(server, tmp_path):
    serve(server, "litellm")
    other = tmp_path / "notes"
    other.mkdir()
    (other / "mine.txt").write_text("keep")
    refused = fetch("litellm", "--out", str(other))
    assert refused.exit_code == 2 and "not a former fetch" in one_line(refused)
    assert (other / "mine.txt").read_text() == "keep" and server.log == []
    assert fetch("litellm", "--import", "--out", str(tmp_path / "x")).exit_code == 2  # --import needs --out-catalog
    out = tmp_path / "live"
    assert fetch("litellm", "--out", str(out)).exit_code == 0
    (out / "stale.json").write_text("{}")
    assert fetch("litellm", "--out", str(out)).exit_code == 0  # a former fetch is replaced whole
    assert not (out / "stale.json").exists() and (out / "PROVENANCE.json").is_file()


def test_without_artificial_analysis_the_endpoints_still_make_a_catalog(server, tmp_path):
    """OpenRouter and litellm alone: every endpoint of a model that does not reason, with a price and a
    measured speed, enters with no scores (none is guessed); the catalog validates, and since an option
    needs a score in a workload's metric (SPEC 3), a team's own evaluation added by an overlay is what
    makes them usable."""
    serve(server, "openrouter", "litellm")
    out, catalog = tmp_path / "live", tmp_path / "cat" / "live.yaml"
    result = fetch("openrouter", "litellm", "--out", str(out), "--import", "--out-catalog", str(catalog))
    assert result.exit_code == 0, result.output
    assert runner.invoke(app, ["catalog", "validate", str(catalog)]).exit_code == 0
    data = yaml.safe_load(catalog.read_text())
    assert data["offerings"] and all(o["capability"] == {} for o in data["offerings"])
    left = (tmp_path / "cat" / "live.left-out.csv").read_text()
    assert "gpt-oss-120b,no capability score and no measured thinking time for a model that reasons" in left
    chat = {
        "id": "chat",
        "tasks": 10000,
        "tokens": {"input": 1000, "output": 200},
        "latency": {"threshold": "attentive"},
    }
    workloads = tmp_path / "w.yaml"
    workloads.write_text(yaml.safe_dump({"name": "live", "catalog": str(catalog), "workloads": [chat]}))
    assert runner.invoke(app, ["solve", str(workloads), "--out", str(tmp_path / "r1")]).exit_code == 3
    ours = {"name": "our-evals", "catalog": [{"match": {"model": "*"}, "set": {"capability.overall": 70}}]}
    (tmp_path / "ours.yaml").write_text(yaml.safe_dump(ours))
    workloads.write_text(yaml.safe_dump({"name": "live", "catalog": [str(catalog), "ours.yaml"], "workloads": [chat]}))
    solved = runner.invoke(app, ["solve", str(workloads), "--out", str(tmp_path / "r2")])
    assert solved.exit_code == 0, solved.output


# ----------------------------------------------------------------------------- hostile servers (issue 25)


@pytest.fixture
def other(httpd):
    """A second local server: another port, so another origin, than the configured one."""
    second = HTTPServer(host="127.0.0.1", port=0, threaded=True)
    second.start()
    yield second
    second.clear()
    second.stop()


def test_a_cross_origin_redirect_never_carries_the_key(server, other, tmp_path):
    """httpx strips only Authorization on a redirect to another host; the Artificial Analysis key
    travels in x-api-key. Now no secret header follows a redirect that changes scheme, host or port, and
    the provenance records where the bytes came from."""
    body = (FIX / "aa" / "llms_models.json").read_bytes()
    elsewhere = f"http://127.0.0.1:{other.port}/copy/models.json"
    server.expect_request("/api/v2/data/llms/models").respond_with_data("", status=302, headers={"Location": elsewhere})
    other.expect_request("/copy/models.json").respond_with_data(body, content_type="application/json")
    out = tmp_path / "live"
    result = fetch("aa", "--out", str(out), env={"OPENROUTER_API_KEY": "sk-or-secret"})
    assert result.exit_code == 0, result.output
    (request, _), (moved, _) = server.log[0], other.log[0]
    assert request.headers.get("x-api-key") == KEY
    assert "x-api-key" not in moved.headers and "Authorization" not in moved.headers
    record = json.loads((out / "PROVENANCE.json").read_text())["files"][0]
    assert record["url"].endswith("/api/v2/data/llms/models") and record["served_by"] == elsewhere
    assert f"(served by {elsewhere})" in (out / "PROVENANCE.md").read_text()
    assert (out / "aa" / "llms_models.json").read_bytes() == body


def test_a_same_origin_redirect_keeps_the_key_and_a_refusal_after_a_move_says_so(server, other, tmp_path):
    body = (FIX / "aa" / "llms_models.json").read_bytes()
    server.expect_request("/api/v2/data/llms/models").respond_with_data("", status=308, headers={"Location": "/v3/m"})
    server.expect_request("/v3/m", headers={"x-api-key": KEY}).respond_with_data(body, content_type="application/json")
    assert fetch("aa", "--out", str(tmp_path / "a")).exit_code == 0
    server.clear()
    there = f"http://127.0.0.1:{other.port}/m"
    server.expect_request("/api/v2/data/llms/models").respond_with_data("", status=307, headers={"Location": there})
    other.expect_request("/m").respond_with_data("no key", status=401)
    result = fetch("aa", "--out", str(tmp_path / "b"))
    assert result.exit_code == 4 and "redirected" in one_line(result) and "key is not sent" in one_line(result)
    assert all("x-api-key" not in r.headers for r, _ in other.log)


def test_a_redirect_loop_and_a_redirect_off_http_exit_4(server, tmp_path):
    server.expect_request("/litellm/model_prices_and_context_window.json").respond_with_data(
        "", status=302, headers={"Location": "/litellm/model_prices_and_context_window.json"}
    )
    out = tmp_path / "live"
    result = fetch("litellm", "--out", str(out))
    assert result.exit_code == 4 and "redirect loop" in one_line(result)
    nothing_written(out)
    server.clear()
    server.expect_request("/litellm/model_prices_and_context_window.json").respond_with_data(
        "", status=301, headers={"Location": "file:///etc/passwd"}
    )
    result = fetch("litellm", "--out", str(out))
    assert result.exit_code == 4 and "not http(s)" in one_line(result)


def test_a_server_that_drips_its_answer_meets_the_deadline(server, tmp_path):
    """One byte every 0.2 s never trips the per-read timeout; the deadline per attempt ends it, exit 4."""

    def drip(request):
        def body():
            for ch in '{"gpt-x": {"mode": "chat"}}':
                time.sleep(0.2)
                yield ch.encode()

        return Response(body(), content_type="application/json")

    server.expect_request("/litellm/model_prices_and_context_window.json").respond_with_handler(drip)
    out = tmp_path / "live"
    started = time.monotonic()
    result = fetch("litellm", "--out", str(out), "--deadline", "0.5", "--retries", "0")
    assert result.exit_code == 4 and time.monotonic() - started < 3
    line = one_line(result)
    assert "longer than the 0.5 s deadline" in line and "--deadline" in line
    nothing_written(out)
    time.sleep(1.2)  # the server's handler finishes before the next test


@pytest.mark.parametrize(
    "args, env, named",
    [
        (["--timeout", "inf"], {}, "--timeout"),
        (["--deadline", "nan"], {}, "--deadline"),
        ([], {"PLANNER_FETCH_TIMEOUT_S": "inf"}, "PLANNER_FETCH_TIMEOUT_S"),
        ([], {"PLANNER_FETCH_DEADLINE_S": "-1"}, "PLANNER_FETCH_DEADLINE_S"),
        ([], {"PLANNER_MAX_FILE_MB": "nan"}, "PLANNER_MAX_FILE_MB"),
        ([], {"PLANNER_MAX_FILE_MB": "inf"}, "PLANNER_MAX_FILE_MB"),
        ([], {"PLANNER_MAX_FILE_MB": "-1"}, "PLANNER_MAX_FILE_MB"),
    ],
)
def test_bad_settings_are_one_line_exit_2(server, tmp_path, args, env, named):
    serve(server, "litellm")
    out = tmp_path / "live"
    result = fetch("litellm", "--out", str(out), *args, env=env)
    assert result.exit_code == 2, result.output
    assert one_line(result).startswith(named) and "expected" in one_line(result)
    nothing_written(out)


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_a_bad_file_size_limit_is_exit_2_on_every_command(value, monkeypatch):
    monkeypatch.setenv("PLANNER_MAX_FILE_MB", value)
    result = runner.invoke(app, ["catalog", "validate", str(DATA / "tiny-catalog.yaml")])
    assert result.exit_code == 2 and one_line(result).startswith("PLANNER_MAX_FILE_MB: expected a number of megabytes")


def test_a_hostile_model_id_in_the_listing_is_skipped_and_listed(server, tmp_path):
    """A listed id that cannot name a file ('../x', 300 characters) is the server's data, not the user's
    --out: the entry is skipped and listed (stderr, PROVENANCE), the rest fetched."""
    listing = json.loads((FIX / "openrouter" / "models.json").read_bytes())
    hostile = ["../x", "a/" + "b" * 300, "a/b/c", "/x", {"no": "id"}]
    listing["data"] += [({"id": h} if isinstance(h, str) else h) for h in hostile]
    for path, name in OPENROUTER.items():
        if path == "/api/v1/models":
            server.expect_request(path).respond_with_json(listing)
        else:
            server.expect_request(path).respond_with_data((FIX / name).read_bytes(), content_type="application/json")
    out = tmp_path / "live"
    result = fetch("openrouter", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert result.stderr.count("skipped: OpenRouter model") == len(hostile)
    skipped = json.loads((out / "PROVENANCE.json").read_text())["skipped"]
    assert [s["id"] for s in skipped][:3] == ["../x", "a/" + "b" * 198, "a/b/c"]
    assert len(list((out / "openrouter" / "endpoints").rglob("*.json"))) == len(OPENROUTER) - 2
    assert not (tmp_path / "x").exists() and not (out / "openrouter" / "x").exists()
    imported = runner.invoke(app, ["catalog", "import", str(out), "--out", str(tmp_path / "c.yaml")])
    assert imported.exit_code == 0, imported.output


def test_a_server_that_answers_badly_is_exit_4_never_a_traceback(server, tmp_path):
    """Found in review: a Location httpx joins but cannot request, and a gzip answer that is not gzip,
    escaped as exit 1."""
    path = "/litellm/model_prices_and_context_window.json"
    for location in ("https:foo",):  # a Location with no host
        server.clear()
        server.expect_request(path).respond_with_data("", status=302, headers={"Location": location})
        result = fetch("litellm", "--out", str(tmp_path / "a"), "--retries", "0")
        assert result.exit_code == 4 and "invalid address" in one_line(result), result.output
    server.clear()
    server.expect_request(path).respond_with_data(
        b"not gzip at all", headers={"Content-Encoding": "gzip", "Content-Type": "application/json"}
    )
    result = fetch("litellm", "--out", str(tmp_path / "b"), "--retries", "0")
    assert result.exit_code == 4 and "could not be read" in one_line(result)
    nothing_written(tmp_path / "b")


def test_a_key_that_is_not_ascii_and_an_out_that_is_the_current_folder_are_exit_2(server, tmp_path, monkeypatch):
    serve(server, "aa")
    result = fetch("aa", "--out", str(tmp_path / "a"), env={"ARTIFICIAL_ANALYSIS_API_KEY": "clé"})
    assert result.exit_code == 2 and one_line(result).startswith("ARTIFICIAL_ANALYSIS_API_KEY: expected printable")
    monkeypatch.chdir(tmp_path)
    for out in (".", ".."):
        result = fetch("aa", "--out", out)
        assert result.exit_code == 2 and "names the current folder" in one_line(result)
    assert list(tmp_path.iterdir()) == []
