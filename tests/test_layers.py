"""The import contract: the package's layers only point down, and no modules import each other in a
circle. Every import counts, including those inside functions (the CLI imports commands lazily).

    base      errors, fmt, files, arrays, timing       no planner imports but each other
    schema    schema, distribution, edits, load, scenarios, catalog_import, catalog_diff, rescale, schemas
              (JSON Schemas), fetch, logs (request logs into DuckDB), traffic (workloads files from
              their aggregates), calibrate (catalog speeds measured from logs)
    pairs     pairs, prune                             the workload x option table (SPEC 3)
    lp        lp                                       the linear program (SPEC 4)
    solver    backends, solver, resolve                HiGHS and CBC, the passes, re-solves
    plan      plan, assemble                           the Plan (SPEC 5) and its assembly
    insight   insight, compare, risks                  what a review reads off a plan
    pipeline  warm, solve, whatif, frontier, replay    files to plans: one, a batch, a sweep; plans on logged traffic
    outputs   tables, terminal, gateway(_ids), report  JSON/CSV, the terminal, HTML, exports
    commands  commands                                 each command's work
    cli       cli, __main__                            the command line
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "planner"

LAYERS = [
    ("base", {"errors", "fmt", "files", "arrays", "timing"}),
    (
        "schema",
        {
            "schema",
            "distribution",
            "edits",
            "load",
            "scenarios",
            "catalog_import",
            "catalog_diff",
            "rescale",
            "schemas",
            "fetch",
            "logs",
            "traffic",
            "calibrate",
        },
    ),
    ("pairs", {"pairs", "prune"}),
    ("lp", {"lp"}),
    ("solver", {"backends", "solver", "resolve"}),
    ("plan", {"plan", "assemble"}),
    ("insight", {"insight", "compare", "risks"}),
    ("pipeline", {"warm", "solve", "whatif", "frontier", "replay"}),
    ("outputs", {"tables", "terminal", "gateway", "gateway_ids", "report"}),
    ("commands", {"commands"}),
    ("cli", {"cli", "__main__"}),
]
LEVEL = {module: k for k, (_, modules) in enumerate(LAYERS) for module in modules}


def _module(path: Path) -> str:
    """A file's module as the contract names it (the report package is one module)."""
    rel = path.relative_to(PACKAGE).with_suffix("")
    return rel.parts[0] if rel.parts[0] != "__init__" else "planner"


def _is_module(name: str) -> bool:
    """A module or subpackage of planner (not a name such as __version__ taken from its __init__)."""
    return (PACKAGE / f"{name}.py").exists() or (PACKAGE / name / "__init__.py").exists()


def _imports(path: Path) -> set[str]:
    """The planner modules a file imports (as the contract names them)."""
    return _imports_of(path.read_text(), path)


def _imports_of(source: str, path: Path) -> set[str]:
    tree = ast.parse(source, str(path))
    package = path.relative_to(PACKAGE).parent.parts  # () for planner/, ("report",) for planner/report/
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the file's package
                base = list(package[: len(package) - (node.level - 1)] if node.level > 1 else package)
                target = base + (node.module.split(".") if node.module else [])
                if not target:  # `from . import x` inside planner/: x is the module
                    names = ["planner." + a.name for a in node.names]
                else:
                    names = ["planner." + ".".join(target)] + (
                        [] if node.module else ["planner." + ".".join(target + [a.name]) for a in node.names]
                    )
            elif node.module == "planner":  # from planner import x: x is the module
                names = ["planner." + a.name for a in node.names]
            else:
                names = [node.module or ""]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "planner" and len(parts) > 1 and _is_module(parts[1]):
                out.add(parts[1])
    return out


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module(path)
        if module == "planner":
            continue
        graph.setdefault(module, set()).update(m for m in _imports(path) if m != module)
    return graph


def test_every_module_has_a_layer():
    missing = sorted(set(_graph()) - set(LEVEL))
    assert not missing, f"modules with no layer in tests/test_layers.py: {missing}"


def test_imports_only_point_down():
    graph = _graph()
    upward = [
        f"{a} ({LAYERS[LEVEL[a]][0]}) imports {b} ({LAYERS[LEVEL[b]][0]})"
        for a, deps in sorted(graph.items())
        for b in sorted(deps)
        if LEVEL[b] > LEVEL[a]
    ]
    assert not upward, "\n".join(upward)


def test_no_import_cycles():
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
        if node not in state:
            visit(node, [node])
    assert not cycles, "\n".join(cycles)


def test_the_contract_sees_imports():
    """The checker itself: it finds relative, lazy and package imports."""
    graph = _graph()
    assert {"commands"} <= graph["cli"]  # imported inside a function
    assert {"lp", "backends"} <= graph["solver"]
    assert {"fmt", "plan"} <= graph["report"]  # from ..fmt / ..plan inside planner/report/
    assert "report" in graph["commands"]
    source = "from planner import lp\nimport planner.pairs\nfrom planner.plan import Plan\nfrom . import fmt\n"
    probe = PACKAGE / "solve.py"  # any file of the top package: relative imports resolve against planner/
    tree_imports = _imports_of(source, probe)
    assert tree_imports == {"lp", "pairs", "plan", "fmt"}
