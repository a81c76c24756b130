"""Bad files never seen before: randomly mutated inputs must give exit 0, 2 or 3 with a clean
message, never an internal error or a traceback."""

import copy
import os

import yaml
from conftest import load_dict
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.cli import app

runner = CliRunner()
EXPLORE = int(os.environ.get("PLANNER_EXPLORE", "0"))
WEIRD = st.sampled_from(
    [None, -1, 0, 1e400, -1e-9, "", "abc", "1e3", True, [], {}, [1, 2], {"a": 1}, 3.5, "<script>", "∞", 10**30, ".nan"]
)


def paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from paths(v, prefix + (i,))


@st.composite
def mutated(draw):
    ws, cat = copy.deepcopy(load_dict("tiny-workloads.yaml")), copy.deepcopy(load_dict("tiny-catalog.yaml"))
    for _ in range(draw(st.integers(1, 3))):
        doc = draw(st.sampled_from([ws, cat]))
        where = draw(st.sampled_from([p for p in paths(doc) if p]))
        parent = doc
        for part in where[:-1]:
            parent = parent[part]
        action = draw(st.sampled_from(["set", "delete", "rename"]))
        key = where[-1]
        if action == "set":
            parent[key] = copy.deepcopy(draw(WEIRD))  # the sampled lists and dicts are shared objects
        elif action == "delete":
            del parent[key]
        elif isinstance(parent, dict):
            parent[str(key) + "x"] = parent.pop(key)
    return ws, cat


@settings(
    max_examples=EXPLORE or 120,
    derandomize=not EXPLORE,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(mutated())
def test_mutated_inputs_never_crash(tmp_path, files):
    ws, cat = files
    ws["catalog"] = "catalog.yaml"
    (tmp_path / "w.yaml").write_text(yaml.safe_dump(ws, sort_keys=False, allow_unicode=True))
    (tmp_path / "catalog.yaml").write_text(yaml.safe_dump(cat, sort_keys=False, allow_unicode=True))
    for args in (
        ["solve", str(tmp_path / "w.yaml"), "--out", str(tmp_path / "o")],
        ["catalog", "validate", str(tmp_path / "catalog.yaml")],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code in (0, 2, 3), (result.exit_code, result.output, result.exception)
        assert "internal error" not in result.output and "Traceback" not in result.output
        if result.exit_code == 2:
            assert result.stderr.strip(), "an input error says what is wrong"
