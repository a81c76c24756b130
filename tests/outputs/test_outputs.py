"""Every output a person reads or pastes, from every command on the shipped files: at 100 columns no
line is wider, and no number is in scientific notation or carries more than six significant digits
(money to the cent excepted). Plan files are the exception: they keep full precision."""

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import ROOT
from typer.testing import CliRunner

from planner.cli.app import app

runner = CliRunner()
WIDE = {"COLUMNS": "100"}
REAL = "workloads/real-support.yaml"
SUPPORT = "workloads/support.yaml"
CATALOG = "catalogs/aa-2026-06.yaml"

# a number standing alone (not part of an id such as gpt-5.4-nano or qwen3.5-0.8b, nor of a date)
NUMBER = re.compile(r"(?<![\w@./\-])((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)(?:[eE][-+]?\d+)?(?![\w@/\-]|\.\d|,\d{3})")
SCIENTIFIC = re.compile(r"(?<![\w@./\-])\d+(?:\.\d+)?[eE][-+]?\d+(?![\w])")


def significant(token: str) -> int:
    digits = token.replace(",", "")
    whole, _, frac = digits.partition(".")
    if frac:
        return len((whole + frac).lstrip("0"))
    return len(whole.strip("0")) or 1


def bad_numbers(text: str) -> list[str]:
    """The numbers in text that break the rule: an exponent, or over six significant digits
    unless written to the cent."""
    found = [m.group(0) for m in SCIENTIFIC.finditer(text)]
    for m in NUMBER.finditer(text):
        token = m.group(1)
        cents = re.fullmatch(r"[\d,]+\.\d\d", token) is not None
        if significant(token) > 6 and not cents:
            found.append(token)
    return found


class _Text(HTMLParser):
    """What a reader sees of a report: its text nodes (SVG labels included), no styles."""

    def __init__(self):
        super().__init__()
        self.parts, self._skip = [], 0

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("style", "script")

    def handle_endtag(self, tag):
        self._skip -= tag in ("style", "script")

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return "\n".join(parser.parts)


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """Every command's printed output (tables, CSV, JSON) and written file, except plan files."""
    out = tmp_path_factory.mktemp("outputs")
    printed: dict[str, str] = {}

    def run(name: str, args: list[str], codes=(0,)):
        result = runner.invoke(app, args, env=WIDE)
        assert result.exit_code in codes, (name, result.output)
        printed[name] = result.stdout

    import os

    here = os.getcwd()
    os.chdir(ROOT)
    try:
        for fmt in ("table", "csv"):
            run(f"solve real {fmt}", ["solve", REAL, "--out", str(out), "--format", fmt])
            run(f"solve support {fmt}", ["solve", SUPPORT, "--out", str(out / "q3"), "--format", fmt])
        run(
            "whatif",
            ["whatif", REAL, "--without-vendor", "cerebras", "--set", "policy.budget=1000", "--out", str(out)],
            (3,),
        )
        run(
            "whatif support",
            ["whatif", SUPPORT, *sorted(str(p) for p in Path("scenarios").glob("*.yaml")), "--out", str(out / "q3")],
        )
        run("frontier", ["frontier", REAL, "--out", str(out)])
        run("frontier workload", ["frontier", REAL, "--workload", "ticket-triage", "--out", str(out)])
        for fmt in ("table", "csv", "json"):
            run(
                f"compare {fmt}",
                [
                    "compare",
                    str(out / "q3" / "support.plan.json"),
                    str(out / "real-support.plan.json"),
                    "--out",
                    str(out),
                    "--format",
                    fmt,
                ],
            )
            run(f"explain {fmt}", ["explain", REAL, "--workload", "ticket-triage", "--format", fmt])
            run(f"catalog show {fmt}", ["catalog", "show", CATALOG, "--format", fmt])
        run("catalog diff", ["catalog", "diff", "catalogs/2026-q3.yaml", CATALOG])
        for target in ("litellm", "openrouter"):
            run(
                f"export {target}",
                ["export", str(out / "real-support.plan.json"), "--to", target, "--out", str(out / target)]
                + ["--allow-unknown"],  # the shipped catalog names options no gateway list has
            )
    finally:
        os.chdir(here)
    files = {p.name: p.read_text() for p in out.rglob("*") if p.is_file() and not p.name.endswith(".plan.json")}
    return printed, files


def test_terminal_output_fits_100_columns(outputs):
    printed, _ = outputs
    for name, text in printed.items():
        if " csv" in name or " json" in name:
            continue
        wide = [line for line in text.splitlines() if len(line.rstrip()) > 100]
        assert wide == [], name


def test_no_number_in_scientific_notation_or_noise(outputs):
    printed, files = outputs
    assert {
        "real-support.html",
        "real-support.whatif.html",
        "real-support.frontier.html",
        "support-vs-real-support.compare.html",
    } <= set(files)
    for name, text in printed.items():
        assert bad_numbers(cells(text) if name.endswith(" csv") else text) == [], name
    for name, text in files.items():
        shown = visible_text(text) if name.endswith(".html") else cells(text) if name.endswith(".csv") else text
        assert bad_numbers(shown) == [], name


def cells(text: str) -> str:
    """A CSV's cells one a line (a comma between cells is not a thousands separator)."""
    import csv
    import io

    return "\n".join(cell for row in csv.reader(io.StringIO(text)) for cell in row)


def test_the_rule_catches_what_it_should():
    assert bad_numbers("cost 3479.9999999999995 and 7.8e-05") == ["7.8e-05", "3479.9999999999995"]
    assert bad_numbers("$33123.46 · 37.3636 · gpt-5.4-nano@openrouter · 2026-06-19 · x0.848 · 1,200,000") == []
    assert bad_numbers("1234567 tokens") == ["1234567"]


def test_compare_json_keeps_its_keys(outputs):
    printed, _ = outputs
    data = json.loads(printed["compare json"])
    assert {"label_before", "label_after", "bridge", "comparable", "vendors", "workloads"} <= set(data)
