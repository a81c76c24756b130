"""Hostile and broken files (issue 14, the file-reading classes): every case ends in exit 2 with one
line naming the file, in well under two seconds, with nothing written."""

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import DATA, ROOT
from typer.testing import CliRunner

from planner.cli.app import app

runner = CliRunner()

BOMB = "".join(
    f"{name}: &{name} [{', '.join(['*' + prev] * 9 if prev else ['lol'] * 9)}]\n"
    for prev, name in zip(["", "a", "b", "c", "d", "e", "f", "g"], ["a", "b", "c", "d", "e", "f", "g", "h"])
)  # 9^8 values once expanded, in under 1 KB


def run(*args):
    started = time.perf_counter()
    result = runner.invoke(app, [str(a) for a in args])
    return result, time.perf_counter() - started


def refused(result, seconds, file, words):
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith(str(file)) and words in lines[0], lines
    assert "Traceback" not in result.output
    assert seconds < 2.0, seconds


@pytest.fixture
def tiny(tmp_path):
    shutil.copy(DATA / "tiny-catalog.yaml", tmp_path / "tiny-catalog.yaml")
    shutil.copy(DATA / "tiny-workloads.yaml", tmp_path / "tiny-workloads.yaml")
    return tmp_path


def with_lines(path, text):
    path.write_text(text + path.read_text())
    return path


@pytest.mark.parametrize("target", ["tiny-workloads.yaml", "tiny-catalog.yaml"])
def test_an_alias_bomb_is_refused_while_parsing(tiny, target):
    with_lines(tiny / target, BOMB)
    result, seconds = run("solve", tiny / "tiny-workloads.yaml", "--out", tiny / "out")
    refused(result, seconds, tiny / target, "alias")
    assert not (tiny / "out").exists()


def test_a_recursive_alias_is_refused(tiny):
    with_lines(tiny / "tiny-workloads.yaml", "description: &r [x, *r]\n")
    result, seconds = run("solve", tiny / "tiny-workloads.yaml", "--out", tiny / "out")
    refused(result, seconds, tiny / "tiny-workloads.yaml", "recursive YAML alias")


def test_an_alias_bomb_in_a_scenario_and_in_a_set_value_is_refused(tiny):
    scenario = tiny / "bomb.yaml"
    scenario.write_text(BOMB + "name: bomb\n")
    result, seconds = run("whatif", tiny / "tiny-workloads.yaml", scenario, "--out", tiny / "out")
    refused(result, seconds, scenario, "alias")
    result, seconds = run(
        "whatif", tiny / "tiny-workloads.yaml", "--set", "policy.budget=&r [1, *r]", "--out", tiny / "o"
    )
    refused(result, seconds, "--set", "recursive YAML alias")


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_a_catalog_that_is_not_a_regular_file_is_refused_without_reading_it(tiny, kind):
    target = {"fifo": tiny / "fifo.yaml", "device": "/dev/zero", "directory": tiny}[kind]
    if kind == "fifo":
        os.mkfifo(target)
    result, seconds = run("solve", tiny / "tiny-workloads.yaml", "--catalog", target, "--out", tiny / "out")
    refused(result, seconds, target, "is a directory" if kind == "directory" else "not a regular file")


def test_a_file_over_the_size_limit_is_refused_and_the_limit_can_be_raised(tiny, monkeypatch):
    monkeypatch.setenv("PLANNER_MAX_FILE_MB", "0.0005")  # about 500 bytes: the tiny catalog is larger
    result, seconds = run("catalog", "validate", tiny / "tiny-catalog.yaml")
    refused(result, seconds, tiny / "tiny-catalog.yaml", "MB limit")
    monkeypatch.setenv("PLANNER_MAX_FILE_MB", "1")
    assert run("catalog", "validate", tiny / "tiny-catalog.yaml")[0].exit_code == 0
    monkeypatch.setenv("PLANNER_MAX_FILE_MB", "lots")
    result, seconds = run("catalog", "validate", tiny / "tiny-catalog.yaml")
    refused(result, seconds, "PLANNER_MAX_FILE_MB", "expected a number")


def test_plan_and_source_files_go_through_the_same_checks(tiny):
    fifo = tiny / "plan.json"
    os.mkfifo(fifo)
    result, seconds = run("compare", fifo, fifo, "--out", tiny / "out")
    refused(result, seconds, fifo, "not a regular file")
    result, seconds = run("catalog", "import", "litellm", "/dev/zero", "--out", tiny / "c.yaml")
    refused(result, seconds, "/dev/zero", "not a regular file")
    deep = tiny / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    result, seconds = run("catalog", "import", "litellm", deep, "--out", tiny / "c.yaml")
    refused(result, seconds, deep, "nested too deeply")


def test_a_huge_key_gives_a_short_message(tiny):
    catalog = tiny / "tiny-catalog.yaml"
    catalog.write_text(catalog.read_text() + "? " + "k" * 5_000_000 + "\n: 1\n")  # (an explicit key: any length)
    result, seconds = run("catalog", "validate", catalog)
    refused(result, seconds, catalog, "unknown key")
    assert len(result.stderr) < 600


def test_a_file_of_many_wrong_lines_gives_one_line_and_quotes_none_of_the_rest(tiny):
    """Like `catalog: /etc/shadow`: every line an unknown key. One line names the first and counts
    the others; the other lines' text is not echoed."""
    secret = tiny / "shadow"
    secret.write_text("".join(f"user{i}: $6$salt$hash{i}\n" for i in range(40)))
    result, seconds = run("solve", tiny / "tiny-workloads.yaml", "--catalog", secret, "--out", tiny / "out")
    refused(result, seconds, secret, "more problems in this file")
    assert "user39" not in result.stderr and "hash" not in result.stderr


def test_control_characters_from_a_file_reach_the_terminal_escaped(tiny):
    catalog = tiny / "tiny-catalog.yaml"
    catalog.write_text(catalog.read_text() + '"\\e[31mred\\e[0m": 1\n')
    result, seconds = run("catalog", "validate", catalog)
    refused(result, seconds, catalog, "unknown key")
    assert "\x1b" not in result.stderr and "\\x1b[31mred" in result.stderr


MARKUP = "[/x][link=https://example.invalid]evil[/link]\x1b[31m"


def test_names_with_markup_and_escapes_are_printed_as_text(tiny):
    """A vendor, host, tier or model name with rich markup or an escape sequence: every command
    that prints it exits as usual and shows it as text, the escape written out."""
    catalog = tiny / "tiny-catalog.yaml"
    data = yaml.safe_load(catalog.read_text())
    data["offerings"][0].update(vendor="v" + MARKUP, model="m" + MARKUP, tier="t" + MARKUP, host="h" + MARKUP)
    catalog.write_text(yaml.safe_dump(data, sort_keys=False))
    workloads = tiny / "tiny-workloads.yaml"
    first = yaml.safe_load(workloads.read_text())["workloads"][0]["id"]
    for args in (
        ("solve", workloads, "--out", tiny / "out"),
        ("explain", workloads, "--workload", first),
        ("catalog", "show", catalog),
        ("catalog", "diff", DATA / "tiny-catalog.yaml", catalog),
    ):
        result, _ = run(*args)
        assert result.exit_code in (0, 3), (args, result.output)
        assert "\x1b" not in result.stdout and "Traceback" not in result.output, args
    assert "[/x]" in run("catalog", "show", catalog)[0].stdout


def test_without_vendor_takes_a_name_not_a_pattern(tiny):
    result, seconds = run("whatif", tiny / "tiny-workloads.yaml", "--without-vendor", "*", "--out", tiny / "out")
    refused(result, seconds, "--without-vendor", "no vendor or host '*'")


def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised_and_numbers_stay_numbers(tiny):
    """OWASP's rule: text starting with = + - @, a tab or a carriage return gets a leading apostrophe."""
    catalog = tiny / "tiny-catalog.yaml"
    data = yaml.safe_load(catalog.read_text())
    data["offerings"][0]["model"] = '=HYPERLINK("http://example.invalid","x")'
    data["offerings"][1]["vendor"] = "+cmd|' /C calc'!A0"
    catalog.write_text(yaml.safe_dump(data, sort_keys=False))
    shown = run("catalog", "show", catalog, "--format", "csv")[0].stdout
    assert "'=HYPERLINK(" in shown and "'+cmd|" in shown
    assert ",=HYPERLINK" not in shown and ",+cmd" not in shown
    rows = list(csv.DictReader(shown.splitlines()))
    assert all(float(r["output_per_mtok"]) >= 0 for r in rows)  # numbers are written as numbers
    frontier = run("frontier", tiny / "tiny-workloads.yaml", "--out", tiny / "f", "--points", "5")[0]
    assert frontier.exit_code == 0, frontier.output
    text = next((tiny / "f").glob("*.frontier.csv")).read_text()
    for row in csv.reader(text.splitlines()[1:]):
        assert not row[3].startswith(("-", "+")), row  # labels such as "-20 points" are neutralised
        assert row[2] == "" or float(row[2]) == float(row[2])  # a number, even a negative one ("": no budget)


@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_stops_a_whatif_batch_cleanly(tmp_path, sig, code):
    """SIGTERM or SIGINT to `planner whatif` while its workers run: exit 128 + the signal, no hidden
    staged file in --out (which held a file before and keeps it), no process left behind."""
    scenarios = tmp_path / "sc"
    scenarios.mkdir()
    for i in range(300):
        (scenarios / f"s{i:03d}.yaml").write_text(
            f"name: s{i:03d}\ncatalog:\n  - match: {{vendor: vendor{i % 3}}}\n"
            f"    set: {{price.output: '*{0.5 + i / 1000:.3f}'}}\n"
        )
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    argv = [
        sys.executable,
        "-m",
        "planner",
        "whatif",
        str(ROOT / "tests/golden/inputs/bench-200x50.yaml"),
        *sorted(str(p) for p in scenarios.iterdir()),
        "--out",
        str(out),
        "--jobs",
        "2",
    ]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not any(p.name.startswith(".") for p in out.iterdir()):  # a worker has staged a plan file
        assert proc.poll() is None and time.monotonic() < deadline, "the batch ended before it could be stopped"
        time.sleep(0.01)
    proc.send_signal(sig)
    stderr = proc.communicate(timeout=30)[1]
    assert proc.returncode == code, stderr
    assert "Traceback" not in stderr
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    time.sleep(0.2)
    assert _processes_naming(str(out)) == []


def _processes_naming(text: str) -> list[str]:
    """The pids of running processes whose command line holds `text` (forked workers keep the parent's)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if text in cmdline.read_bytes().decode(errors="replace"):
                found.append(cmdline.parent.name)
        except OSError:  # it ended meanwhile
            pass
    return found


def test_names_that_cannot_name_a_file_are_input_errors(tiny):
    hidden = tiny / ".hidden.yaml"  # the default name is the file's name before its first dot: ""
    shutil.copy(tiny / "tiny-workloads.yaml", hidden)
    data = yaml.safe_load(hidden.read_text())
    data.pop("name", None)
    hidden.write_text(yaml.safe_dump(data, sort_keys=False))
    result, seconds = run("solve", hidden, "--out", tiny / "out")
    refused(result, seconds, hidden, "cannot name an output file")
    assert not (tiny / "out").exists()
    plan = json.loads(run("solve", tiny / "tiny-workloads.yaml", "--out", tiny / "o", "--format", "json")[0].stdout)
    # a plan's name follows the rule of a workloads file's (issue 25); '..' passes it, not the file name rule
    for bad, words in (
        ("", ": name: String should have at least 1 character"),
        ("a\x00b", ": name: should contain only letters, digits and . _ - @ / :"),
        ("..", "cannot name an output file"),
        ("\x1b[31m", ": name: should contain only letters, digits and . _ - @ / :"),
    ):
        path = tiny / "bad.plan.json"
        path.write_text(json.dumps({**plan, "name": bad}))
        result, seconds = run("compare", tiny / "o" / "tiny.plan.json", path, "--out", tiny / "c")
        refused(result, seconds, path, words)
        assert "\x00" not in result.stderr and "\x1b" not in result.stderr
    assert not (tiny / "c").exists()


def test_a_folder_where_the_report_goes_is_found_before_any_work(tiny):
    (tiny / "out" / "tiny.html").mkdir(parents=True)
    result, seconds = run("solve", tiny / "tiny-workloads.yaml", "--out", tiny / "out")
    refused(result, seconds, tiny / "out" / "tiny.html", "a folder stands where this file goes")
    assert sorted(p.name for p in (tiny / "out").iterdir()) == ["tiny.html"]  # no plan file written


def test_an_alias_bomb_stays_small_in_a_process_of_its_own(tiny):
    """The whole command, as a user runs it: exit 2 in under two seconds (start-up included) and well
    under 500 MB at its peak."""
    with_lines(tiny / "tiny-workloads.yaml", BOMB)
    command = [sys.executable, "-m", "planner", "solve", str(tiny / "tiny-workloads.yaml"), "--out", str(tiny / "out")]
    # a parent of its own, so that its children's peak memory is this command's alone
    probe = (
        "import resource, subprocess, sys, time; t = time.perf_counter(); "
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
        "print(p.returncode, time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
        "sys.stderr.write(p.stderr)"
    )
    proc = subprocess.run([sys.executable, "-c", probe, *command], capture_output=True, text=True, timeout=30)
    code, seconds, peak_kb = proc.stdout.split()
    peak_mb = int(peak_kb) / 1024
    assert code == "2" and "alias" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert float(seconds) < 2.0 and peak_mb < 500, (seconds, peak_mb)


def test_a_document_without_aliases_is_held_to_the_same_count_of_values(monkeypatch):
    """Without an alias (read on the event stream) the node graph is not walked; the values are counted as
    they are built, with the alias bomb's message, and a '*' inside a string is no alias."""
    from planner.core.errors import InputError
    from planner.model import load

    monkeypatch.setattr(load, "MAX_NODES", 50)
    assert load.parse_yaml("a: '*not an alias*'\nb: [1, 2]\n", "x.yaml")[0] == {"a": "*not an alias*", "b": [1, 2]}
    with pytest.raises(InputError, match="past 50 values"):
        load.parse_yaml("".join(f"k{i}: {i}\n" for i in range(40)), "x.yaml")
    with pytest.raises(InputError, match="past 50 values"):  # aliased: the graph's count, before building
        load.parse_yaml("a: &a [1, 2, 3, 4, 5, 6, 7, 8]\n" + "".join(f"k{i}: *a\n" for i in range(8)), "x.yaml")


def test_a_parsed_document_keeps_no_node_graph_and_still_places_its_fields():
    """The fields' positions are worked out from the text when an error asks for them: no YAML node outlives
    the parse (kept, a large file's nodes made every full garbage collection and the exit scan them)."""
    import gc

    from planner.model import load

    text = "name: x\nworkloads:\n  - id: a\n    tasks: 5\n  - id: b\n    tasks: -1\n"
    data, positions = load.parse_yaml(text, "never-parsed-before.yaml")
    gc.collect()
    assert data["workloads"][1]["tasks"] == -1
    assert not [o for o in gc.get_objects() if isinstance(o, yaml.Node)]
    assert positions[("workloads", 1, "tasks")] == (6, 5) and positions.get(("workloads", 0)) == (3, 5)
    assert ("nothing", 0) not in positions and load.parse_yaml("", "empty.yaml")[1].get(()) is None


def test_a_field_merged_from_an_anchor_is_placed_at_the_anchor():
    """A value a merge key (<<) brings in is placed where it is written, in the anchor, as PyYAML's build
    flattens it, not at the mapping that merges it."""
    from planner.model import load

    text = "base: &b\n  input: 100\n  output: -5\nuse:\n  tokens:\n    <<: *b\n    input: 7\nlist:\n  <<: [*b]\n"
    data, positions = load.parse_yaml(text, "merged.yaml")
    assert data["use"]["tokens"] == {"input": 7, "output": -5} and data["list"]["output"] == -5
    assert positions[("use", "tokens", "output")] == (3, 3) and positions[("use", "tokens", "input")] == (7, 5)
    assert positions[("list", "output")] == (3, 3)  # (a field is placed at its key, as everywhere)
