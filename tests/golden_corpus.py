"""The golden corpus: what the commands write and print for the shipped files and a generated
200 x 50 portfolio, kept under tests/golden/out and compared by test_golden.py: plan and other JSON
files as parsed JSON, CSV cell by cell, with numbers equal to a relative 1e-7 (the solvers' own
tie tolerance, TIE_COST_TOL) or 1e-9 absolute; HTML reports by their structure (the element tree,
with ids and classes) and their text (white space folded), not their bytes (an SVG coordinate or
a style is not compared); anything else byte for byte.

A change that alters an output on purpose regenerates the corpus in the same commit and says why:

    .venv/bin/python tests/golden_corpus.py          # rewrite tests/golden/out
    .venv/bin/python tests/golden_corpus.py --check  # compare only (what the test does)

The solver's seconds are zeroed (plan files, and the reports that print them); everything else
is kept as written. The commands run from the repository's root with relative paths, as a user
runs them, so the paths recorded in plan files are the same on every machine.
"""

from __future__ import annotations

import argparse
import csv
import html.parser
import io
import json
import math
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden" / "out"
BENCH = "tests/golden/inputs/bench-200x50.yaml"
SCENARIOS = sorted(f"scenarios/{p.name}" for p in (ROOT / "scenarios").glob("*.yaml"))

# (folder, arguments, file for stdout or None); OUT is the folder the command writes to. A folder
# "a=b" is written as b and must come out as folder a did (two workers against one), and is then dropped.
COMMANDS: list[tuple[str, list[str], str | None]] = [
    ("solve", ["solve", "workloads/support.yaml", "--format", "csv"], "support.allocations.csv"),
    ("solve", ["solve", "workloads/coding-agent.yaml", "--format", "csv"], "coding-agent.allocations.csv"),
    ("solve", ["solve", "workloads/real-support.yaml", "--format", "csv"], "real-support.allocations.csv"),
    ("solve", ["solve", BENCH, "--format", "csv"], "bench-200x50.allocations.csv"),
    ("solve-cbc", ["solve", "workloads/support.yaml", "--solver", "cbc", "--format", "csv"], "support.allocations.csv"),
    (
        "whatif-1",
        [
            "whatif",
            "workloads/support.yaml",
            *SCENARIOS,
            "--set",
            "offerings[sol-*].price.output=*0.8",
            "--without-vendor",
            "cerebras",
            "--jobs",
            "1",
        ],
        None,
    ),
    (
        "whatif-1=2",
        [
            "whatif",
            "workloads/support.yaml",
            *SCENARIOS,
            "--set",
            "offerings[sol-*].price.output=*0.8",
            "--without-vendor",
            "cerebras",
            "--jobs",
            "2",
        ],
        None,
    ),
    (
        "whatif-bench-1",
        ["whatif", BENCH, "--set", "offerings[o1*].price.input=*0.5", "--without-vendor", "vendor1", "--jobs", "1"],
        None,
    ),
    (
        "whatif-bench-1=2",
        ["whatif", BENCH, "--set", "offerings[o1*].price.input=*0.5", "--without-vendor", "vendor1", "--jobs", "2"],
        None,
    ),
    ("whatif-relax", ["whatif", "workloads/support.yaml", "--set", "policy.budget=20000", "--full"], None),
    (
        "whatif-relax-cbc",
        ["whatif", "workloads/support.yaml", "--set", "policy.budget=20000", "--solver", "cbc", "--jobs", "1"],
        None,
    ),
    (
        "whatif-coding-cbc",
        [
            "whatif",
            "workloads/coding-agent.yaml",
            "--set",
            "workloads[*].tasks=*2",
            "--solver",
            "cbc",
            "--full",
            "--jobs",
            "1",
        ],
        None,
    ),
    ("frontier", ["frontier", "workloads/support.yaml"], None),
    ("frontier", ["frontier", "workloads/support.yaml", "--workload", "ticket-triage"], None),
    ("frontier", ["frontier", BENCH, "--points", "12"], None),
    ("frontier", ["frontier", BENCH, "--workload", "w7", "--points", "12"], None),
    (
        "compare",
        [
            "compare",
            "OUT/../solve/support.plan.json",
            "OUT/../whatif-1/support.fast-tier-half-price.plan.json",
            "--format",
            "csv",
        ],
        "support.compare.csv",
    ),
    (
        "compare",
        [
            "compare",
            "OUT/../solve/bench-200x50.plan.json",
            "OUT/../whatif-bench-1/bench-200x50.without-vendor1.plan.json",
            "--format",
            "json",
        ],
        "bench-200x50.compare.json",
    ),
    (
        "explain",
        ["explain", "workloads/support.yaml", "--workload", "voice-agent", "--format", "csv"],
        "support.voice-agent.csv",
    ),
    (
        "explain",
        ["explain", "workloads/real-support.yaml", "--workload", "live-chat", "--format", "json"],
        "real-support.live-chat.json",
    ),
    # The shipped catalogs name options no gateway list has (SPEC "Exports that deploy"): unchecked on purpose.
    *(
        (
            "export",
            ["export", f"OUT/../solve/{name}.plan.json", "--to", to, "--allow-unknown"]
            + (["--shares-out", f"OUT/{name}.openrouter.shares.json"] if to == "openrouter" else []),
            f"{name}.{to}.{'yaml' if to == 'litellm' else 'json'}",
        )
        for name in ("support", "real-support")
        for to in ("litellm", "openrouter")
    ),
    ("catalog", ["catalog", "show", "catalogs/2026-q3.yaml", "--format", "csv"], "2026-q3.csv"),
]

_WRITES = {"solve", "whatif", "frontier", "compare"}  # commands that take --out
_SECONDS = [
    (re.compile(r'("seconds": ?)[0-9.e+-]+'), r"\g<1>0"),  # plan files (compact JSON since issue 29)
    (re.compile(r"(constraints, )[0-9.]+( s\.)"), r"\g<1>0.00\g<2>"),  # plan report
    (re.compile(r"(routing changes\. Solved in )[0-9.]+( s\.)"), r"\g<1>0.00\g<2>"),  # frontier report
]


def normalise(text: str) -> str:
    for pattern, repl in _SECONDS:
        text = pattern.sub(repl, text)
    return text


def generate(dest: Path) -> None:
    """Run every command of the corpus, writing into dest (one folder per command group)."""
    from typer.testing import CliRunner

    from planner.cli.app import app

    runner = CliRunner()
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        for folder, args, stdout_name in COMMANDS:
            folder, _, twin = folder.partition("=")
            out = dest / (folder + "." + twin if twin else folder)
            out.mkdir(parents=True, exist_ok=True)
            argv = [a.replace("OUT", str(out)) for a in args]
            if args[0] in _WRITES:
                argv += ["--out", str(out)]
            result = runner.invoke(app, argv, catch_exceptions=False)
            if result.exit_code not in (0, 3):
                raise SystemExit(f"{' '.join(args)} exited {result.exit_code}: {result.output}")
            if stdout_name:
                (out / stdout_name).write_text(result.stdout)
            if twin:
                _same_files(dest / folder, out)
                shutil.rmtree(out)
    finally:
        os.chdir(here)
    for path in dest.rglob("*"):
        if path.is_file():
            path.write_text(normalise(path.read_text()))


def _same_files(a: Path, b: Path) -> None:
    """Two runs that must write the same files (solver seconds aside)."""
    names = sorted(p.name for p in a.iterdir())
    if names != sorted(p.name for p in b.iterdir()):
        raise AssertionError(f"{b.name} wrote other files than {a.name}")
    for name in names:
        if normalise((a / name).read_text()) != normalise((b / name).read_text()):
            raise AssertionError(f"{b.name}/{name} differs from {a.name}/{name}")


REL_TOL, ABS_TOL = 1e-7, 1e-9


def differences(dest: Path) -> list[str]:
    """Files that differ between dest and the corpus (with where), or stand in only one of them."""
    made = {p.relative_to(dest) for p in dest.rglob("*") if p.is_file()}
    kept = {p.relative_to(GOLDEN) for p in GOLDEN.rglob("*") if p.is_file()}
    out = [f"only in the corpus: {p}" for p in sorted(kept - made)]
    out += [f"not in the corpus: {p}" for p in sorted(made - kept)]
    for p in sorted(made & kept):
        where = _difference(p.suffix, (dest / p).read_text(), (GOLDEN / p).read_text())
        if where is not None:
            out.append(f"differs: {p}{': ' + where if where else ''}")
    return out


def _difference(suffix: str, made: str, kept: str) -> str | None:
    """None when the two texts are the same output; else where they first differ ('' when unknown)."""
    if suffix == ".json":
        return _json_difference(json.loads(made), json.loads(kept), "")
    if suffix == ".csv":
        a, b = list(csv.reader(io.StringIO(made))), list(csv.reader(io.StringIO(kept)))
        if len(a) != len(b):
            return f"{len(a)} rows, the corpus has {len(b)}"
        for i, (ra, rb) in enumerate(zip(a, b)):
            found = _json_difference([_cell(c) for c in ra], [_cell(c) for c in rb], f"row {i + 1}")
            if found is not None:
                return found
        return None
    if suffix == ".html":
        a, b = _page(made), _page(kept)
        if a == b:
            return None
        at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        mine, theirs = a[at] if at < len(a) else "end", b[at] if at < len(b) else "end"
        return f"at item {at}: {mine!r} where the corpus has {theirs!r}"
    return None if made == kept else ""


def _cell(text: str):
    try:
        return float(text)
    except ValueError:
        return text


def _json_difference(a, b, path: str) -> str | None:
    """Where two parsed values first differ (numbers to REL_TOL / ABS_TOL), or None."""
    number = lambda x: isinstance(x, (int, float)) and not isinstance(x, bool)
    mismatch = f"{path or 'top'}: {a!r:.80} where the corpus has {b!r:.80}"
    if number(a) and number(b):
        same = math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL) or (math.isnan(a) and math.isnan(b))
        return None if same else mismatch
    if type(a) is not type(b):
        return mismatch
    if isinstance(a, dict):
        if list(a) != list(b):
            extra = sorted(set(a) ^ set(b))[:5]
            return f"{path or 'top'}: keys {extra} differ" if extra else f"{path or 'top'}: the keys' order differs"
        return next((d for k in a if (d := _json_difference(a[k], b[k], f"{path}.{k}")) is not None), None)
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items, the corpus has {len(b)}"
        found = (_json_difference(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b)))
        return next((d for d in found if d is not None), None)
    return None if a == b else mismatch


class _Items(html.parser.HTMLParser):
    """A page as a list: ("<tag", id, class) for each element, ("/tag",) for its end, and its text in
    pieces with white space folded."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.items: list[tuple] = []

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        self.items.append((f"<{tag}", found.get("id"), found.get("class")))

    def handle_endtag(self, tag):
        self.items.append((f"/{tag}",))

    def handle_data(self, data):
        text = " ".join(data.split())
        if text:
            self.items.append(("text", text))


def _page(text: str) -> list[tuple]:
    parser = _Items()
    parser.feed(text)
    parser.close()
    return parser.items


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare with the corpus; write nothing")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        dest = Path(tmp)
        generate(dest)
        if args.check:
            diff = differences(dest)
            print("\n".join(diff) or "the corpus is identical")
            return 1 if diff else 0
        shutil.rmtree(GOLDEN, ignore_errors=True)
        shutil.copytree(dest, GOLDEN)
        print(f"wrote {sum(1 for p in GOLDEN.rglob('*') if p.is_file())} files to {GOLDEN.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
