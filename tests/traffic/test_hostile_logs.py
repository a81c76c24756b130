"""Hostile logs (issue 25, the logs part): names that are SQL, paths that DuckDB would expand, times out
of range, files larger than memory and a signal while DuckDB runs. Each case ends in exit 0 (the name
read as a name) or exit 2 with one line naming the file, never exit 1, never SQL of the user's run."""

import csv
import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import yaml
from conftest import DATA, ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import EXPLORE, examples
from typer.testing import CliRunner

from planner.cli.app import app
from planner.core.errors import PATH_MAX
from planner.core.fmt import visible

runner = CliRunner()
LOGS = DATA / "logs"
SECRET = "TOPSECRET-4c1d"


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


def one_line(result, *words):
    """Exit 2, no traceback, one line on stderr holding every word."""
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


def workloads(path):
    return {w["id"]: w for w in yaml.safe_load(path.read_text())["workloads"]}


@pytest.fixture
def secret(tmp_path):
    path = tmp_path / "secret.txt"
    path.write_text(SECRET + "\n")
    return path


def hostile_names(secret_path):
    """Column names with a quote, double quotes, a semicolon, a backslash, a newline, a tab, a parameter
    placeholder, non-ASCII letters, and one that is a SQL expression reading a file if pasted into a string."""
    return [
        f"x' || (SELECT content FROM read_text('{secret_path}')) || '",
        'it\'s "a";\\b\nc',
        '"; DROP TABLE calls; -- $p0 ?',
        "ünï ✓\t$1",
    ]


NAME_IDS = ["injection", "quotes-semicolon-backslash-newline", "double-quote-comment-placeholders", "unicode-tab"]


# ----------------------------------------------------------------------------- --map and column names


def test_a_mapped_column_that_is_sql_is_read_as_a_name_and_never_run(tmp_path, secret):
    """The issue's case: the column's name is an expression that reads a file. With a bad value in it the
    message names the column as it is, and the file's content is never read."""
    col = f"x' || (SELECT content FROM read_text('{secret}')) || '"
    logs = tmp_path / "inj.csv"
    with open(logs, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["TIMESTAMP", "ContextTokens", col])
        w.writerow(["2026-05-04 09:00:00", "10", "20"])
        w.writerow(["2026-05-04 09:01:00", "10", "30"])
    out = tmp_path / "w.yaml"
    result = run("workloads", "from-logs", logs, "--format", "csv", "--map", f"{col}=output", "--out", out)
    assert result.exit_code == 0, result.output
    assert workloads(out)["inj"]["tokens"]["output"] == 25  # the column read
    assert SECRET not in out.read_text()
    with open(logs, "a", newline="") as fh:
        csv.writer(fh).writerow(["2026-05-04 09:02:00", "10", ""])
    out.unlink()
    line = one_line(
        run("workloads", "from-logs", logs, "--format", "csv", "--map", f"{col}=output", "--out", tmp_path / "x.yaml"),
        f"{logs}:4: x' || (SELECT content FROM read_text(",  # the name as it is (cut at 100 characters)
        ": missing; expected a whole number of tokens",
    )
    assert SECRET not in line


def test_a_column_named_with_a_quote_is_read(tmp_path):
    logs = tmp_path / "q.csv"
    logs.write_text("TIMESTAMP,ContextTokens,it's\n2026-05-04 09:00:00,10,20\n2026-05-04 09:01:00,10,x\n")
    one_line(
        run("workloads", "from-logs", logs, "--format", "csv", "--map", "it's=output", "--out", tmp_path / "w.yaml"),
        f"{logs}:3: it's: ",
        '"x" is not a whole number',
    )


def _plain_rows():
    with open(LOGS / "calls.csv", newline="") as fh:
        return list(csv.DictReader(fh))


FIELDS = {"ts": "time", "prompt": "input", "completion": "output", "thinking": "reasoning"}
FIELDS["cache_hits"] = "cached_input"


def _plain_csv(path, name, rows):
    """calls.csv with every column renamed after `name`: {name}:ts, {name}:prompt ..."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        cols = list(rows[0])
        w.writerow([f"{name}:{c}" for c in cols])
        for r in rows:
            w.writerow([r[c] for c in cols])


def _parquet(path, rows):
    """The rows (dicts of text) as a Parquet file, through JSON lines (DuckDB's CSV sniffer cannot take a
    header cell with a line break in it)."""
    import duckdb

    lines = path.with_suffix(".parquet-source.jsonl")
    lines.write_text("".join(json.dumps(r) + "\n" for r in rows))
    con = duckdb.connect()
    con.read_json(str(lines), format="newline_delimited").write_parquet(str(path))
    con.close()
    lines.unlink()


def _cannot_sniff(result, path, name):
    """DuckDB's CSV sniffer cannot tell the dialect of a file whose header has a line break in a quoted
    cell: that is one line naming the file, exit 2 (the CSV rule; not a SQL error)."""
    if "\n" in name and path.suffix == ".csv":
        one_line(result, str(path), "cannot be read as CSV")
        return True
    return False


def _plain_args(name):
    maps = [a for col, fld in FIELDS.items() for a in ("--map", f"{name}:{col}={fld}")]
    return [*maps, "--group-by", f"{name}:agent", "--task-by", f"{name}:job"]


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("index", range(4), ids=NAME_IDS)
def test_csv_format_with_hostile_column_names(tmp_path, secret, index, kind):
    """--map, --group-by and --task-by naming columns whose names hold SQL's special characters: the
    columns are read (the same figures as calls.csv's), a bad value is one line naming the column, and a
    column that is not there is one line saying so."""
    name = hostile_names(secret)[index]
    rows = _plain_rows()
    logs = tmp_path / "calls.csv"
    _plain_csv(logs, name, rows)
    if kind == "parquet":
        logs = tmp_path / "calls.parquet"
        _parquet(logs, [{f"{name}:{c}": v for c, v in r.items()} for r in rows])
    out = tmp_path / "w.yaml"
    result = run("workloads", "from-logs", logs, "--format", "csv", *_plain_args(name), "--out", out)
    if _cannot_sniff(result, logs, name):
        return
    assert result.exit_code == 0, result.output
    got = workloads(out)
    assert sorted(got) == ["planner", "writer"] and got["planner"]["turns"] == 2
    assert got["planner"]["tokens"]["reasoning"] == pytest.approx(250 / 6, rel=1e-5)
    assert SECRET not in out.read_text()
    missing = run(
        "workloads", "from-logs", logs, "--format", "csv", *_plain_args(name), "--group-by", f"{name}:nope",
        "--out", tmp_path / "m.yaml",
    )  # fmt: skip
    one_line(missing, "no column", visible(f"{name}:nope"))
    if kind == "csv":  # a value that is no number: one line naming the file, its line and the column
        rows[2]["completion"] = "lots"
        _plain_csv(logs, name, rows)
        bad = run("workloads", "from-logs", logs, "--format", "csv", *_plain_args(name), "--out", tmp_path / "b.yaml")
        line = one_line(bad, f"{logs}:4: {visible(f'{name}:completion', PATH_MAX)}: ", '"lots" is not a whole number')
        assert SECRET not in line
    assert not (tmp_path / "m.yaml").exists() and not (tmp_path / "b.yaml").exists()


def _litellm_logs(tmp_path, name, kind):
    """The LiteLLM fixture with two more columns: `name` (a workload: support or other) and name + ' task'."""
    with open(LOGS / "litellm_spend_logs.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for k, r in enumerate(rows):
        r[name] = "support" if r["model_group"] == "support-chat" else "other"
        r[name + " task"] = f"t{k // 2}"
    path = tmp_path / f"spend.{kind}"
    if kind == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif kind == "parquet":
        _parquet(path, rows)
    else:
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.DictWriter(fh, list(rows[0]))
            w.writeheader()
            w.writerows(rows)
    return path


@pytest.mark.parametrize("kind", ["csv", "jsonl", "parquet"])
@pytest.mark.parametrize("index", range(4), ids=NAME_IDS)
def test_litellm_format_with_hostile_group_and_task_columns(tmp_path, secret, index, kind):
    name = hostile_names(secret)[index]
    logs = _litellm_logs(tmp_path, name, kind)
    out = tmp_path / "w.yaml"
    args = ("--format", "litellm", "--group-by", name, "--task-by", name + " task")
    result = run("workloads", "from-logs", logs, *args, "--out", out)
    if _cannot_sniff(result, logs, name):
        return
    assert result.exit_code == 0, result.output
    assert sorted(workloads(out)) == ["other", "support"]
    assert SECRET not in out.read_text()
    missing = run("workloads", "from-logs", logs, *args, "--task-by", name + " nope", "--out", tmp_path / "m.yaml")
    one_line(missing, "no column", visible(name + " nope"))
    assert not (tmp_path / "m.yaml").exists()


@pytest.mark.parametrize("index", range(4), ids=NAME_IDS)
def test_otel_format_with_hostile_attribute_names(tmp_path, secret, index):
    """An attribute named after the hostile name on every span: --group-by and --task-by read it; an
    attribute that no span has leaves every call to the default workload (and each trace a task)."""
    name = hostile_names(secret)[index]
    lines = []
    for line in (LOGS / "otel_genai_spans.jsonl").read_text().splitlines():
        data = json.loads(line)
        for rs in data["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for sp in ss["spans"]:
                    sp["attributes"].append({"key": name, "value": {"stringValue": "team-" + sp["traceId"][-1]}})
        lines.append(json.dumps(data))
    logs = tmp_path / "spans.jsonl"
    logs.write_text("\n".join(lines) + "\n")
    out = tmp_path / "w.yaml"
    args = ("--format", "otel", "--group-by", name, "--task-by", name)
    result = run("workloads", "from-logs", logs, *args, "--out", out)
    assert result.exit_code == 0, result.output
    assert all(wid.startswith("team-") for wid in workloads(out))
    assert SECRET not in out.read_text()
    other = tmp_path / "o.yaml"
    result = run("workloads", "from-logs", logs, "--format", "otel", "--group-by", name + "?", "--out", other)
    assert result.exit_code == 0, result.output
    assert list(workloads(other)) == ["spans"]


def test_a_name_with_a_nul_character_is_one_line(tmp_path):
    one_line(
        run("workloads", "from-logs", LOGS / "calls.csv", "--format", "csv", "--map", "a\x00b=time", "--out",
            tmp_path / "w.yaml"),
        "--map", "NUL",
    )  # fmt: skip
    one_line(
        run("workloads", "from-logs", LOGS / "litellm_spend_logs.csv", "--format", "litellm", "--group-by", "a\x00",
            "--out", tmp_path / "w.yaml"),
        "--group-by", "NUL",
    )  # fmt: skip


NAME_TEXT = st.text(
    alphabet=st.one_of(st.sampled_from("'\"\\;$?-*/()|\n\t ,=."), st.characters(codec="utf-8")), min_size=1, max_size=12
)


@settings(
    max_examples=examples(120),
    derandomize=not EXPLORE,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(names=st.lists(NAME_TEXT, min_size=4, max_size=4), bad=st.booleans())
def test_from_logs_column_names_fuzzed(tmp_path, names, bad):
    """Any four column names (time, input, output and the group): exit 0 or 2, never 1; no traceback; exit
    2 is one line. 30 examples in make test, 120 in make test-deep; PLANNER_EXPLORE=N for N fresh ones."""
    logs = tmp_path / "fuzz.csv"
    with open(logs, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(names)
        w.writerow(["2026-05-04 09:00:00", "10", "20", "a"])
        w.writerow(["2026-05-04 09:01:00", "11", "" if bad else "21", "b"])
    out = Path(tempfile.mkdtemp(dir=tmp_path)) / "w.yaml"  # tmp_path is shared by the examples
    args = ["--map", f"{names[0]}=time", "--map", f"{names[1]}=input", "--map", f"{names[2]}=output"]
    result = run("workloads", "from-logs", logs, "--format", "csv", *args, "--group-by", names[3], "--out", out)
    assert result.exit_code in (0, 2), (result.exit_code, result.output)
    assert "Traceback" not in result.output and "internal error" not in result.output
    if result.exit_code == 2:
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert not out.exists()


# ----------------------------------------------------------------------------- paths


def test_a_path_starting_with_a_tilde_reads_the_file_it_names(tmp_path, monkeypatch):
    """`~/x.csv` given to the planner is ./~/x.csv (no shell expanded it): that file is hashed for the
    provenance, and that file is read, not $HOME/x.csv."""
    work, home = tmp_path / "work", tmp_path / "home"
    (work / "~").mkdir(parents=True)
    home.mkdir()
    header = "TIMESTAMP,ContextTokens,GeneratedTokens\n"
    (work / "~" / "x.csv").write_text(header + "2026-05-04 09:00:00,10,20\n2026-05-04 09:01:00,10,20\n")
    (home / "x.csv").write_text(header + "2026-05-04 09:00:00,999,999\n2026-05-04 09:01:00,999,999\n")
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(home))
    result = run("workloads", "from-logs", "~/x.csv", "--format", "csv", "--out", "w.yaml")
    assert result.exit_code == 0, result.output
    w = workloads(work / "w.yaml")["x"]
    assert w["tokens"]["input"] == 10 and w["tokens"]["output"] == 20
    text = (work / "w.yaml").read_text()
    assert hashlib.sha256((work / "~" / "x.csv").read_bytes()).hexdigest() in text
    assert "~/x.csv: 2 rows" in text
    # two names of one file would count its calls twice
    one_line(
        run("workloads", "from-logs", "~/x.csv", "~/../~/x.csv", "--format", "csv", "--out", "w2.yaml"),
        "~/../~/x.csv: the same file as ~/x.csv",
    )


# ----------------------------------------------------------------------------- times out of range


@pytest.mark.parametrize(
    "when, words",
    [("10000-01-01 00:00:00", "after 9999-12-31"), ("1969-12-31 23:59:00", "before 1970-01-01")],
    ids=["year-10000", "before-1970"],
)
def test_a_time_out_of_range_names_the_log_file_and_line(tmp_path, when, words):
    logs = tmp_path / "t.csv"
    logs.write_text(f"TIMESTAMP,ContextTokens,GeneratedTokens\n2026-05-04 09:00:00,10,20\n{when},10,20\n")
    line = one_line(
        run("workloads", "from-logs", logs, "--format", "csv", "--out", tmp_path / "w.yaml"),
        f"{logs}:3: TIMESTAMP: ",
        words,
    )
    assert "aggregate.sql" not in line
    spend = tmp_path / "spend.jsonl"
    rows = [json.loads(x) for x in (LOGS / "litellm_spend_logs.jsonl").read_text().splitlines()]
    rows[6]["startTime"] = when.replace(" ", "T") + "Z"
    spend.write_text("".join(json.dumps(r) + "\n" for r in rows))
    one_line(
        run("workloads", "from-logs", spend, "--format", "litellm", "--out", tmp_path / "w.yaml"),
        f"{spend}:7: startTime: ",
        words,
    )
    spans = tmp_path / "spans.jsonl"  # nanoseconds since 1970: the same instant as a number
    nanos = "-60000000000" if when.startswith("1969") else "253402300800000000000"
    spans.write_text((LOGS / "otel_genai_spans.jsonl").read_text().replace('"1777885205100000000"', f'"{nanos}"', 1))
    one_line(
        run("workloads", "from-logs", spans, "--format", "otel", "--out", tmp_path / "w.yaml"),
        f"{spans}: startTimeUnixNano: span c000000000000000 of trace ",
        words,
    )
    assert not (tmp_path / "w.yaml").exists()


# ----------------------------------------------------------------------------- memory


def _generated_csv(path, rows, with_ties=False):
    """A plain CSV of `rows` calls without task ids (TIMESTAMP, ContextTokens, GeneratedTokens), written by DuckDB."""
    import duckdb

    step = "i // 7 * 60000000" if with_ties else "i * 8640"  # ties: seven calls a minute alike
    tokens = "(i % 3) + 1, (i % 2) + 1" if with_ties else "(hash(i) % 5000) + 1, (hash(i * 3) % 700) + 1"
    a, b = tokens.split(", ")
    con = duckdb.connect()
    con.execute(
        f"""COPY (SELECT strftime(TIMESTAMP '2026-05-04' + to_microseconds({step}), '%Y-%m-%d %H:%M:%S.%f')
                  AS "TIMESTAMP", {a} AS "ContextTokens", {b} AS "GeneratedTokens" FROM range({rows}) r(i))
            TO $path (HEADER)""",
        {"path": str(path)},
    )
    con.close()


def test_out_of_memory_is_one_line_naming_the_setting(tmp_path, monkeypatch):
    logs = tmp_path / "big.csv"
    _generated_csv(logs, 300_000)
    monkeypatch.setenv("PLANNER_LOGS_MEMORY_MB", "4")
    line = one_line(
        run("workloads", "from-logs", logs, "--format", "csv", "--out", tmp_path / "w.yaml"),
        "out of memory",
        "PLANNER_LOGS_MEMORY_MB",
    )
    assert "cannot be read as CSV" not in line
    assert not (tmp_path / "w.yaml").exists()


def test_out_of_memory_after_reading_is_the_same_line(monkeypatch):
    """In the aggregation, a replay or a calibration (Logs.sql, Logs.insert) too: an input error naming the
    setting (it was a PlannerError there, exit 1)."""
    import duckdb

    from planner.core.errors import InputError
    from planner.traffic.logs import LogFile, LogOptions, Logs

    class Full:
        def execute(self, *args):
            raise duckdb.OutOfMemoryException("Out of Memory Error: could not allocate block")

        executemany = execute

    monkeypatch.setenv("PLANNER_LOGS_MEMORY_MB", "100")
    logs = Logs(Full(), "", [LogFile("a.csv", "", 0)], "csv", LogOptions("csv"), {}, {}, 0, "", "", "a")
    for call in (lambda: logs.sql("SELECT 1"), lambda: logs.insert("INSERT INTO t VALUES (?)", [(1,)])):
        with pytest.raises(InputError) as raised:
            call()
        assert str(raised.value).startswith("a.csv: DuckDB ran out of memory within PLANNER_LOGS_MEMORY_MB=100 MB")


@pytest.mark.parametrize("value", ["lots", "0", "-5", "nan", "inf", "1e30", ""])
def test_a_bad_memory_setting_is_one_line(tmp_path, monkeypatch, value):
    monkeypatch.setenv("PLANNER_LOGS_MEMORY_MB", value)
    args = ("--map", "ts=time", "--map", "prompt=input", "--map", "completion=output")
    result = run("workloads", "from-logs", LOGS / "calls.csv", "--format", "csv", *args, "--out", tmp_path / "w.yaml")
    if value == "":  # as if unset: the default
        assert result.exit_code == 0, result.output
        return
    one_line(result, "PLANNER_LOGS_MEMORY_MB", "megabytes")


def test_the_default_memory_is_sized_from_the_machine(monkeypatch):
    from planner.traffic.logs import base  # where memory_mb reads _machine_mb

    monkeypatch.delenv("PLANNER_LOGS_MEMORY_MB", raising=False)
    monkeypatch.setattr(base, "_machine_mb", lambda: 24_000)
    assert base.memory_mb() == 512
    monkeypatch.setattr(base, "_machine_mb", lambda: 1024)
    assert base.memory_mb() == 256  # a quarter of a small machine
    monkeypatch.setattr(base, "_machine_mb", lambda: None)
    assert base.memory_mb() == 512


def test_calls_without_task_ids_are_numbered_in_order_within_little_memory(tmp_path, monkeypatch):
    """`call-N`, N the call's rank in (start, input, output, reasoning, cached, group, model) order, made
    by a sort that spills rather than a window over the whole table: the same numbers as the window gives,
    ties (equal calls) taking the same set of numbers."""
    from planner.traffic.logs import LogOptions, open_logs

    logs = tmp_path / "ties.csv"
    _generated_csv(logs, 200_000, with_ties=True)
    monkeypatch.setenv("PLANNER_LOGS_MEMORY_MB", "48")
    with open_logs([logs], LogOptions("csv")) as opened:
        opened.sql("SET memory_limit = '512MB'")  # for the check's window, which needs it
        differ, groups, tied, tasks = opened.sql(
            """WITH mine AS (
                   SELECT start_us, input_tokens, output_tokens, list_sort(list(task_id)) AS ids
                   FROM calls_table GROUP BY ALL
               ),
               window_ AS (
                   SELECT start_us, input_tokens, output_tokens, list_sort(list(t)) AS ids FROM (
                       SELECT *, md5_number('call-' || CAST(row_number() OVER (
                           ORDER BY start_us, input_tokens, output_tokens) AS VARCHAR)) AS t
                       FROM calls_table
                   ) GROUP BY ALL
               )
               SELECT (SELECT count(*) FROM (FROM mine EXCEPT FROM window_))
                          + (SELECT count(*) FROM (FROM window_ EXCEPT FROM mine)),
                      (SELECT count(*) FROM mine), (SELECT count(*) FROM mine WHERE len(ids) > 1),
                      (SELECT count(DISTINCT task_id) FROM calls_table)"""
        )[0]
    assert differ == 0 and tasks == 200_000
    assert 0 < tied < groups  # ties among them


# ----------------------------------------------------------------------------- signals


def test_sigterm_while_duckdb_reads_is_exit_143(tmp_path):
    """SIGTERM while DuckDB reads a large file: exit 143 and "stopped" like every other command, nothing
    written and DuckDB's temporary folder removed."""
    logs = tmp_path / "big.csv"
    _generated_csv(logs, 4_000_000)
    temp = tmp_path / "tmp"
    temp.mkdir()
    out = tmp_path / "out" / "w.yaml"
    env = {**os.environ, "TMPDIR": str(temp), "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "planner", "workloads", "from-logs", str(logs), "--format", "csv", "--out", str(out)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.monotonic() + 30
    while not list(temp.glob("planner-logs-*/logs.duckdb")):  # DuckDB has opened its database
        assert proc.poll() is None and time.monotonic() < deadline, "the run ended before it could be stopped"
        time.sleep(0.02)
    time.sleep(1.0)
    assert proc.poll() is None, "the run ended before it could be stopped"
    proc.send_signal(signal.SIGTERM)
    stderr = proc.communicate(timeout=60)[1]
    assert proc.returncode == 143, stderr
    assert stderr.strip().splitlines() == ["stopped"], stderr
    assert not out.exists() and not out.parent.exists()
    assert list(temp.iterdir()) == []
