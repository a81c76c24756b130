"""catalog show at 100 columns: one line an option when its id fits, ids wrapped only at their own
separators and never cut, one metric's score (--metric), json and csv unchanged."""

import csv
import io
import json
import re

import pytest
from conftest import ROOT
from typer.testing import CliRunner

from planner.cli.app import app
from planner.core.fmt import count, figure, option, seconds, who
from planner.model.load import load_catalog
from planner.optimize.pairs import build_options
from planner.outputs.console import console, wrap_at_separators

runner = CliRunner()
REAL = ROOT / "catalogs" / "aa-2026-06.yaml"
SMALL = ROOT / "catalogs" / "2026-q3.yaml"
WIDTH = 100
KEYS = [
    "option",
    "model",
    "vendor",
    "host",
    "tier",
    "input_per_mtok",
    "output_per_mtok",
    "output_tps",
    "ttft_s",
    "capability",
    "tokens_per_minute",
    "price_tier",  # (a catalog with price tiers or commitments: the real one has tiers)
    "reserved",
    "window_s",
    "speed_known",
]


def show(*args):
    return runner.invoke(app, ["catalog", "show", *map(str, args)], env={"COLUMNS": str(WIDTH)})


@pytest.fixture(scope="module")
def real_out():
    result = show(REAL)
    assert result.exit_code == 0, result.output
    return result.stdout


def options(path):
    cat = load_catalog(path)
    opts = build_options(cat)
    return cat, opts, [cat.offerings[int(i)] for i in opts.offering_index]


class Table:
    """The printed table cut into its columns: the header's two lines give where each column is."""

    def __init__(self, text: str, metric: str):
        lines = text.splitlines()
        rule = next(k for k, line in enumerate(lines) if line.startswith("─"))
        head = lines[rule - 1]
        self.starts = {name: head.index(name) for name in ("id", "company", "tier")}
        figures = ("in/out", "tok/s", "token", metric)  # right-justified: each ends where its header ends
        ends = [head.index(name) + len(name) for name in figures]
        self.spans = {name: (ends[k - 1], ends[k]) for k, name in enumerate(figures) if k}
        self.rows: list[list[str]] = []  # each option's lines
        for line in lines[rule + 1 :]:
            if self.cell(line, "tok/s"):  # a speed: an option's first line (figures never wrap)
                self.rows.append([line])
            else:
                self.rows[-1].append(line)

    def cell(self, line: str, name: str) -> str:
        start, end = self.spans[name]
        return line[start:end].strip()

    def text(self, row: list[str], name: str) -> list[str]:
        """A wrapped column's lines in one row."""
        order = ["id", "company", "tier"]
        start = self.starts[name]
        end = self.starts[order[order.index(name) + 1]] if name != "tier" else None
        parts = [re.split(r"\s{2,}", line[start:end].strip())[0] for line in row]  # the tier: up to the figures
        return [p for p in parts if p]


def unwrap(parts: list[str]) -> str:
    """The text as it was before wrapping, if it broke only after - or / or a space, or before @."""
    text = parts[0]
    for prev, nxt in zip(parts, parts[1:], strict=False):
        text += ("" if prev.endswith(("-", "/")) or nxt.startswith("@") else " ") + nxt
    return text


def test_the_console_follows_columns_and_never_goes_under_100(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert console().width == 100
    monkeypatch.setenv("COLUMNS", "140")
    assert console().width == 140
    monkeypatch.setenv("COLUMNS", "60")
    assert console().width == 100


def test_the_small_catalog_shows_each_option_on_one_line_with_its_company_and_tier():
    cat, opts, offerings = options(SMALL)
    result = show(SMALL)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= WIDTH
    assert "2026-q3 (as of 2026-07-15, USD): 30 options; capability: overall" in lines
    table = Table(result.stdout, "overall")
    assert len(table.rows) == len(opts) == 30 and all(len(row) == 1 for row in table.rows)
    for o, (row, off) in enumerate(zip(table.rows, offerings, strict=True)):
        company = who(off.vendor, off.host_name, off.served_by)
        assert re.match(rf"{re.escape(opts.label(o))}\s{{2,}}{re.escape(company)}\s{{2,}}{off.tier}\s", row[0]), row
        if opts.listed[o]:  # (a price tier's row has its own price, and batch a window)
            price = f"{figure(off.price.input)}/{figure(off.price.output)}"
            assert f" {price} " in row[0] and f" {count(off.speed.output_tps)} " in row[0]
            assert f" {seconds(off.speed.ttft_s)} " in row[0]
        assert table.cell(row[0], "overall") == figure(float(opts.score("overall")[o]))
    sol_fast = next(row[0] for row in table.rows if row[0].startswith("sol-fast "))
    assert "openai · cerebras" in sol_fast and sol_fast.rstrip().endswith("4M")  # its capacity, tokens/min


def test_the_real_catalog_keeps_each_id_whole_within_100_columns(real_out):
    cat, opts, offerings = options(REAL)
    lines = real_out.splitlines()
    assert max(len(line) for line in lines) <= WIDTH
    assert max(len(line) for line in lines) == WIDTH  # the table takes the width it is given
    assert "…" not in real_out and "..." not in real_out
    assert f"aa-2026-06 (as of 2026-06-19, USD): {len(opts)} options; capability: overall" in lines
    assert lines[0] == "capability overall: Artificial Analysis Intelligence Index"  # the scales stay above
    table = Table(real_out, "overall")
    assert len(table.rows) == len(opts) > 1000
    id_width = table.starts["company"] - 2
    company_width = table.starts["tier"] - table.starts["company"] - 2
    tier_width = max(len(part) for row in table.rows for part in table.text(row, "tier"))
    one_line = 0
    for o, row in enumerate(table.rows):
        label = opts.label(o)
        parts = table.text(row, "id")
        assert unwrap(parts) == label, (label, parts)
        for prev, nxt in zip(parts, parts[1:], strict=False):  # broken only at a separator
            assert prev.endswith(("-", "/")) or nxt.startswith(("@", "(")) or f"{prev} {nxt}" in label, parts
        off = offerings[o]
        company = who(off.vendor, off.host_name, off.served_by)
        assert unwrap(table.text(row, "company")) == company and unwrap(table.text(row, "tier")) == off.tier
        fits = len(label) <= id_width and len(company) <= company_width and len(off.tier) <= tier_width
        assert (len(row) == 1) == fits, row  # one line whenever the id (and its company and tier) fit
        one_line += fits
        if o < 30 and "@" in label:
            host = "@" + label.split("@", 1)[1].split(" (")[0]
            assert len(host) > 1 and any(host in part for part in parts), (host, parts)
    # about two ids in five fit on one line at 100 columns (the company column names who serves behind OpenRouter)
    assert id_width >= 26 and one_line >= 0.35 * len(opts), (id_width, one_line)
    assert table.cell(table.rows[0][0], "overall") == figure(float(opts.score("overall")[0])) == "23.83"


def test_figures_have_no_exponent_and_at_most_six_significant_digits(real_out):
    table = real_out.split("─" * 20, 1)[1]
    assert not re.search(r"\d[eE][-+]?\d", table)
    for number in re.findall(r"(?<![\w.])\d[\d,]*(?:\.\d+)?", table):
        assert len(number.replace(",", "").replace(".", "").lstrip("0").rstrip("0")) <= 6, number


def test_ids_wrap_at_their_own_separators():
    label = option("anthropic/claude-sonnet-4.6@openrouter", "adaptive-reasoning-max-effort")
    lines = wrap_at_separators(label, 20).split("\n")
    assert lines == ["anthropic/claude-", "sonnet-4.6", "@openrouter", "(adaptive-reasoning-", "max-effort)"]
    assert wrap_at_separators("gpt-oss-120b@groq", 17) == "gpt-oss-120b@groq"
    assert wrap_at_separators("gpt-oss-120b@deepinfra-turbo", 20) == "gpt-oss-120b\n@deepinfra-turbo"
    assert wrap_at_separators("abcdefghij", 4) == "abcdefghij"  # no separator: left whole (the table folds it)


def test_metric_picks_the_score_shown(real_out):
    cat, opts, _ = options(REAL)
    result = show(REAL, "--metric", "gpqa")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= WIDTH
    assert f"aa-2026-06 (as of 2026-06-19, USD): {len(opts)} options; capability: gpqa" in lines
    assert lines[:12] == real_out.splitlines()[:12]  # the metrics' descriptions stay
    table = Table(result.stdout, "gpqa")
    gpqa = opts.score("gpqa")
    shown = [table.cell(row[0], "gpqa") for row in table.rows]
    assert shown == ["-" if x != x else figure(float(x)) for x in gpqa]
    assert shown[0] == "78.18" and "-" in shown  # gpqa, not overall (23.83); options without a score: -
    assert table.cell(table.rows[0][0], "tok/s") == "476"


def test_the_small_catalog_declares_no_metric_and_shows_overall_by_default():
    result = show(SMALL, "--metric", "coding")
    assert result.exit_code == 0, result.output
    table = Table(result.stdout, "coding")
    assert table.cell(table.rows[0][0], "coding") == "90"  # sol-std: coding 90, overall 89


@pytest.mark.parametrize("path", [REAL, SMALL])
def test_an_unknown_metric_is_bad_input(path):
    result = show(path, "--metric", "nope")
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output
    known = "overall, gpqa, mmlu_pro, livecodebench" if path == REAL else "coding, overall"
    assert lines[0] == f"{path}: --metric: no metric 'nope'; expected one of: {known}"


@pytest.mark.parametrize("metric", [[], ["--metric", "gpqa"]])
def test_json_and_csv_keep_every_field_and_every_metric(metric):
    rows = json.loads(show(REAL, "--format", "json", *metric).stdout)
    assert len(rows) == len(options(REAL)[1]) and all(list(r) == KEYS for r in rows)
    assert rows[0]["capability"] == "gpqa 78.1818, livecodebench 87.8307, mmlu_pro 80.7929, overall 23.831"
    assert rows[0]["option"] == "gpt-oss-120b@groq" and rows[0]["input_per_mtok"] == 0.15
    text = show(REAL, "--format", "csv", *metric).stdout
    table = list(csv.DictReader(io.StringIO(text)))
    assert text.splitlines()[0] == ",".join(KEYS) and len(table) == len(options(REAL)[1])
    assert table[0]["capability"] == rows[0]["capability"]
