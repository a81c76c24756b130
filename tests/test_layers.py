"""The import contract: one package per layer, imports only point down, and no modules import each
other in a circle. Every import counts, including those inside functions (the CLI imports commands
lazily). The layers are the folders of planner/, bottom up:

    core      errors, fmt, files, timing, arrays, records, version   imports nothing else of planner
    model     the input files as typed objects              schema/, load, edits, scenarios, distribution, schemas/
    traffic   request logs in DuckDB, their aggregation     logs/, aggregate, sql/
    market    catalogs from public sources                  catalog_import, sources/, names, merge, offerings,
                                                            openrouter_offerings, provenance, fetch, diff, calibrate,
                                                            gateway_ids
    optimize  SPEC 3 and 4, the solvers                     options, pairs, prune, lp/, highs, cbc, resolve, backends,
                                                            solver
    plan      the Plan (SPEC 5) and its assembly            model, assemble, records, wording, commitments
    review    what a review reads off a plan                insight, contracts, compare, risks
    pipeline  files to plans                                solve, warm, whatif, frontier, replay, api
    outputs   what people read                              tables, console, terminal, comparisons, report/, gateway
    serve     the live review (planner serve)               changes, session, saving, view, app, run, page/
    cli       the command line                              app, commands, exits

`planner/__init__.py` (the public API, imported lazily) and `planner/__main__.py` stand above them all.

Below the imports: no module over 700 lines, no function over 80, and flags keyword-only below the CLI.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "planner"
LAYERS = ["core", "model", "traffic", "market", "optimize", "plan", "review", "pipeline", "outputs", "serve", "cli"]
LEVEL = {name: k for k, name in enumerate(LAYERS)}
TOP = {"__init__", "__main__"}  # planner/__init__.py and __main__.py: above every layer


def _module(path: Path) -> str:
    """A file's dotted module below planner ("optimize.lp", "outputs.report.render", "__init__")."""
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = rel.parts[:-1] if rel.parts[-1] == "__init__" and len(rel.parts) > 1 else rel.parts
    return ".".join(parts)


def _layer(module: str) -> str:
    return module.split(".")[0]


def _imports_of(source: str, path: Path) -> set[str]:
    """The planner modules a file's source imports, dotted below planner ("core.fmt")."""
    tree = ast.parse(source, str(path))
    package = list(path.relative_to(PACKAGE).parent.parts)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the file's package
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                module = ".".join(["planner", *base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            inner = [f"{module}.{a.name}" for a in node.names]  # `from planner.optimize import lp`: the module lp
            names = [n for n in inner if n.startswith("planner.") and _exists(n.split(".")[1:])] or [module]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] != "planner" or len(parts) < 2:
                continue
            while len(parts) > 1 and not _exists(parts[1:]):
                parts = parts[:-1]  # from planner.core.fmt import money: the module is core.fmt
            if len(parts) > 1:
                out.add(".".join(parts[1:]))
    return out


def _exists(parts: list[str]) -> bool:
    where = PACKAGE.joinpath(*parts)
    return where.with_suffix(".py").is_file() or (where / "__init__.py").is_file()


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module(path)
        graph.setdefault(module, set()).update(m for m in _imports_of(path.read_text(), path) if m != module)
    return graph


def test_every_module_lives_in_a_layer_package():
    loose = sorted(m for m in _graph() if _layer(m) not in LEVEL and m not in TOP)
    assert not loose, f"modules outside the layer packages (tests/test_layers.py names them): {loose}"
    folders = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file())
    assert folders == sorted(LAYERS), folders


def test_each_package_says_what_it_owns():
    for name in LAYERS:
        doc = ast.get_docstring(ast.parse((PACKAGE / name / "__init__.py").read_text()))
        assert doc and len(doc.splitlines()) <= 3, f"planner/{name}/__init__.py: a docstring of up to three lines"


def test_imports_only_point_down():
    graph = _graph()
    upward = [
        f"{a} imports {b}"
        for a, deps in sorted(graph.items())
        if a not in TOP
        for b in sorted(deps)
        if b not in TOP and LEVEL[_layer(b)] > LEVEL[_layer(a)]
    ]
    assert not upward, "\n".join(upward)


def test_no_import_cycles():
    """Between modules (a package's __init__ that hands names on counts as its own module)."""
    graph = _graph()
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                cycles.append(" -> ".join(path[path.index(dep) :] + [dep]))
            elif dep not in state:
                visit(dep, path + [dep])
        state[node] = 2

    for node in sorted(graph):
        if node not in state and node not in TOP:
            visit(node, [node])
    assert not cycles, "\n".join(cycles)


def test_the_contract_sees_imports():
    """The checker itself: it finds relative, lazy and package imports."""
    graph = _graph()
    assert "cli.commands" in graph["cli.app"]  # imported inside a function
    assert {"optimize.lp", "optimize.backends"} <= graph["optimize.solver"]
    assert {"core.fmt", "plan.model"} <= graph["outputs.report.render"]
    source = "from planner.optimize import lp\nimport planner.optimize.pairs\nfrom planner.plan.model import Plan\n"
    source += "from ..core import fmt\nfrom .prune import candidates\n"
    probe = PACKAGE / "optimize" / "solver.py"
    assert _imports_of(source, probe) == {"optimize.lp", "optimize.pairs", "plan.model", "core.fmt", "optimize.prune"}


def test_the_tests_mirror_the_packages():
    """tests/<package>/ holds the tests of planner/<package>/; the cross-cutting ones (the layers, golden
    corpus, fuzzing, properties, the wheel, the benchmark scripts, the README's figures) stay at the top."""
    tests = PACKAGE.parent / "tests"
    folders = {p.parent.name for p in tests.glob("*/test_*.py")}
    assert folders <= set(LAYERS), sorted(folders - set(LAYERS))
    top = {"test_benchmarks", "test_fuzz", "test_golden", "test_layers", "test_packaging", "test_property"}
    top |= {"test_readme"}
    assert {p.stem for p in tests.glob("test_*.py")} == top


# ----------------------------------------------------------------------------- sizes and signatures

MODULE_LINES = 700
FUNCTION_LINES = 80
OVERRIDES = {("model/load.py", "construct_mapping")}  # PyYAML's method: its signature is PyYAML's


def _functions():
    """(file below planner/, function node) for every function of the package."""
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield rel, node


def test_no_module_or_function_too_long():
    """A module holds one concern (up to 700 lines), a function one step (up to 80)."""
    long_modules = [
        f"{p.relative_to(PACKAGE)}: {n}"
        for p in sorted(PACKAGE.rglob("*.py"))
        if (n := len(p.read_text().splitlines())) > MODULE_LINES
    ]
    long_functions = [
        f"{rel}: {f.name}: {n}" for rel, f in _functions() if (n := f.end_lineno - f.lineno + 1) > FUNCTION_LINES
    ]
    assert not long_modules and not long_functions, "\n".join(long_modules + long_functions)


def test_flags_are_keyword_only_below_the_cli():
    """A parameter annotated bool or defaulting to True or False comes after a `*`, so every call names it
    (issue 26). The CLI's commands take their options from typer."""
    positional = []
    for rel, f in _functions():
        if rel.startswith("cli/") or (rel, f.name) in OVERRIDES:
            continue
        args = f.args.posonlyargs + f.args.args
        defaults = [None] * (len(args) - len(f.args.defaults)) + list(f.args.defaults)
        for arg, default in zip(args, defaults):
            flag = isinstance(default, ast.Constant) and isinstance(default.value, bool)
            if flag or (arg.annotation is not None and ast.unparse(arg.annotation) in ("bool", "bool | None")):
                positional.append(f"{rel}:{f.lineno} {f.name}({arg.arg})")
    assert not positional, "\n".join(positional)
